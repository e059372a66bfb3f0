" Vim filetype settings for .uring: C-style comments for `gc`-style commenting plugins and
" formatting, `std.net` imports resolved to stdlib files for `gf`, four-space indents.
if exists('b:did_ftplugin')
  finish
endif
let b:did_ftplugin = 1

setlocal commentstring=//\ %s
setlocal comments=s1:/*,mb:*,ex:*/,://
setlocal formatoptions-=t formatoptions+=croql
setlocal suffixesadd=.uring
setlocal includeexpr=substitute(v:fname,'\\.','/','g')
setlocal include=^\\s*import

let b:undo_ftplugin = 'setlocal commentstring< comments< formatoptions< suffixesadd<'
let b:undo_ftplugin .= ' includeexpr< include<'

" The layout of examples/ and stdlib/: four spaces. `let g:uring_recommended_style = 0` keeps yours.
if get(g:, 'uring_recommended_style', 1)
  setlocal expandtab shiftwidth=4 softtabstop=4
  let b:undo_ftplugin .= ' | setlocal expandtab< shiftwidth< softtabstop<'
endif
