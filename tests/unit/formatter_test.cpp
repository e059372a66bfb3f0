// The diagnostic formatter: clang-style text with a caret range, notes, and JSON.
#include "diag/formatter.h"

#include <gtest/gtest.h>

namespace uringc {
namespace {

TEST(Formatter, TextHasLocationKindLineAndRange) {
  SourceManager sm;
  uint32_t f = sm.Add("copy.uring", "graph g() {\n    write(dst, buf, n + 1, off)\n}\n");
  DiagnosticList diags;
  Diagnostic& d = diags.Error("BufferOverrun", {f, 32, 37}, "`write` length can exceed `buf`");
  d.notes.push_back({{f, 0, 5}, "graph declared here"});
  EXPECT_EQ(FormatText(d, sm),
            "copy.uring:2:21: error: `write` length can exceed `buf` [BufferOverrun]\n"
            "    write(dst, buf, n + 1, off)\n"
            "                    ^~~~~\n"
            "copy.uring:1:1: note: graph declared here\n"
            "graph g() {\n"
            "^~~~~\n");
  EXPECT_TRUE(diags.HasErrors());
}

TEST(Formatter, TabsKeepTheMarkerAligned) {
  SourceManager sm;
  uint32_t f = sm.Add("t.uring", "\tx = 1\n");
  DiagnosticList diags;
  diags.Warning("UnusedVariable", {f, 1, 2}, "`x` is never used");
  EXPECT_EQ(FormatText(diags.items()[0], sm),
            "t.uring:1:2: warning: `x` is never used [UnusedVariable]\n\tx = 1\n\t^\n");
  EXPECT_FALSE(diags.HasErrors());
}

TEST(Formatter, RangePastTheEndOfFileStaysOnTheLastLine) {
  SourceManager sm;
  uint32_t f = sm.Add("e.uring", "graph g(");
  DiagnosticList diags;
  diags.Error("SyntaxError", {f, 8, 8}, "expected `)`");
  EXPECT_EQ(FormatText(diags.items()[0], sm),
            "e.uring:1:9: error: expected `)` [SyntaxError]\ngraph g(\n        ^\n");
}

TEST(Formatter, JsonEscapesAndCarriesEveryField) {
  SourceManager sm;
  uint32_t f = sm.Add("a\"b.uring", "x\n");
  DiagnosticList diags;
  diags.Error("K", {f, 0, 1}, "say \"hi\"\n");
  EXPECT_EQ(FormatJson(diags.items(), sm),
            "[\n{\"file\":\"a\\\"b.uring\",\"line\":1,\"column\":1,\"end_line\":1,"
            "\"end_column\":2,\"severity\":\"error\",\"kind\":\"K\",\"message\":"
            "\"say \\\"hi\\\"\\n\",\"notes\":[]}\n]\n");
  EXPECT_EQ(FormatJson({}, sm), "[]\n");
}

}  // namespace
}  // namespace uringc
