// The `// LLVM:` matcher of the file-driven tests (llvm_check.h): order, NEXT, NOT, regexes,
// variables, and what a failure says.
#include "llvm_check.h"

#include <gtest/gtest.h>

namespace uringc::testing {
namespace {

const char* kIr =
    "entry:\n"
    "  %sqe_off = shl i64 %3, 6\n"
    "  %4 = getelementptr inbounds i8, ptr %sqes, i64 %sqe_off\n"
    "  store i8 22, ptr %4, align 8\n"
    "  %5 = getelementptr inbounds i8, ptr %4, i64 1\n"
    "  store i8 4, ptr %5, align 1\n"
    "  store i8 15, ptr %9, align 8\n";

std::string Match(const std::string& file_text) {
  std::string error;
  std::vector<LlvmCheck> checks = ParseLlvmChecks(file_text, error);
  if (!error.empty()) return "parse: " + error;
  return MatchLlvmChecks(checks, kIr, "t.uring");
}

TEST(LlvmCheck, OrderedSubsetBySubstring) {
  EXPECT_EQ(Match("// LLVM: store i8 22\n// LLVM: store i8 15\n"), "");
  std::string r = Match("// LLVM: store i8 15\n// LLVM: store i8 22\n");
  EXPECT_NE(r.find("t.uring:2: `// LLVM: store i8 22` matches no IR line after IR line 7"),
            std::string::npos) << r;
  EXPECT_NE(r.find("it matches IR line 4, before the search started"), std::string::npos) << r;
}

TEST(LlvmCheck, NextIsTheFollowingLine) {
  EXPECT_EQ(Match("// LLVM: store i8 22\n// LLVM-NEXT: i64 1\n// LLVM-NEXT: store i8 4\n"), "");
  std::string r = Match("// LLVM: store i8 22\n// LLVM-NEXT: store i8 4\n");
  EXPECT_NE(r.find("t.uring:2: `// LLVM-NEXT: store i8 4` does not match IR line 5"),
            std::string::npos) << r;
  EXPECT_NE(r.find("  > 5 |   %5 = getelementptr"), std::string::npos) << r;
  EXPECT_NE(Match("// LLVM-NEXT: store\n").find("needs an `// LLVM:` or"), std::string::npos);
  EXPECT_NE(Match("// LLVM: store\n// LLVM-NOT: x\n// LLVM-NEXT: store\n").find("right before"),
            std::string::npos);
}

TEST(LlvmCheck, NextLinesMatchWithTheirCheckAsAGroup) {
  // The first getelementptr is followed by `store i8 22`, the second by `store i8 4`.
  EXPECT_EQ(Match("// LLVM: getelementptr\n// LLVM-NEXT: store i8 4\n"), "");
  EXPECT_EQ(Match("// LLVM: %[[P:[0-9]+]] = getelementptr\n"
                  "// LLVM-NEXT: store i8 4, ptr %[[P]]\n"
                  "// LLVM-NEXT: store i8 15\n"),
            "");
  // No place has all three: the report names the line that failed where the group got farthest.
  std::string r = Match("// LLVM: getelementptr\n// LLVM-NEXT: store i8 4\n// LLVM-NEXT: ret\n");
  EXPECT_NE(r.find("t.uring:3: `// LLVM-NEXT: ret` does not match IR line 7"), std::string::npos)
      << r;
}

TEST(LlvmCheck, NotBetweenMatches) {
  EXPECT_EQ(Match("// LLVM: store i8 22\n// LLVM-NOT: store i8 15\n// LLVM: store i8 4\n"), "");
  std::string r = Match("// LLVM: store i8 22\n// LLVM-NOT: i64 1\n// LLVM: store i8 4\n");
  EXPECT_NE(r.find("t.uring:2: `// LLVM-NOT: i64 1` matches IR line 5"), std::string::npos) << r;
  // Up to the end when nothing follows.
  EXPECT_NE(Match("// LLVM: store i8 4\n// LLVM-NOT: store i8 15\n").find("end of the IR"),
            std::string::npos);
}

TEST(LlvmCheck, RegexAndVariables) {
  EXPECT_EQ(Match("// LLVM: %[[SQE:[0-9]+]] = getelementptr inbounds i8, ptr %sqes\n"
                  "// LLVM-NEXT: store i8 {{2[0-9]}}, ptr %[[SQE]], align 8\n"
                  "// LLVM-NEXT: getelementptr inbounds i8, ptr %[[SQE]], i64 1\n"),
            "");
  // The variable holds the bound text: %4, not any number.
  std::string r = Match("// LLVM: %[[SQE:[0-9]+]] = getelementptr\n"
                        "// LLVM: store i8 15, ptr %[[SQE]]\n");
  EXPECT_NE(r.find("variables: SQE=4"), std::string::npos) << r;
  // Bound and used on one line: a backreference.
  EXPECT_EQ(Match("// LLVM: %[[P:[0-9]+]] = getelementptr inbounds i8, ptr %[[Q:[0-9]+]]\n"
                  "// LLVM-NEXT: store i8 4, ptr %[[P]]\n"),
            "");
  EXPECT_NE(Match("// LLVM: %[[X]] = shl\n").find("used before a check binds it"),
            std::string::npos);
  // Literal text is not a regex.
  EXPECT_NE(Match("// LLVM: store i8 2.\n"), "");
}

TEST(LlvmCheck, EmptyPattern) {
  std::string error;
  ParseLlvmChecks("// LLVM:   \n", error);
  EXPECT_NE(error.find("1: `// LLVM:` with an empty pattern"), std::string::npos) << error;
}

}  // namespace
}  // namespace uringc::testing
