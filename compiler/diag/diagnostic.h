// Diagnostics are plain data: a severity, a stable kind name, a message, a range and notes. Passes
// append them to a DiagnosticList; only diag/formatter.cpp turns them into text or JSON, so the
// compiler and the runtime (verifier errors) print in one format.
#pragma once

#include <string>
#include <vector>

#include "source/source_file.h"

namespace uringc {

enum class Severity { kError, kWarning, kNote };

/// A related place shown after the main message ("`buf` declared here").
struct DiagnosticNote {
  SourceRange range;
  std::string message;
};

struct Diagnostic {
  Severity severity = Severity::kError;
  /// Stable UpperCamelCase name, e.g. "BufferOverrun"; tests match it, not the wording.
  std::string kind;
  /// Lowercase, no trailing period, code in backticks.
  std::string message;
  SourceRange range;
  std::vector<DiagnosticNote> notes;
};

class DiagnosticList {
 public:
  Diagnostic& Error(std::string kind, SourceRange range, std::string message);
  Diagnostic& Warning(std::string kind, SourceRange range, std::string message);
  void Add(Diagnostic d) { items_.push_back(std::move(d)); }

  const std::vector<Diagnostic>& items() const { return items_; }
  bool HasErrors() const;
  size_t ErrorCount() const;

 private:
  std::vector<Diagnostic> items_;
};

}  // namespace uringc
