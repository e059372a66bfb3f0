" Vim filetype settings for .uring: C-style comments for `gc`-style commenting plugins and
" formatting, `std.net` imports resolved to stdlib files for `gf`.
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

let b:undo_ftplugin = 'setlocal commentstring< comments< formatoptions< suffixesadd< includeexpr< include<'
