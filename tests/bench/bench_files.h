// The copy workloads' files: a pseudo-random input of a given size, and the byte-exact check of
// the output against it.
#pragma once

#include <cstdint>
#include <string>

namespace uringc_bench {

/// Writes `size` bytes of pseudo-random data to `path` (making its folder if it is missing);
/// empty or an error message.
std::string MakeInputFile(const std::string& path, uint64_t size);
/// Empty when the files at `a` and `b` hold the same bytes, else what differs.
std::string CompareFiles(const std::string& a, const std::string& b);
/// The size of the file at `fd`, or -1.
int64_t FileSize(int fd);

}  // namespace uringc_bench
