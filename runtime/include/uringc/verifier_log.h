// Reads a BPF verifier log (or its tail) and finds the failure: the verifier's message, the
// instruction it stopped at, and the `; <source> @ <file>:<line>` annotation the kernel printed
// for that instruction. Accepts the classic log, the structured report that 7.3 kernels append
// ("Verification failed: <category>", "Reason:", "At: fn @ file:line:col", "Causal path:",
// "Suggestion:", each followed by indented lines), and libbpf's rewrite of unresolved kfunc calls.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace uringc {

struct VerifierSourceLine {
  std::string text;  // the source text after "; " (classic annotation), if any
  std::string file;  // as the kernel printed it (a basename)
  uint32_t line = 0;
  uint32_t column = 0;  // structured format only; 0 when unknown
};

/// One step of the structured format's causal path: where, and what happened there.
struct VerifierPathStep {
  std::string function;
  VerifierSourceLine place;
  std::string what;  // "update: R0 changed from uninitialized value to mem_or_null at offset 0"
};

struct ParsedVerifierLog {
  /// The verifier's message (one or more lines); empty when none was recognised.
  std::string reason;
  /// Failing instruction index, -1 if unknown.
  int insn = -1;
  std::string insn_text;  // "15: (61) r1 = *(u32 *)(r0 +64)"
  bool has_source = false;
  VerifierSourceLine source;
  /// From the structured format.
  bool structured = false;
  std::string category;           // "Memory Safety: Access outside bounds"
  std::string structured_reason;  // the Reason paragraph
  std::string suggestion;
  std::vector<VerifierPathStep> causal_path;
};

ParsedVerifierLog ParseVerifierLog(std::string_view log);

/// Keeps the last max_bytes of a log, starting at a line boundary.
std::string LogTail(std::string_view log, size_t max_bytes);

}  // namespace uringc
