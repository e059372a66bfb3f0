// The diagnostic formatter: clang-style text with a caret range, notes, and JSON.
#include "uringc/diag/formatter.h"

#include <gtest/gtest.h>

#include <cctype>

namespace uringc {
namespace {

TEST(Formatter, TextHasLocationKindLineAndRange) {
  SourceManager sm;
  uint32_t f = sm.Add("copy.uring", "graph g() {\n    write(dst, buf, n + 1, off)\n}\n");
  DiagnosticList diags;
  Diagnostic& d =
      diags.Error(DiagKind::kBufferOverrun, {f, 32, 37}, "`write` length can exceed `buf`");
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
  diags.Warning(DiagKind::kUnusedVariable, {f, 1, 2}, "`x` is never used");
  EXPECT_EQ(FormatText(diags.items()[0], sm),
            "t.uring:1:2: warning: `x` is never used [UnusedVariable]\n\tx = 1\n\t^\n");
  EXPECT_FALSE(diags.HasErrors());
}

TEST(Formatter, RangePastTheEndOfFileStaysOnTheLastLine) {
  SourceManager sm;
  uint32_t f = sm.Add("e.uring", "graph g(");
  DiagnosticList diags;
  diags.Error(DiagKind::kSyntaxError, {f, 8, 8}, "expected `)`");
  EXPECT_EQ(FormatText(diags.items()[0], sm),
            "e.uring:1:9: error: expected `)` [SyntaxError]\ngraph g(\n        ^\n");
}

TEST(Formatter, JsonEscapesAndCarriesEveryField) {
  SourceManager sm;
  uint32_t f = sm.Add("a\"b.uring", "x\n");
  DiagnosticList diags;
  diags.Error(DiagKind::kSyntaxError, {f, 0, 1}, "say \"hi\"\n");
  EXPECT_EQ(FormatJson(diags.items(), sm),
            "[\n{\"file\":\"a\\\"b.uring\",\"line\":1,\"column\":1,\"end_line\":1,"
            "\"end_column\":2,\"severity\":\"error\",\"kind\":\"SyntaxError\",\"message\":"
            "\"say \\\"hi\\\"\\n\",\"notes\":[]}\n]\n");
  EXPECT_EQ(FormatJson({}, sm), "[]\n");
}

// Terminal safety (issue 10): a source line with ESC or BEL must not reach the terminal raw; the
// marker stays under the same characters as shown.
TEST(Formatter, ControlBytesAreEscapedAndTheMarkerFollows) {
  SourceManager sm;
  uint32_t f = sm.Add("c.uring", "x\x1b[2J\a = 1\n");
  DiagnosticList diags;
  diags.Error(DiagKind::kSyntaxError, {f, 7, 8},
              "unexpected `=`");  // after ESC [ 2 J BEL and a space
  EXPECT_EQ(FormatText(diags.items()[0], sm),
            "c.uring:1:8: error: unexpected `=` [SyntaxError]\n"
            "x<U+001B>[2J<U+0007> = 1\n"
            "                     ^\n");
  diags.Error(DiagKind::kSyntaxError, {f, 1, 3}, "a range over the ESC and `[`");
  EXPECT_EQ(FormatText(diags.items()[1], sm),
            "c.uring:1:2: error: a range over the ESC and `[` [SyntaxError]\n"
            "x<U+001B>[2J<U+0007> = 1\n"
            " ^~~~~~~~~\n");
}

TEST(Formatter, MessagesFileNamesAndInvalidUtf8AreEscaped) {
  SourceManager sm;
  // A comment with valid UTF-8 (one column per character), a C1 control (U+009B, CSI on some
  // terminals), a bidi override (U+202E) and a byte that is not UTF-8.
  uint32_t f = sm.Add("a\x1b.uring", "// \xc3\xa9\xc2\x9b\xe2\x80\xae\xff\nx\n");
  DiagnosticList diags;
  diags.Error(DiagKind::kSyntaxError, {f, 10, 11}, "bell \a, line\nbreak");  // the 0xff byte
  EXPECT_EQ(FormatText(diags.items()[0], sm),
            "a<U+001B>.uring:1:11: error: bell <U+0007>, line\nbreak [SyntaxError]\n"
            "// \xc3\xa9<U+009B><U+202E><FF>\n"
            "                    ^~~~\n");
  EXPECT_EQ(EscapeForTerminal("tab\tok, \xe2\x82\xac ok, \x7f, \xc0\xaf"),
            "tab\tok, \xe2\x82\xac ok, <U+007F>, <C0><AF>");
}

TEST(Formatter, JsonStaysValidUtf8AndEscapesControls) {
  SourceManager sm;
  uint32_t f = sm.Add("b\xff.uring", "x\n");
  DiagnosticList diags;
  diags.Error(DiagKind::kSyntaxError, {f, 0, 1},
              "esc \x1b del \x7f csi \xc2\x9b euro \xe2\x82\xac bad \xfe");
  EXPECT_EQ(FormatJson(diags.items(), sm),
            "[\n{\"file\":\"b\\ufffd.uring\",\"line\":1,\"column\":1,\"end_line\":1,"
            "\"end_column\":2,\"severity\":\"error\",\"kind\":\"SyntaxError\",\"message\":"
            "\"esc \\u001b del \\u007f csi \\u009b euro \\u20ac bad \\ufffd\",\"notes\":[]}\n]\n");
}

// The list keeps `limit` errors, then one TooManyErrors for the rest, and `limit` warnings, then
// one TooManyWarnings note; the counts include what was left out.
TEST(DiagnosticList, KeepsAtMostTheLimitAndCountsTheRest) {
  DiagnosticList diags;
  diags.set_limit(3);
  for (int i = 0; i < 1000; ++i) {
    diags.Error(DiagKind::kTypeMismatch, {}, "e").notes.push_back({{}, "note"});
    diags.Warning(DiagKind::kUnusedVariable, {}, "w");
  }
  EXPECT_EQ(diags.ErrorCount(), 1000u);
  EXPECT_EQ(diags.WarningCount(), 1000u);
  EXPECT_TRUE(diags.HasErrors());
  std::string kinds;
  for (const Diagnostic& d : diags.items()) kinds += std::string(DiagKindName(d.kind)) + " ";
  EXPECT_EQ(kinds,
            "TypeMismatch UnusedVariable TypeMismatch UnusedVariable TypeMismatch UnusedVariable "
            "TooManyErrors TooManyWarnings ");
  EXPECT_EQ(diags.items()[6].severity, Severity::kError);
  EXPECT_EQ(diags.items()[7].severity, Severity::kNote);
  EXPECT_EQ(diags.items()[7].kind, DiagKind::kTooManyWarnings);

  DiagnosticList all;
  all.set_limit(0);
  for (int i = 0; i < 1000; ++i) all.Error(DiagKind::kTypeMismatch, {}, "e");
  EXPECT_EQ(all.items().size(), 1000u);
  DiagnosticList by_default;
  for (int i = 0; i < 1000; ++i) by_default.Error(DiagKind::kTypeMismatch, {}, "e");
  EXPECT_EQ(by_default.items().size(), DiagnosticList::kDefaultLimit + 1);
}

// The registry (diag/kinds.def): every kind has one UpperCamelCase name that finds it again, and
// a summary; the enum and the table agree.
TEST(DiagKinds, NamesAreUniqueStableAndFindTheirKind) {
  size_t i = 0;
  for (const DiagKindInfo& k : AllDiagKinds()) {
    EXPECT_EQ(static_cast<size_t>(k.kind), i++);
    EXPECT_EQ(DiagKindName(k.kind), k.name);
    EXPECT_EQ(FindDiagKind(k.name), k.kind) << k.name;
    EXPECT_TRUE(!k.name.empty() && std::isupper(static_cast<unsigned char>(k.name[0]))) << k.name;
    EXPECT_EQ(
        k.name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"),
        std::string_view::npos)
        << k.name;
    EXPECT_FALSE(k.summary.empty()) << k.name;
  }
  EXPECT_EQ(DiagKindName(DiagKind::kBufferOverrun), "BufferOverrun");
  EXPECT_EQ(FindDiagKind("NoSuchKind"), std::nullopt);
}

}  // namespace
}  // namespace uringc
