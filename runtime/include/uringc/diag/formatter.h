// Renders diagnostics as clang does (`file:line:col: error: message [Kind]`, the source line, a
// `^~~~` marker, then notes) or as JSON for editors and CI.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "uringc/diag/diagnostic.h"

namespace uringc {

/// The two renderings below, as `--diagnostics-format=text|json` chooses them.
enum class DiagnosticsFormat { kText, kJson };

/// `text` safe to print on a terminal: control characters (but tabs and newlines), C1 controls
/// and bidirectional overrides as `<U+001B>`, bytes that are not UTF-8 as `<FF>`.
std::string EscapeForTerminal(std::string_view text);

/// One diagnostic (with its notes) in text form, each line ending in '\n'.
std::string FormatText(const Diagnostic& d, const SourceManager& sources);

/// All diagnostics as a JSON array of objects with file, line, column, end_line, end_column,
/// severity, kind, message and notes.
std::string FormatJson(const std::vector<Diagnostic>& ds, const SourceManager& sources);

}  // namespace uringc
