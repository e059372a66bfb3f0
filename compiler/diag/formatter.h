// Renders diagnostics as clang does (`file:line:col: error: message [Kind]`, the source line, a
// `^~~~` marker, then notes) or as JSON for editors and CI.
#pragma once

#include <string>
#include <vector>

#include "diag/diagnostic.h"

namespace uringc {

/// One diagnostic (with its notes) in text form, each line ending in '\n'.
std::string FormatText(const Diagnostic& d, const SourceManager& sources);

/// All diagnostics as a JSON array of objects with file, line, column, end_line, end_column,
/// severity, kind, message and notes.
std::string FormatJson(const std::vector<Diagnostic>& ds, const SourceManager& sources);

}  // namespace uringc
