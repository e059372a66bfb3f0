// See read_file.h. The file is opened with O_NONBLOCK, so opening a FIFO returns at once, and
// its type and size are taken from the open descriptor (fstat), so nothing can swap the file
// between the check and the read.
#include "source/read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace uringc {
namespace {

std::string SizeText(size_t bytes) {
  if (bytes % (size_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

const char* FileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

// Reads `fd` to its end into `text`, stopping with EFBIG as soon as it passes `max_size`.
int ReadAll(int fd, const std::string& name, size_t max_size, const std::string& too_large,
            std::string& text, std::string& error) {
  text.clear();
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      error = "cannot read `" + name + "`: " + std::strerror(e);
      return e;
    }
    if (n == 0) return 0;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > max_size) {
      error = too_large;
      return EFBIG;
    }
  }
}

}  // namespace

int ReadStandardInput(size_t max_size, std::string& text, std::string& error) {
  const int e = ReadAll(0, "standard input", max_size,
                        "standard input holds more than " + SizeText(max_size) +
                            ", the limit for a source file",
                        text, error);
  if (e != 0) text.clear();
  return e;
}

int ReadRegularFile(const std::string& path, size_t max_size, const char* what,
                    std::string& text, std::string& error) {
  const std::string too_large =
      "`" + path + "` is larger than " + SizeText(max_size) + ", the limit for " + what;
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    error = "cannot open `" + path + "`: " + std::strerror(e);
    return e;
  }
  struct stat st;
  int e = fstat(fd, &st) == 0 ? 0 : errno;
  if (e != 0) {
    error = "cannot read `" + path + "`: " + std::strerror(e);
  } else if (!S_ISREG(st.st_mode)) {
    error = "`" + path + "` is " + FileKind(st.st_mode) + ", not a regular file";
    e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
  } else if (static_cast<uint64_t>(st.st_size) > max_size) {
    error = too_large;
    e = EFBIG;
  }
  if (e == 0) {
    // The size from fstat is a hint: the file may change while it is read, so reading stops as
    // soon as the text passes the limit.
    text.reserve(static_cast<size_t>(st.st_size));
    e = ReadAll(fd, path, max_size, too_large, text, error);
  }
  close(fd);
  if (e != 0) text.clear();
  return e;
}

bool ReadSourceFile(const std::string& path, std::string& text, std::string& error) {
  return ReadRegularFile(path, kMaxSourceFileSize, "a source file", text, error) == 0;
}

}  // namespace uringc
