# What `cmake --install` puts where (GNUInstallDirs; the directories the binaries look in at run time
# come from cmake/InstallDirs.cmake), so an installed tree works wherever it is moved:
#
#   bin/uringc, bin/uringc-run
#   LIBDIR/liburingc.so.0 (+ .so link), LIBDIR/liburingc.a, LIBDIR/pkgconfig/uringc.pc,
#   LIBDIR/cmake/uringc/ (find_package(uringc): targets uringc::uringc and uringc::uringc_static)
#   include/uringc/ (public headers; bpf/uringc_controller.bpf.h for C controllers)
#   share/uringc/stdlib/, libexec/uringc/ (the VM runner behind `uringc run --vm`)
#   share/man/man1/uringc.1, uringc-run.1, share/bash-completion/completions/uringc, uringc-run
#   share/uringc/editors/ (TextMate grammar, VS Code .vsix), share/vim/vimfiles/ and
#   share/nvim/site/ (Vim files; grammar/editors)
#
# Components: `runtime` (the shared library), `dev` (headers, static library, pkg-config, CMake
# files) and `tools` (everything else); the Debian packages are cut along them (cmake/Package.cmake).
include(CMakePackageConfigHelpers)

install(TARGETS uringc uringc-run RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
install(TARGETS uringc_runtime_shared EXPORT uringcTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev)
install(TARGETS uringc_runtime_static EXPORT uringcTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/include/uringc
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
install(FILES ${PROJECT_SOURCE_DIR}/runtime/bpf/uringc_controller.bpf.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/uringc/bpf COMPONENT dev)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/stdlib/ DESTINATION ${URINGC_INSTALL_STDLIB_DIR}
  COMPONENT tools FILES_MATCHING PATTERN "*.uring")
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tests/vm/run-vm-tests.py ${PROJECT_SOURCE_DIR}/tests/vm/fetch-kernel.sh
  ${PROJECT_SOURCE_DIR}/scripts/debian-mirror.sh
  DESTINATION ${URINGC_INSTALL_RUNNER_DIR} COMPONENT tools)
install(FILES ${PROJECT_SOURCE_DIR}/tests/vm/vmlib.py DESTINATION ${URINGC_INSTALL_RUNNER_DIR}
  COMPONENT tools)
install(FILES ${PROJECT_SOURCE_DIR}/docs/man/uringc.1 ${PROJECT_SOURCE_DIR}/docs/man/uringc-run.1
  DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT tools)
install(FILES ${PROJECT_SOURCE_DIR}/scripts/bash-completion/uringc
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions COMPONENT tools)
install(FILES ${PROJECT_SOURCE_DIR}/scripts/bash-completion/uringc
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions COMPONENT tools
  RENAME uringc-run)

# pkg-config: prefix found from the .pc file's own place, so a moved tree still builds.
file(RELATIVE_PATH pc_to_prefix "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" pc_to_prefix "${pc_to_prefix}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/uringc.pc.in ${PROJECT_BINARY_DIR}/uringc.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/uringc.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
  COMPONENT dev)

# find_package(uringc): uringc::uringc (shared) and uringc::uringc_static.
set_target_properties(uringc_runtime_shared PROPERTIES EXPORT_NAME uringc)
set_target_properties(uringc_runtime_static PROPERTIES EXPORT_NAME uringc_static)
install(EXPORT uringcTargets NAMESPACE uringc:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/uringc
  COMPONENT dev)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/uringcConfig.cmake.in
  ${PROJECT_BINARY_DIR}/uringcConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/uringc)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/uringcConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/uringcConfig.cmake ${PROJECT_BINARY_DIR}/uringcConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/uringc COMPONENT dev)

# Documentation and the examples, for users of an installed tree (share/doc/uringc/).
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT tools)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT tools
  FILES_MATCHING PATTERN "*.md" PATTERN "*.svg" PATTERN "man" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples
  COMPONENT tools FILES_MATCHING PATTERN "*.uring")
# examples/embed builds on its own against the installed package (its CMakeLists.txt says how).
install(FILES ${PROJECT_SOURCE_DIR}/examples/embed/CMakeLists.txt
  ${PROJECT_SOURCE_DIR}/examples/embed/embed_copy.c ${PROJECT_SOURCE_DIR}/examples/embed/embed_graph.c
  DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples/embed COMPONENT tools)

# Editor support: the TextMate grammar, the VS Code extension and the Vim files.
add_subdirectory(${PROJECT_SOURCE_DIR}/grammar/editors ${PROJECT_BINARY_DIR}/editors)
