// Files named by --arg (see arg_files.h).
#include "arg_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "interrupt.h"

namespace uringc {

ArgFiles::~ArgFiles() {
  for (const File& f : files_) {
    close(f.fd);
    if (f.created && !started_) {
      unlink(f.path.c_str());
      KeepOnSignal(f.path);
    }
  }
}

Result<int> ArgFiles::Open(const std::string& param, const std::string& path,
                           const std::string& mode) {
  const bool create = mode == "create";
  // O_NONBLOCK: opening a FIFO must not wait for its other end (the controller's requests wait
  // instead); the descriptor is handed over blocking, as a plain open gives it.
  int flags = (mode == "r" ? O_RDONLY : mode == "w" ? O_WRONLY : O_RDWR) | O_NONBLOCK;
  if (mode != "r") flags |= O_NOFOLLOW;
  bool created = false;
  int fd = -1;
  // create: make the file if it is missing (O_EXCL tells whether this command made it), else
  // open the existing one as it is. Two tries, for a file removed in between.
  for (int attempt = 0; fd < 0 && attempt < 2; ++attempt) {
    if (create) {
      SignalBlock block;  // created and registered for removal, or neither
      fd = open(path.c_str(), flags | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      if (fd >= 0) {
        created = true;
        RemoveOnSignal(path);
        break;
      }
      if (errno != EEXIST) break;
    }
    fd = open(path.c_str(), flags | O_CLOEXEC);
    if (!create || errno != ENOENT) break;
  }
  if (fd < 0) {
    const int err = errno;
    std::string why = strerror(err);
    if (err == ELOOP && (flags & O_NOFOLLOW)) {
      why = "it is a symbolic link, and PATH:" + mode + " does not follow links (name the file "
            "it points to)";
    }
    return MakeError(DiagKind::kFileError, err,
                     "--arg " + param + ": cannot open `" + path + "` (" + mode + "): " + why);
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  files_.push_back({fd, path, create, created});
  return fd;
}

Result<void> ArgFiles::StartRun() {
  for (const File& f : files_) {
    struct stat st;
    if (!f.create || f.created || fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (ftruncate(f.fd, 0) != 0) {
      return MakeError(DiagKind::kFileError, errno,
                       "cannot empty `" + f.path + "` (create): " + strerror(errno));
    }
  }
  started_ = true;
  for (const File& f : files_) {
    if (f.created) KeepOnSignal(f.path);
  }
  return {};
}

}  // namespace uringc
