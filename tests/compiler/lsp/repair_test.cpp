// Tests of lsp::BlankBrokenDecls (compiler/lsp/repair.cpp): which top-level declarations of a
// file with a syntax error are kept, and that every byte offset stays put.
#include "lsp/repair.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace uringc::lsp {
namespace {

TEST(RepairTest, BlanksOnlyTheDeclarationsThatDoNotParse) {
  const std::string text =
      "// a comment\n"
      "const N = 4\n"
      "fn f(x: u32) -> i32 {\n    return i32(x +)\n}\n"
      "graph g(a: fd) {\n    close(a)\n}\n";
  const std::string repaired = BlankBrokenDecls(text, ParseOptions{});
  ASSERT_EQ(repaired.size(), text.size());
  EXPECT_NE(repaired.find("const N = 4\n"), std::string::npos);
  EXPECT_EQ(repaired.find("fn f"), std::string::npos);
  EXPECT_EQ(repaired.find("graph g(a: fd)"), text.find("graph g(a: fd)"));
  EXPECT_EQ(std::count(repaired.begin(), repaired.end(), '\n'),
            std::count(text.begin(), text.end(), '\n'));
}

TEST(RepairTest, GivesUpWhenNothingParses) {
  EXPECT_EQ(BlankBrokenDecls("graph g( {\n", ParseOptions{}), "");
  EXPECT_EQ(BlankBrokenDecls("let x = \n", ParseOptions{}), "") << "no declaration at all";
  const std::string text = "const A = 1\nconst B = \n";
  EXPECT_NE(BlankBrokenDecls(text, ParseOptions{}), "");
  EXPECT_EQ(BlankBrokenDecls(text, ParseOptions{}, /*max_bytes=*/2 * text.size() - 1), "")
      << "two parses of the whole text are over the budget";
}

}  // namespace
}  // namespace uringc::lsp
