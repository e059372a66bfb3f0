# Helpers for hand-written C BPF programs: compile them with clang -target bpf, and embed an object
# into a host binary so test binaries are self-contained (the VM copies binaries, not build trees).

# uringc_add_bpf_object(<name> <source.bpf.c> [clang flags...]): builds
# ${CMAKE_CURRENT_BINARY_DIR}/<name>.bpf.o and a target `<name>_bpf_object`. CPU v3 (ALU32 + JMP32)
# is pinned: clang's default differs by version (a later -mcpu= in the flags wins). clang's
# dependency file makes every header it includes a dependency.
function(uringc_add_bpf_object name source)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${name}.bpf.o)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${URINGC_BPF_CLANG} -target bpf -mcpu=v3 -O2 -g -Wall -Werror
            -I${PROJECT_SOURCE_DIR}/runtime/bpf
            -I/usr/include/${CMAKE_LIBRARY_ARCHITECTURE} ${ARGN}
            -MD -MF ${out}.d -c ${CMAKE_CURRENT_SOURCE_DIR}/${source} -o ${out}
    DEPENDS ${source} ${PROJECT_SOURCE_DIR}/runtime/bpf/uringc_controller.bpf.h
    DEPFILE ${out}.d
    COMMENT "BPF ${source}"
    VERBATIM)
  add_custom_target(${name}_bpf_object ALL DEPENDS ${out})
  set(${name}_BPF_OBJECT ${out} PARENT_SCOPE)
endfunction()

# uringc_embed_file(<target> <file> <symbol>): links <file>'s bytes into <target> as
# `extern const unsigned char <symbol>[]` and `extern const unsigned char <symbol>_end[]`. One
# assembly file per target and symbol: two targets may embed different files under one symbol.
function(uringc_embed_file target file symbol)
  set(asm ${CMAKE_CURRENT_BINARY_DIR}/embed/${target}/${symbol}.embed.S)
  file(WRITE ${asm}
    ".section .rodata\n"
    ".balign 8\n"
    ".global ${symbol}\n${symbol}:\n"
    ".incbin \"${file}\"\n"
    ".global ${symbol}_end\n${symbol}_end:\n"
    ".section .note.GNU-stack,\"\",@progbits\n")
  set_source_files_properties(${asm} PROPERTIES OBJECT_DEPENDS ${file})
  target_sources(${target} PRIVATE ${asm})
endfunction()
