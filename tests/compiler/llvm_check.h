// Ordered-subset checks of LLVM IR text, a small FileCheck for the file-driven tests
// (file_test_runner.cpp, `// EMIT: llvm`). A file's check lines, in order:
//   // LLVM: PATTERN       the first IR line after the previous match that contains PATTERN
//   // LLVM-NEXT: PATTERN  the IR line right after the previous match contains PATTERN
//   // LLVM-NOT: PATTERN   no IR line between the previous match and the next one contains it
//                          (up to the end of the IR when no check follows)
// An `// LLVM:` line and the LLVM-NEXT lines right after it match as one group, at the first
// place where all of them match consecutive IR lines (unlike FileCheck, which takes the first
// match of the `CHECK:` line and then fails on its `CHECK-NEXT:`).
// PATTERN is a substring, except `{{RE}}` (an ECMAScript regex), `[[NAME:RE]]` (matches RE and
// binds NAME to the text it matched) and `[[NAME]]` (the text NAME was bound to, literally).
// RE may not contain `}}` or `]]`.
#pragma once

#include <string>
#include <vector>

namespace uringc::testing {

struct LlvmCheck {
  enum class Kind { kCheck, kNext, kNot };
  Kind kind = Kind::kCheck;
  std::string pattern;  ///< the text after `// LLVM...: `
  int line = 0;         ///< 1-based line of the check in its file
};

/// The check lines of a test file, in order; a malformed one is reported in `error` as
/// "LINE: message" (an LLVM-NEXT with nothing before it).
std::vector<LlvmCheck> ParseLlvmChecks(const std::string& file_text, std::string& error);

/// Matches `checks` against `ir`. Returns "" when every check holds; otherwise what failed, as
/// lines naming `file`: the check, where the search started, the variables bound so far and the
/// IR around that place.
std::string MatchLlvmChecks(const std::vector<LlvmCheck>& checks, const std::string& ir,
                            const std::string& file);

}  // namespace uringc::testing
