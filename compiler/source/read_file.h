// Reading a source file from disk, shared by the driver (the root file) and sema's import loader.
// Only regular files are read (a FIFO or a device would block or never end), and only up to
// kMaxSourceFileSize, so what the compiler holds stays proportional to a bounded input.
#pragma once

#include <cstddef>
#include <string>

namespace uringc {

/// The largest source file read (docs/language.md, section 1): 4 MiB, about 150,000 lines;
/// checking one takes about 160 bytes of memory per byte of source (docs/performance.md).
inline constexpr size_t kMaxSourceFileSize = size_t{4} << 20;
/// The most source a program (its main file and every import) may have in total: 16 MiB.
inline constexpr size_t kMaxProgramSourceSize = size_t{16} << 20;

/// Reads the whole file. False with `error` ("cannot open `x`: ...", "`x` is not a regular
/// file", "`x` is larger than 4 MiB") on failure; never blocks on a FIFO or a device.
bool ReadSourceFile(const std::string& path, std::string& text, std::string& error);

/// Reads a regular file of at most `max_size` bytes the same way; `what` names the input in the
/// error ("a source file", "a controller object"). Returns 0, or an errno with `error` set
/// (EINVAL: not a regular file, EFBIG: too large, else what open or read said).
int ReadRegularFile(const std::string& path, size_t max_size, const char* what,
                     std::string& text, std::string& error);

/// Reads standard input to its end, at most `max_size` bytes (a pipe, a terminal or a file):
/// `uringc check -`. Returns 0, or an errno with `error` set (EFBIG: too large).
int ReadStandardInput(size_t max_size, std::string& text, std::string& error);

}  // namespace uringc
