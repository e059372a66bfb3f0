// DiagnosticList: the one place passes report problems to, and where their number is bounded.
#include "uringc/diag/diagnostic.h"

namespace uringc {

Diagnostic& DiagnosticList::Error(DiagKind kind, SourceRange range, std::string message) {
  return Keep({Severity::kError, kind, std::move(message), range, {}});
}

Diagnostic& DiagnosticList::Warning(DiagKind kind, SourceRange range, std::string message) {
  return Keep({Severity::kWarning, kind, std::move(message), range, {}});
}

Diagnostic& DiagnosticList::Keep(Diagnostic d) {
  const bool error = d.severity == Severity::kError;
  size_t& seen = error ? errors_ : warnings_;
  ++seen;
  if (limit_ == 0 || seen <= limit_) {
    items_.push_back(std::move(d));
    return items_.back();
  }
  if (seen == limit_ + 1) {
    const std::string what = error ? "errors" : "warnings";
    items_.push_back({error ? Severity::kError : Severity::kNote,
                      error ? DiagKind::kTooManyErrors : DiagKind::kTooManyWarnings,
                      "too many " + what + ", the rest are not shown (--error-limit=" +
                          std::to_string(limit_) + ", 0 for no limit)",
                      d.range,
                      {}});
  }
  dropped_ = std::move(d);
  return dropped_;
}

}  // namespace uringc
