// Loading the root file of a Compilation (see compilation.h).
#include "driver/compilation.h"

#include <cstdlib>

#include "driver/install_layout.h"
#include "source/read_file.h"

namespace uringc::driver {

std::string DefaultStdlibDir() {
  if (const char* env = std::getenv("URINGC_STDLIB"); env != nullptr && *env != '\0') return env;
  return install::Locate(URINGC_STDLIB_FROM_BINDIR, URINGC_DEFAULT_STDLIB);
}

bool Compilation::LoadRoot(const std::string& path, std::string& io_error) {
  std::string text, name = path;
  if (options.program) {
    name = kProgramName;
    text = *options.program;
    if (text.size() > kMaxSourceFileSize) {
      io_error = "the -e program is larger than 4 MiB, the limit for a source file";
      return false;
    }
  } else if (path == "-") {
    name = kStdinName;
    if (ReadStandardInput(kMaxSourceFileSize, text, io_error) != 0) return false;
  } else if (!ReadSourceFile(path, text, io_error)) {
    return false;
  }
  SetRoot(name, std::move(text));
  return true;
}

void Compilation::SetRoot(const std::string& name, std::string text) {
  program.stdlib_dir = options.stdlib_dir;
  sema::Module root;
  root.path = name;
  root.file_id = sources.Add(name, std::move(text));
  program.modules.push_back(std::move(root));
}

}  // namespace uringc::driver
