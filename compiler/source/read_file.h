// Reading a source file from disk, shared by the driver (the root file) and sema's import loader.
#pragma once

#include <string>

namespace uringc {

/// Reads the whole file. False with `error` ("cannot open `x`") on failure or when the file is
/// larger than 1 GiB (offsets in SourceRange are 32-bit).
bool ReadSourceFile(const std::string& path, std::string& text, std::string& error);

}  // namespace uringc
