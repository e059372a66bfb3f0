// A verifier rejection turned into a compiler-style diagnostic: the source place from the log's
// annotation and the object's line table (file:line:col), the verifier's reason in plain words,
// and a hint for the common mistakes. The text is formatted by the compiler's FormatText, so a
// rejected `.uring` or `.c` program reads like a compile error.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "diag/diagnostic.h"
#include "source/source_file.h"
#include "uringc/btf_lines.h"
#include "uringc/verifier_log.h"

namespace uringc {

/// Stable kind names (tests match these).
inline constexpr const char* kRegionOutOfBounds = "RegionOutOfBounds";
inline constexpr const char* kMissingNullCheck = "MissingNullCheck";
inline constexpr const char* kUnboundedLoop = "UnboundedLoop";
inline constexpr const char* kTooComplex = "TooComplex";
inline constexpr const char* kSleepableKfunc = "SleepableKfunc";
inline constexpr const char* kUnknownKfunc = "UnknownKfunc";
inline constexpr const char* kVerifierRejected = "VerifierRejected";

struct VerifierHint {
  std::string kind;
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

/// Builds the report. `lines` is the object's line table (ReadLineInfo); `source_root` is tried
/// when the recorded file path does not exist (objects built elsewhere).
VerifierReport BuildVerifierReport(const std::string& program, const std::string& section,
                                   int error, std::string log, const std::vector<LineInfo>& lines);

}  // namespace uringc
