// Where the pieces uringc needs at run time are (the stdlib, `uringc-run`, the VM runner), found
// from the running executable so that an installed tree works wherever it is copied or moved and
// after the source tree is gone. A binary run from the build tree finds nothing beside itself and
// falls back to the source- and build-tree paths CMake compiled in.
#pragma once

#include <string>

namespace uringc::install {

/// The directory holding the running executable (from /proc/self/exe); empty when unknown.
std::string ExecutableDir();

/// `ExecutableDir()/relative_to_bindir` when that exists (an installed tree), else `build_tree`.
std::string Locate(const std::string& relative_to_bindir, const std::string& build_tree);

}  // namespace uringc::install
