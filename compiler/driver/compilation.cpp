// Loading the root file of a Compilation (see compilation.h).
#include "driver/compilation.h"

#include <cstdlib>

#include "source/read_file.h"

namespace uringc::driver {

std::string DefaultStdlibDir() {
  if (const char* env = std::getenv("URINGC_STDLIB"); env != nullptr && *env != '\0') return env;
  return URINGC_DEFAULT_STDLIB;
}

bool Compilation::LoadRoot(const std::string& path, std::string& io_error) {
  std::string text;
  if (!ReadSourceFile(path, text, io_error)) return false;
  program.stdlib_dir = options.stdlib_dir;
  sema::Module root;
  root.path = path;
  root.file_id = sources.Add(path, std::move(text));
  program.modules.push_back(std::move(root));
  return true;
}

}  // namespace uringc::driver
