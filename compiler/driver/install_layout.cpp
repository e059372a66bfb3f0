// Locating installed files relative to the executable (see install_layout.h).
#include "driver/install_layout.h"

#include <limits.h>
#include <unistd.h>

namespace uringc::install {

std::string ExecutableDir() {
  char path[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0) return "";
  const std::string exe(path, static_cast<size_t>(n));
  const size_t slash = exe.rfind('/');
  return slash == std::string::npos ? "" : exe.substr(0, slash);
}

std::string Locate(const std::string& relative_to_bindir, const std::string& build_tree) {
  const std::string dir = ExecutableDir();
  if (!dir.empty()) {
    const std::string installed = dir + "/" + relative_to_bindir;
    if (access(installed.c_str(), F_OK) == 0) return installed;
  }
  return build_tree;
}

}  // namespace uringc::install
