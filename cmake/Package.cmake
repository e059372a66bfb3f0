# Debian packages from the installed components (cmake/Install.cmake), with CPack:
#   liburingc0     runtime   the shared runtime library
#   liburingc-dev  dev       headers, liburingc.a, pkg-config and CMake files
#   uringc         tools     uringc, uringc-run, the stdlib, the VM runner, man pages, completion,
#                            editor support (TextMate grammar, VS Code .vsix, Vim files)
# `scripts/package-debs.sh` builds them into build/packages/. dpkg-shlibdeps computes the shared
# library dependencies; libbpf1 >= 1.2 is named by hand because the symbols an older libbpf
# also has are not enough (it must know `.struct_ops.link`): on Debian 12 that is
# bookworm-backports. LLVM is linked statically, so it is no dependency.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME uringc)
set(CPACK_PACKAGE_VENDOR "uringc")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "compile and run io_uring request graphs as in-kernel BPF controllers")
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(URINGC_PACKAGE_MAINTAINER "uringc developers <uringc@localhost>" CACHE STRING
  "the Maintainer field of the Debian packages")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${URINGC_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev tools)

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME liburingc0)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS "libbpf1 (>= 1:1.2)")
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION
  "runtime library of uringc\n The runtime loads a compiled request graph onto an io_uring ring, runs it in the\n kernel (io_uring_bpf_ops, Linux 7.1+) or on the host engine, and explains failures.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME liburingc-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
  "liburingc0 (= ${PROJECT_VERSION}), libbpf-dev (>= 1:1.2), liburing-dev (>= 2.3), pkg-config")
set(CPACK_COMPONENT_DEV_DESCRIPTION
  "development files of the uringc runtime\n Headers (C and C++), the static library, pkg-config and CMake package files\n (find_package(uringc)) to embed compiled uringc graphs in applications.")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME uringc)
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "libbpf1 (>= 1:1.2)")
set(CPACK_DEBIAN_TOOLS_PACKAGE_RECOMMENDS "python3, qemu-system-x86, busybox-static, graphviz")
set(CPACK_DEBIAN_TOOLS_PACKAGE_SUGGESTS "liburingc-dev")
set(CPACK_COMPONENT_TOOLS_DESCRIPTION
  "compiler and runner for io_uring request graphs\n uringc compiles .uring programs (requests, the data flowing between them,\n concurrency, cancellation, deadlines, errors) to BPF struct_ops controllers that\n run inside io_uring_enter (Linux 7.1+), or to native code for the host engine,\n and runs them (uringc run; --vm boots a kernel that has io_uring_bpf_ops).")
include(CPack)
