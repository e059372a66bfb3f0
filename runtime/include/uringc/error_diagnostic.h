// A runtime failure as a compiler-style diagnostic, so `uringc run` and embedding programs print
// it with the compiler's formatter (diag/formatter.h), as text or JSON, with the same kinds.
#pragma once

#include "uringc/diag/diagnostic.h"
#include "uringc/result.h"

namespace uringc {

/// `e` as a diagnostic without a source place: error severity, e's kind and message. (A verifier
/// rejection has a located one: Controller::verifier_report()->diagnostic.)
inline Diagnostic DiagnosticOf(const Error& e) {
  Diagnostic d;
  d.severity = Severity::kError;
  d.kind = e.kind;
  d.message = e.message;
  return d;
}

}  // namespace uringc
