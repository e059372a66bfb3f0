" Vim indent file for .uring: one 'shiftwidth' more after a line that leaves a `{`, `(` or `[`
" open, one less on a line that starts with its closer (the layout of examples/ and stdlib/).
if exists('b:did_indent')
  finish
endif
let b:did_indent = 1

setlocal indentexpr=UringIndent(v:lnum)
setlocal indentkeys=0{,0},0),0],!^F,o,O,e
setlocal autoindent
let b:undo_indent = 'setlocal indentexpr< indentkeys< autoindent<'

if exists('*UringIndent')
  finish
endif

" The code of line `lnum` without strings, comments and leading closers.
function! s:Code(lnum) abort
  let line = substitute(getline(a:lnum), '"\%([^"\\]\|\\.\)*"', '""', 'g')
  let line = substitute(line, '//.*$', '', '')
  return substitute(line, '^\s*[}\])]*', '', '')
endfunction

function! UringIndent(lnum) abort
  let prev = prevnonblank(a:lnum - 1)
  if prev == 0
    return 0
  endif
  " After a line that starts inside a block comment, keep the line's own indent.
  let in_block = synIDattr(synID(prev, 1, 1), 'name') ==# 'uringComment'
  if in_block && getline(prev) !~# '^\s*//'
    return -1
  endif
  let code = s:Code(prev)
  let open = len(substitute(code, '[^{(\[]', '', 'g'))
  let close = len(substitute(code, '[^})\]]', '', 'g'))
  let ind = indent(prev) + (open > close ? shiftwidth() : 0)
  if getline(a:lnum) =~# '^\s*[}\])]'
    let ind -= shiftwidth()
  endif
  return ind
endfunction
