// Temporary files of `uringc run`: the compiled object of a `.uring` source and the --vm
// manifest. Each is created privately under $TMPDIR (default /tmp), written with every write and
// the close checked (a full disk must not hand the runtime half an object), and registered with
// interrupt.h, so a signal before the run starts removes it as well as a normal end does.
#pragma once

#include <string>
#include <string_view>

#include "uringc/result.h"

namespace uringc {

/// Creates a private directory $TMPDIR/PREFIX-XXXXXX; returns its path.
Result<std::string> MakeTempDir(const std::string& prefix);

/// Writes bytes to the new file path (0600; an existing file or link there is an error). On
/// failure nothing is left at path.
Result<void> WriteNewFile(const std::string& path, std::string_view bytes);

/// Removes a file or empty directory made by the two above.
void RemoveTemp(const std::string& path);

}  // namespace uringc
