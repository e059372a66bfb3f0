# Finds every dependency of uringc and stops early, naming the Debian package to install, when one
# is missing. `scripts/install-deps.sh` installs all of them.

function(uringc_missing what package)
  message(FATAL_ERROR
    "uringc needs ${what}: install the Debian package `${package}` "
    "(or run scripts/install-deps.sh, which installs everything)")
endfunction()

# LLVM: 22.1 preferred (bookworm-security), 19.1 accepted (bookworm). find_package needs major.minor.
find_package(LLVM 22.1 CONFIG QUIET PATHS /usr/lib/llvm-22/lib/cmake/llvm NO_DEFAULT_PATH)
if(NOT LLVM_FOUND)
  find_package(LLVM 19.1 CONFIG QUIET PATHS /usr/lib/llvm-19/lib/cmake/llvm NO_DEFAULT_PATH)
endif()
if(NOT LLVM_FOUND)
  uringc_missing("LLVM 22.1 (or 19.1) with its CMake files" "llvm-22-dev")
endif()
if(NOT "BPF" IN_LIST LLVM_TARGETS_TO_BUILD)
  message(FATAL_ERROR "LLVM ${LLVM_PACKAGE_VERSION} at ${LLVM_DIR} was built without the BPF target")
endif()
message(STATUS "uringc: LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")

# uringc links the LLVM components it uses statically when llvm-dev ships them (Debian does):
# loading and relocating the 100 MB libLLVM.so costs ~13 ms of every `uringc compile`, a third of
# the compile-time budget (docs/codegen.md, "Compile time"). --as-needed drops libz3, which
# LLVMSupport names but uringc never calls. URINGC_LLVM_LIBS is what the LLVM-backed phases link.
option(URINGC_STATIC_LLVM "link LLVM's static component libraries, not libLLVM.so" ON)
if(URINGC_STATIC_LLVM AND EXISTS "${LLVM_LIBRARY_DIR}/libLLVMBPFCodeGen.a")
  llvm_map_components_to_libnames(URINGC_LLVM_LIBS bpfcodegen bpfasmparser bpfdesc bpfinfo
    x86codegen x86desc x86info object passes)
  # `uringc run --engine=host` links the host object in memory (driver/host_jit.cpp).
  llvm_map_components_to_libnames(URINGC_LLVM_JIT_LIBS orcjit jitlink)
  add_link_options("LINKER:--as-needed")
  # Every binary that links static LLVM is some 200 MB with its debug info: lld links uringc in
  # 1.3 s where ld.bfd takes 5.3 s, and a cold build links about twenty of them.
  include(CheckLinkerFlag)
  check_linker_flag(CXX -fuse-ld=lld URINGC_HAVE_LLD)
  if(URINGC_HAVE_LLD)
    add_link_options(-fuse-ld=lld)
  endif()
  message(STATUS "uringc: LLVM linked statically (${URINGC_LLVM_LIBS} and their dependencies)")
else()
  set(URINGC_LLVM_LIBS LLVM)
  set(URINGC_LLVM_JIT_LIBS LLVM)
  message(STATUS "uringc: LLVM linked as libLLVM.so")
endif()

# clang compiles the hand-written C controllers with -target bpf. Prefer LLVM's own major version.
find_program(URINGC_BPF_CLANG NAMES clang-${LLVM_VERSION_MAJOR} clang
  HINTS ${LLVM_TOOLS_BINARY_DIR})
if(NOT URINGC_BPF_CLANG)
  uringc_missing("clang to compile C BPF programs" "clang-${LLVM_VERSION_MAJOR}")
endif()

find_package(PkgConfig)
if(NOT PKG_CONFIG_FOUND)
  uringc_missing("pkg-config" "pkg-config")
endif()

# libbpf >= 1.2: 1.1 (bookworm) knows neither `.struct_ops.link` nor `struct_ops.s/`.
pkg_check_modules(LIBBPF IMPORTED_TARGET libbpf>=1.2)
if(NOT LIBBPF_FOUND)
  uringc_missing("libbpf >= 1.2" "libbpf-dev from bookworm-backports (apt-get install -t bookworm-backports libbpf-dev)")
endif()

pkg_check_modules(LIBURING IMPORTED_TARGET liburing>=2.3)
if(NOT LIBURING_FOUND)
  uringc_missing("liburing >= 2.3" "liburing-dev")
endif()

# ANTLR4: the tool (a Java program) generates the parser at build time; the C++ runtime links.
find_program(URINGC_ANTLR4 NAMES antlr4)
if(NOT URINGC_ANTLR4)
  uringc_missing("the ANTLR4 tool" "antlr4")
endif()
find_path(ANTLR4_INCLUDE_DIR antlr4-runtime.h PATH_SUFFIXES antlr4-runtime)
find_library(ANTLR4_LIBRARY NAMES antlr4-runtime)
if(NOT ANTLR4_INCLUDE_DIR OR NOT ANTLR4_LIBRARY)
  uringc_missing("the ANTLR4 C++ runtime" "libantlr4-runtime-dev")
endif()
# The `uringc` command links the runtime's archive (grammar/CMakeLists.txt says why); the same
# package ships it.
find_library(ANTLR4_STATIC_LIBRARY NAMES libantlr4-runtime.a)
if(NOT ANTLR4_STATIC_LIBRARY)
  set(ANTLR4_STATIC_LIBRARY ${ANTLR4_LIBRARY})
endif()

# nlohmann/json writes the JSON diagnostics (header only).
find_package(nlohmann_json 3.9 CONFIG QUIET)
if(NOT nlohmann_json_FOUND)
  uringc_missing("nlohmann/json" "nlohmann-json3-dev")
endif()

# CLI11 (header-only) parses every command line: uringc, uringc run, uringc-run.
find_package(CLI11 CONFIG QUIET)
if(NOT CLI11_FOUND)
  uringc_missing("CLI11" "libcli11-dev")
endif()

find_package(GTest QUIET)
if(NOT GTest_FOUND)
  uringc_missing("GoogleTest" "libgtest-dev")
endif()

find_program(URINGC_BPFTOOL NAMES bpftool PATHS /usr/sbin)
