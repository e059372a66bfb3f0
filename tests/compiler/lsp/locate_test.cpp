// Tests of ast::Locate (compiler/ast/locate.cpp): which identifier is found at an offset, on a
// checked program and on the partial AST of a file with a syntax error.
#include "ast/locate.h"

#include <gtest/gtest.h>

#include "lsp/analysis.h"

namespace uringc {
namespace {

constexpr const char* kProgram =
    "const N = 4\n"
    "fn twice(f: fd, b: bytes) -> i32 {\n"
    "    let n = read(f, b)?\n"
    "    return n\n"
    "}\n"
    "graph g(f: fd, buf: buffers[N] of 64) -> (total: u32) {\n"
    "    any {\n"
    "        read(f, buf[0]) as got => { total = u32(max(got, 0)) }\n"
    "    }\n"
    "}\n";

uint32_t OffsetOf(const std::string& text, const std::string& needle, size_t nth = 0) {
  size_t at = text.find(needle);
  while (nth-- > 0) at = text.find(needle, at + 1);
  EXPECT_NE(at, std::string::npos) << needle;
  return static_cast<uint32_t>(at);
}

struct Fixture {
  std::string text;
  std::unique_ptr<lsp::Analysis> a;
  explicit Fixture(std::string t) : text(std::move(t)) {
    a = lsp::Analyze("/nonexistent/locate_test.uring", text, URINGC_TEST_STDLIB);
  }
  ast::Located At(uint32_t offset) const { return ast::Locate(*a->root_ast(), offset); }
};

TEST(LocateTest, FindsAParameterWhereItIsDeclared) {
  Fixture f(kProgram);
  ASSERT_TRUE(f.a->checked);
  const ast::Located at = f.At(OffsetOf(f.text, "b: bytes"));
  ASSERT_EQ(at.kind, ast::Located::Kind::kBinding);
  EXPECT_EQ(at.binding->name, "b");
  EXPECT_EQ(at.binding->kind, ast::Binding::Kind::kParam);
}

TEST(LocateTest, FindsAUseAndItsResolvedBinding) {
  Fixture f(kProgram);
  // `return n`: the cursor inside the `n`.
  const ast::Located at = f.At(OffsetOf(f.text, "return n") + 7);
  ASSERT_EQ(at.kind, ast::Located::Kind::kName);
  EXPECT_EQ(at.name->name, "n");
  ASSERT_EQ(at.name->resolved.kind, ast::Resolution::Kind::kBinding);
  EXPECT_EQ(at.name->resolved.binding->kind, ast::Binding::Kind::kLet);
  EXPECT_EQ(at.name->resolved.binding->type.ToString(), "u32") << "`?` leaves the non-negative";
}

TEST(LocateTest, FindsTheEndOfAWordAndTheNarrowestNode) {
  Fixture f(kProgram);
  // Just after `got` in `max(got, 0)`: the name, not the call around it.
  const ast::Located at = f.At(OffsetOf(f.text, "got, 0") + 3);
  ASSERT_EQ(at.kind, ast::Located::Kind::kName);
  EXPECT_EQ(at.name->name, "got");
  EXPECT_EQ(at.name->resolved.binding->kind, ast::Binding::Kind::kArm);
}

TEST(LocateTest, FindsCalleesAndDeclarationNames) {
  Fixture f(kProgram);
  const ast::Located call = f.At(OffsetOf(f.text, "read(f, b)") + 1);
  ASSERT_EQ(call.kind, ast::Located::Kind::kCallee);
  EXPECT_EQ(call.call->callee, "read");
  EXPECT_EQ(call.call->resolved.kind, ast::Resolution::Kind::kRequest);
  const ast::Located decl = f.At(OffsetOf(f.text, "twice"));
  ASSERT_EQ(decl.kind, ast::Located::Kind::kDecl);
  EXPECT_EQ(decl.decl->name, "twice");
  // A constant used in a parameter's type.
  const ast::Located use = f.At(OffsetOf(f.text, "[N]") + 1);
  ASSERT_EQ(use.kind, ast::Located::Kind::kName);
  EXPECT_EQ(use.name->resolved.kind, ast::Resolution::Kind::kConst);
}

TEST(LocateTest, FindsNothingBetweenTokens) {
  Fixture f(kProgram);
  EXPECT_EQ(f.At(OffsetOf(f.text, "    let") + 1).kind, ast::Located::Kind::kNone);
}

TEST(LocateTest, WorksOnTheRepairedTreeOfAFileWithASyntaxError) {
  Fixture f("fn helper(x: u32) -> i32 {\n    return i32(x)\n}\ngraph g() {\n    let = 3\n}\n");
  ASSERT_NE(f.a->repaired, nullptr) << "the broken graph is blanked out, the fn kept";
  EXPECT_TRUE(f.a->checked);
  EXPECT_TRUE(f.a->compilation.diagnostics.HasErrors());
  ASSERT_NE(f.a->root_ast(), nullptr);
  const ast::Located at = f.At(OffsetOf(f.text, "helper") + 2);
  ASSERT_EQ(at.kind, ast::Located::Kind::kDecl);
  EXPECT_EQ(at.decl->name, "helper");
  const ast::Located param = f.At(OffsetOf(f.text, "x: u32"));
  ASSERT_EQ(param.kind, ast::Located::Kind::kBinding);
  EXPECT_EQ(param.binding->name, "x");
  EXPECT_EQ(param.binding->type.ToString(), "u32");
  // Anywhere in the file, including the broken statement, the walk does not crash.
  for (uint32_t i = 0; i <= f.text.size(); ++i) f.At(i);
}

}  // namespace
}  // namespace uringc
