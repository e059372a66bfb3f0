// sema/resolve.cpp: scopes, shadowing, lookup order and placement of break/continue/return.
#include <gtest/gtest.h>

#include "compile_helper.h"

namespace uringc::testing {
namespace {

TEST(Resolve, NamesBindToTheirDeclarations) {
  auto r = Compile("const K = 2\ngraph g(n: u32) -> (o: u32) {\n let a = n\n o = a + K\n}\n", "resolve");
  ASSERT_TRUE(r.kinds.empty());
  const ast::GraphDecl* g = FirstGraph(r);
  auto* assign = g->body->stmts[1]->As<ast::AssignStmt>();
  auto* sum = assign->value->As<ast::BinaryExpr>();
  auto* a = sum->lhs->As<ast::NameExpr>();
  EXPECT_EQ(a->resolved.kind, ast::Resolution::Kind::kBinding);
  EXPECT_EQ(a->resolved.binding, g->body->stmts[0]->As<ast::DeclStmt>()->binding.get());
  EXPECT_EQ(sum->rhs->As<ast::NameExpr>()->resolved.kind, ast::Resolution::Kind::kConst);
  EXPECT_EQ(assign->target->As<ast::NameExpr>()->resolved.binding, g->outputs[0].get());
}

TEST(Resolve, InnerBlocksShadowAndSameBlockRedefines) {
  auto r = Compile("graph g(n: u32) -> (o: u32) {\n let a = n\n { let a = 2\n o = a }\n let a = 3\n}\n",
                   "resolve");
  ASSERT_EQ(r.diags.size(), 1u);
  EXPECT_EQ(r.diags[0], "error Redefinition@5:6");
}

TEST(Resolve, LetInitializerSeesTheOuterName) {
  auto r = Compile("graph g(n: u32) -> (o: u32) {\n { let n = n + 1\n o = n }\n}\n", "resolve");
  EXPECT_TRUE(r.kinds.empty());
}

TEST(Resolve, CalleesResolveToRequestsFnsBuiltinsAndCasts) {
  auto r = Compile("fn f() -> i32 { return 0 }\ngraph g(n: u32) -> (o: u64) {\n f()?\n nop()?\n"
                   " o = u64(min(n, 3))\n}\n", "resolve");
  ASSERT_TRUE(r.kinds.empty());
  const ast::GraphDecl* g = FirstGraph(r);
  auto call_of = [&](int i) {
    return g->body->stmts[i]->As<ast::ExprStmt>()->expr->As<ast::PropagateExpr>()->operand->As<ast::CallExpr>();
  };
  EXPECT_EQ(call_of(0)->resolved.kind, ast::Resolution::Kind::kFn);
  EXPECT_EQ(call_of(1)->resolved.kind, ast::Resolution::Kind::kRequest);
  auto* cast = g->body->stmts[2]->As<ast::AssignStmt>()->value->As<ast::CallExpr>();
  EXPECT_EQ(cast->resolved.kind, ast::Resolution::Kind::kTypeCast);
  EXPECT_EQ(cast->args[0]->As<ast::CallExpr>()->resolved.kind, ast::Resolution::Kind::kBuiltinFn);
}

TEST(Resolve, BreakCannotLeaveATask) {
  auto r = Compile("graph g() {\n loop {\n  nop()\n  parallel i in 0..2 { break }\n }\n}\n", "resolve");
  ASSERT_EQ(r.diags.size(), 1u);
  EXPECT_EQ(r.diags[0], "error BreakOutsideLoop@4:24");
}

TEST(Resolve, UndefinedNamesAndNonCallables) {
  auto r = Compile("const C = 1\ngraph g(v: u32) {\n nop(w)\n v()\n C()\n zz()\n}\n", "resolve");
  EXPECT_EQ(r.kinds, (std::vector<std::string>{"UndefinedName", "NotCallable", "NotCallable",
                                               "UndefinedName"}));
}

}  // namespace
}  // namespace uringc::testing
