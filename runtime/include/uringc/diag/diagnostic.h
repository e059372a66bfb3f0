// Diagnostics are plain data: a severity, a stable kind name, a message, a range and notes. Passes
// append them to a DiagnosticList; only diag/formatter.cpp turns them into text or JSON, so the
// compiler and the runtime (verifier errors) print in one format.
#pragma once

#include <string>
#include <vector>

#include "uringc/diag/kinds.h"
#include "uringc/source_file.h"

namespace uringc {

enum class Severity { kError, kWarning, kNote };

/// A related place shown after the main message ("`buf` declared here").
struct DiagnosticNote {
  SourceRange range;
  std::string message;
};

struct Diagnostic {
  Severity severity = Severity::kError;
  /// Stable kind from the registry (diag/kinds.def); tests match it, not the wording.
  DiagKind kind = DiagKind::kInternalCompilerError;
  /// Lowercase, no trailing period, code in backticks.
  std::string message;
  SourceRange range;
  std::vector<DiagnosticNote> notes;
};

/// The diagnostics of one run, bounded: after `limit` errors one more error, TooManyErrors,
/// stands for the rest, and after `limit` warnings a TooManyWarnings note does; what is left out
/// is still counted (so 200,000 errors print a screenful, not 29 MB, and are not kept).
class DiagnosticList {
 public:
  /// The default of `uringc --error-limit`.
  static constexpr size_t kDefaultLimit = 50;

  /// The new diagnostic, for notes (past the limit a scratch one that is thrown away).
  Diagnostic& Error(DiagKind kind, SourceRange range, std::string message);
  Diagnostic& Warning(DiagKind kind, SourceRange range, std::string message);
  void Add(Diagnostic d) { Keep(std::move(d)); }
  /// At most `limit` errors and `limit` warnings are kept; 0 keeps everything.
  void set_limit(size_t limit) { limit_ = limit; }

  const std::vector<Diagnostic>& items() const { return items_; }
  bool HasErrors() const { return errors_ > 0; }
  /// Every error reported, including those left out past the limit.
  size_t ErrorCount() const { return errors_; }
  size_t WarningCount() const { return warnings_; }

 private:
  Diagnostic& Keep(Diagnostic d);

  size_t limit_ = kDefaultLimit;
  size_t errors_ = 0;
  size_t warnings_ = 0;
  std::vector<Diagnostic> items_;
  Diagnostic dropped_;  // a left-out diagnostic, for its caller to add notes to
};

}  // namespace uringc
