# Where an install puts the pieces the binaries look for at run time, and the same places as paths
# relative to bin/, which the binaries compile in so an installed tree works wherever it is moved
# (compiler/driver/install_layout.h). Included before the targets that need the relative paths;
# cmake/Install.cmake installs to the same directories.
include(GNUInstallDirs)

set(URINGC_INSTALL_STDLIB_DIR ${CMAKE_INSTALL_DATADIR}/uringc/stdlib)
set(URINGC_INSTALL_RUNNER_DIR ${CMAKE_INSTALL_LIBEXECDIR}/uringc)

# uringc_path_from_bindir(<out> <dir>): <dir> relative to bin/, e.g. "../share/uringc/stdlib".
function(uringc_path_from_bindir out dir)
  file(RELATIVE_PATH rel "/prefix/${CMAKE_INSTALL_BINDIR}" "/prefix/${dir}")
  set(${out} "${rel}" PARENT_SCOPE)
endfunction()
uringc_path_from_bindir(URINGC_STDLIB_FROM_BINDIR ${URINGC_INSTALL_STDLIB_DIR})
uringc_path_from_bindir(URINGC_RUNNER_FROM_BINDIR ${URINGC_INSTALL_RUNNER_DIR})
