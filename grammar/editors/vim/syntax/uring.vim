" Vim syntax file for .uring, the request-graph language of uringc (docs/editors.md).
" The word lists follow grammar/Uring.g4 (keywords) and compiler/sema/requests.cpp (requests,
" builtins, constants, types, units); tests/editors/test_editor_syntax.py fails when they drift.
if exists('b:current_syntax')
  finish
endif
let s:cpo_save = &cpo
set cpo&vim

syn keyword uringInclude import
syn keyword uringDeclare fn graph let var
syn keyword uringConditional if else
syn keyword uringRepeat while loop repeat for in
syn keyword uringConcurrency parallel all any
syn keyword uringException try catch fail
syn keyword uringStatement break continue stop return within as
syn keyword uringBoolean true false
syn keyword uringBuffers buffers of

" A call; the requests, builtins and conversions below are defined later, so they win.
syn match uringCall "\<\h\w*\ze\s*("

" Type names are plain names in the grammar (an output may be called `bytes`): a type after
" `:` or `->`, or called as a conversion.
syn match uringType "\%(\%(:\|->\)\s*\%(\%(shared\|provided\|const\)\s\+\)\=\)\@<=\<\%(bool\|fd\|duration\|bytes\|[ui]\%(8\|16\|32\|64\)\)\>"
syn match uringType "\<\%(bool\|fd\|duration\|bytes\|[ui]\%(8\|16\|32\|64\)\)\ze\s*("
" `const` is a match, not a keyword, so that `const bytes` can be a qualifier (keywords win).
syn match uringDeclare "\<const\>"
syn match uringQualifier "\<\%(shared\|provided\|const\)\ze\s\+\%(buffers\|bytes\)\>"

syn match uringRequest "\<\%(nop\|read\|write\|recv\|send\|accept\|connect\|socket\|close\|fsync\|openat\|poll\|sleep\|cancel\|openat2\|bind\|listen\|shutdown\|statx\|splice\|uring_cmd\)\ze\s*("
syn match uringBuiltin "\<\%(len\|min\|max\|copy_bytes\|equal_bytes\|copy_from_user\|address_of\|\%(get\|put\)_\%([ui]8\|[ui]\%(16\|32\|64\)\%(le\|be\)\)\)\ze\s*("

syn match uringFuncName "\%(\<\%(fn\|graph\)\s\+\)\@<=\h\w*"

syn keyword uringConstant EPERM ENOENT EINTR EIO EBADF EAGAIN ENOMEM EFAULT EBUSY EEXIST EINVAL
syn keyword uringConstant ENOSPC EPIPE ETIME ENOBUFS ECONNRESET ETIMEDOUT ECONNREFUSED EALREADY
syn keyword uringConstant ECANCELED EXDEV ENOTDIR EISDIR EFBIG ENAMETOOLONG EMSGSIZE ESPIPE
syn keyword uringConstant AT_FDCWD CUR O_RDONLY O_WRONLY O_RDWR O_CREAT O_TRUNC O_APPEND
syn keyword uringConstant POLLIN POLLOUT POLLERR POLLHUP RESOLVE_NO_XDEV RESOLVE_NO_MAGICLINKS
syn keyword uringConstant RESOLVE_NO_SYMLINKS RESOLVE_BENEATH RESOLVE_IN_ROOT RESOLVE_CACHED
syn keyword uringConstant AF_UNIX AF_INET AF_INET6 SOCK_STREAM SOCK_DGRAM SHUT_RD SHUT_WR
syn keyword uringConstant SHUT_RDWR STATX_TYPE STATX_MODE STATX_MTIME STATX_SIZE STATX_BASIC_STATS
syn keyword uringConstant AT_SYMLINK_NOFOLLOW AT_EMPTY_PATH S_IFMT S_IFREG S_IFDIR SPLICE_F_MOVE
syn keyword uringConstant SPLICE_F_NONBLOCK SPLICE_F_MORE

syn match uringNumber "\<\%(0x[0-9A-Fa-f_]\+\|\d[0-9_]*\)\>"
" A quantity: `10 ms`, `4 KiB`; the unit is highlighted apart from its number.
syn match uringUnit "\%(\<\%(0x[0-9A-Fa-f_]\+\|\d[0-9_]*\)\s*\)\@<=\%(ns\|us\|ms\|s\|B\|KiB\|MiB\|GiB\)\>"

syn match uringOperator "[-+*/%&|^!<>=]"
syn match uringOperator "\.\."
syn match uringArrow "=>\|->"
syn match uringPropagate "?"

" Comments and strings come last: at the same column the item defined last wins, and `//`
" must not be read as two `/` operators.
syn keyword uringTodo contained TODO FIXME XXX
syn region uringComment start="//" end="$" contains=uringTodo,@Spell
syn region uringComment start="/\*" end="\*/" contains=uringTodo,@Spell

" Byte strings: \n \r \t \0 \\ \" \xHH; any other escape is an error, as in the lexer.
syn match uringBadEscape contained "\\."
syn match uringEscape contained +\\\%([nrt0\\"]\|x\x\x\)+
syn region uringString start=+"+ skip=+\\\\\|\\"+ end=+"+ end=+$+ contains=uringEscape,uringBadEscape

" Redraws that start inside a long block comment still see it as one.
syn sync ccomment uringComment minlines=50

hi def link uringTodo Todo
hi def link uringComment Comment
hi def link uringString String
hi def link uringEscape SpecialChar
hi def link uringBadEscape Error
hi def link uringInclude Include
hi def link uringDeclare Keyword
hi def link uringConditional Conditional
hi def link uringRepeat Repeat
hi def link uringConcurrency Keyword
hi def link uringException Exception
hi def link uringStatement Statement
hi def link uringBoolean Boolean
hi def link uringBuffers Type
hi def link uringType Type
hi def link uringQualifier StorageClass
hi def link uringFuncName Function
hi def link uringCall Function
hi def link uringRequest Identifier
hi def link uringBuiltin Function
hi def link uringConstant Constant
hi def link uringNumber Number
hi def link uringUnit Special
hi def link uringOperator Operator
hi def link uringArrow Operator
hi def link uringPropagate Special

let b:current_syntax = 'uring'
let &cpo = s:cpo_save
unlet s:cpo_save
