// Temporary files of `uringc run` (see temp_files.h).
#include "temp_files.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "interrupt.h"

namespace uringc {

Result<std::string> MakeTempDir(const std::string& prefix) {
  const char* tmp = getenv("TMPDIR");
  std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + prefix + "-XXXXXX";
  SignalBlock block;  // made and registered, or neither
  if (mkdtemp(dir.data()) == nullptr) {
    return MakeError(DiagKind::kFileError, errno,
                     "cannot create a temporary directory (" + dir + "): " + strerror(errno));
  }
  RemoveOnSignal(dir);
  return dir;
}

Result<void> WriteNewFile(const std::string& path, std::string_view bytes) {
  int fd;
  {
    SignalBlock block;
    fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
      return MakeError(DiagKind::kFileError, errno,
                       "cannot create `" + path + "`: " + strerror(errno));
    RemoveOnSignal(path);
  }
  int err = 0;
  for (size_t done = 0; done < bytes.size() && !err;) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n > 0) done += static_cast<size_t>(n);
    else if (n < 0 && errno != EINTR) err = errno;
    else if (n == 0) err = EIO;
  }
  if (close(fd) != 0 && !err) err = errno;
  if (err) {
    RemoveTemp(path);
    return MakeError(DiagKind::kFileError, err, "cannot write `" + path + "`: " + strerror(err));
  }
  return {};
}

void RemoveTemp(const std::string& path) {
  if (unlink(path.c_str()) != 0 && (errno == EISDIR || errno == EPERM)) rmdir(path.c_str());
  KeepOnSignal(path);
}

}  // namespace uringc
