// A verifier rejection turned into a compiler-style diagnostic: the source place from the log's
// annotation and the object's line table (file:line:col), the verifier's reason in plain words,
// and a hint for the common mistakes. The text is formatted by the compiler's FormatText, so a
// rejected `.uring` or `.c` program reads like a compile error.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "uringc/diag/diagnostic.h"
#include "uringc/source_file.h"
#include "uringc/btf_lines.h"
#include "uringc/verifier_log.h"

namespace uringc {

struct VerifierHint {
  DiagKind kind = DiagKind::kVerifierRejected;  // a kVerifier kind of diag/kinds.def
  std::string plain;  // what the verifier means, in plain words
  std::string hint;   // what to do
};

/// Classifies a verifier message.
VerifierHint ClassifyVerifierReason(const std::string& reason);

/// True when `file` (where a rejected instruction came from, per the line table) is `.uring`
/// source: uringc generated that code, and every program uringc accepts must load.
bool IsCompiledSource(std::string_view file);

/// The last note of a rejection in code uringc generated: a compiler bug, and what to report.
inline constexpr const char* kCompiledCodeRejectedHint =
    "this is a bug in uringc, not in your program: uringc accepted it but generated code the "
    "kernel's verifier rejects. Please report it with the .uring file(s), the output of "
    "`uringc --version` and `uname -r`, and the verifier log (`uringc run --verifier-log=FILE`)";

struct VerifierReport {
  std::string program;    // the rejected program
  std::string section;    // its ELF section
  int error = 0;          // the load's negative errno
  std::string log;        // the kept tail of the log
  ParsedVerifierLog parsed;
  VerifierHint hint;
  SourceManager sources;
  Diagnostic diagnostic;
  std::string text;  // FormatText of the diagnostic
};

/// Source texts the caller already holds, by the file name the object's line table records
/// (`uringc run x.uring` compiled them in memory): the report shows their lines instead of
/// reading the files back, which may have changed since.
using SourceTexts = std::vector<std::pair<std::string, std::string>>;

/// Builds the report. `lines` is the object's line table (ReadLineInfo). A file named there is
/// taken from `texts`, else read from disk, else rebuilt from the line texts in the object.
VerifierReport BuildVerifierReport(const std::string& program, const std::string& section,
                                   int error, std::string log, const std::vector<LineInfo>& lines,
                                   const SourceTexts& texts = {});

}  // namespace uringc
