// DiagnosticList: the one place passes report problems to.
#include "diag/diagnostic.h"

#include <algorithm>

namespace uringc {

Diagnostic& DiagnosticList::Error(std::string kind, SourceRange range, std::string message) {
  items_.push_back({Severity::kError, std::move(kind), std::move(message), range, {}});
  return items_.back();
}

Diagnostic& DiagnosticList::Warning(std::string kind, SourceRange range, std::string message) {
  items_.push_back({Severity::kWarning, std::move(kind), std::move(message), range, {}});
  return items_.back();
}

size_t DiagnosticList::ErrorCount() const {
  return std::count_if(items_.begin(), items_.end(),
                       [](const Diagnostic& d) { return d.severity == Severity::kError; });
}

bool DiagnosticList::HasErrors() const { return ErrorCount() > 0; }

}  // namespace uringc
