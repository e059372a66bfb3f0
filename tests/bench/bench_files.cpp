// Input files and the byte-exact comparison of the copy workloads (bench_files.h).
#include "bench_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace uringc_bench {
namespace {

constexpr size_t kChunk = 1 << 20;

// Reads up to n bytes (fewer only at the end of the file); -1 on error.
ssize_t ReadFull(int fd, char* p, size_t n) {
  size_t got = 0;
  while (got < n) {
    const ssize_t r = read(fd, p + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return static_cast<ssize_t>(got);
}

}  // namespace

int64_t FileSize(int fd) {
  struct stat st {};
  return fstat(fd, &st) == 0 ? st.st_size : -1;
}

std::string MakeInputFile(const std::string& path, uint64_t size) {
  const size_t slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) mkdir(path.substr(0, slash).c_str(), 0755);
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return "cannot create " + path + ": " + strerror(errno);
  std::vector<uint64_t> chunk(kChunk / 8);
  uint64_t x = 0x9e3779b97f4a7c15ull;  // xorshift64: cheap, and no two 4 KiB blocks alike
  std::string error;
  for (uint64_t left = size; left > 0 && error.empty();) {
    for (uint64_t& w : chunk) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      w = x;
    }
    const size_t n = left < kChunk ? static_cast<size_t>(left) : kChunk;
    if (write(fd, chunk.data(), n) != static_cast<ssize_t>(n)) error = "cannot write " + path;
    left -= n;
  }
  close(fd);
  return error;
}

std::string CompareFiles(const std::string& a, const std::string& b) {
  const int fa = open(a.c_str(), O_RDONLY | O_CLOEXEC);
  const int fb = open(b.c_str(), O_RDONLY | O_CLOEXEC);
  std::string error;
  if (fa < 0 || fb < 0) {
    error = "cannot open " + std::string(fa < 0 ? a : b) + ": " + strerror(errno);
  } else if (FileSize(fa) != FileSize(fb)) {
    error = b + " has " + std::to_string(FileSize(fb)) + " bytes, " + a + " " +
            std::to_string(FileSize(fa));
  } else {
    std::vector<char> ca(kChunk), cb(kChunk);
    for (uint64_t off = 0; error.empty();) {
      const ssize_t na = ReadFull(fa, ca.data(), kChunk), nb = ReadFull(fb, cb.data(), kChunk);
      if (na < 0 || nb < 0 || na != nb) {
        error = "cannot read the files back";
      } else if (na == 0) {
        break;
      } else if (memcmp(ca.data(), cb.data(), static_cast<size_t>(na)) != 0) {
        error = b + " differs from " + a + " in the MiB at offset " + std::to_string(off);
      }
      off += static_cast<uint64_t>(na);
    }
  }
  if (fa >= 0) close(fa);
  if (fb >= 0) close(fb);
  return error;
}

}  // namespace uringc_bench
