// Files named by `--arg NAME=PATH:MODE`. Nothing may be lost before the run really starts: a
// `create` file is opened without truncation (created when missing) while the arguments are
// applied, and emptied only once the controller is attached (StartRun); a file the command
// created is removed again when the run never starts, also on SIGINT/SIGTERM (interrupt.h).
// The writing modes (w, rw, create) do not follow a symbolic link in the last component, so a
// link planted where the output goes cannot redirect it to another file.
#pragma once

#include <string>
#include <vector>

#include "uringc/result.h"

namespace uringc {

class ArgFiles {
 public:
  ArgFiles() = default;
  ArgFiles(const ArgFiles&) = delete;
  ArgFiles& operator=(const ArgFiles&) = delete;
  /// Closes every file; removes the ones it created unless the run started.
  ~ArgFiles();

  /// Opens path for parameter param with mode r, w, rw or create; returns the fd.
  Result<int> Open(const std::string& param, const std::string& path, const std::string& mode);

  /// Empties the existing `create` files: call once the controller is attached, just before
  /// it runs. From then on the files are kept.
  Result<void> StartRun();

 private:
  struct File {
    int fd;
    std::string path;
    bool create;   // mode create: emptied by StartRun
    bool created;  // made by Open: removed if the run never starts
  };
  std::vector<File> files_;
  bool started_ = false;
};

}  // namespace uringc
