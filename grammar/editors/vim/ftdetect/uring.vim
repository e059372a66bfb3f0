" Vim filetype detection: *.uring files are uringc request graphs (syntax/uring.vim).
autocmd BufRead,BufNewFile *.uring setfiletype uring
