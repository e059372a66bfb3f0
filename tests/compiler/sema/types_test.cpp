// sema/types.cpp and types_expr.cpp: literal typing, conversions, constant folding, request
// signatures, `?`, durations and sizes.
#include <gtest/gtest.h>

#include "compile_helper.h"
#include "sema/type_rules.h"

namespace uringc::testing {
namespace {

const ast::Expr& InitOf(const Compiled& r, size_t i) {
  return *FirstGraph(r)->body->stmts.at(i)->As<ast::DeclStmt>()->init;
}

TEST(Types, LiteralsDefaultToU64AndAdaptToContext) {
  auto r = Compile("graph g() -> (o: u8) {\n let a = 5\n let b = -5\n o = 200\n}\n", "types");
  ASSERT_TRUE(r.kinds.empty());
  auto* g = FirstGraph(r);
  EXPECT_EQ(g->body->stmts[0]->As<ast::DeclStmt>()->binding->type, Type::Int(64, false));
  EXPECT_EQ(g->body->stmts[1]->As<ast::DeclStmt>()->binding->type, Type::Int(64, true));
  EXPECT_EQ(Compile("graph g() -> (o: u8) { o = 256 }\n", "types").kinds,
            std::vector<std::string>{"LiteralOutOfRange"});
}

TEST(Types, ConstantsFoldWithUnits) {
  auto r = Compile("const C = 4 * 64 KiB\ngraph g() {\n let d = 1 s + 500 ms\n let c = C\n}\n", "types");
  ASSERT_TRUE(r.kinds.empty());
  EXPECT_EQ(InitOf(r, 0).type, Type::Duration());
  EXPECT_EQ(InitOf(r, 0).constant->bits, 1500000000u);
  EXPECT_EQ(InitOf(r, 1).constant->bits, 262144u);
}

TEST(Types, ImplicitConversionsOnlyWiden) {
  EXPECT_TRUE(sema::ImplicitIntOk(Type::Int(32, false), Type::Int(64, false)));
  EXPECT_TRUE(sema::ImplicitIntOk(Type::Int(32, false), Type::Int(64, true)));
  EXPECT_FALSE(sema::ImplicitIntOk(Type::Int(32, true), Type::Int(64, false)));
  EXPECT_FALSE(sema::ImplicitIntOk(Type::Int(64, false), Type::Int(32, false)));
  EXPECT_FALSE(sema::ImplicitIntOk(Type::Int(32, false), Type::Int(32, true)));
  auto r = Compile("graph g(a: u32, b: i32) -> (o: u64) {\n o = a\n o = b\n o = u64(b)\n}\n", "types");
  EXPECT_EQ(r.diags, std::vector<std::string>{"error TypeMismatch@3:6"});
}

TEST(Types, TypedConstantsWrapAtTheirWidth) {
  auto r = Compile("const A: u8 = 200\ngraph g() {\n let b = A + 100\n let c = 200 + 100\n}\n",
                   "types");
  ASSERT_TRUE(r.kinds.empty());
  ASSERT_TRUE(InitOf(r, 0).constant.has_value());
  EXPECT_EQ(InitOf(r, 0).type, Type::Int(8, false));
  EXPECT_EQ(InitOf(r, 0).constant->bits, 44u);  // (200 + 100) mod 256
  EXPECT_EQ(InitOf(r, 1).constant->bits, 300u);  // untyped literals fold exactly
}

TEST(Types, RequestSignaturesAndResults) {
  auto r = Compile("graph g(f: fd, l: fd, buf: buffers[1] of 64) {\n"
                   " let n = read(f, buf[0])\n let s = accept(l)?\n let m = read(f, buf[0], 0)?\n"
                   " close(s)\n}\n", "types");
  ASSERT_TRUE(r.kinds.empty()) << r.diags[0];
  EXPECT_EQ(InitOf(r, 0).type, Type::Int(32, true));
  EXPECT_EQ(InitOf(r, 1).type, Type::Fd());
  EXPECT_EQ(InitOf(r, 2).type, Type::Int(32, false));  // `?` removes the error range
  auto bad = Compile("graph g(f: fd) {\n read(f)\n write(1, 2, 3)\n sleep(5)\n}\n", "types");
  EXPECT_EQ(bad.kinds, (std::vector<std::string>{"BadArguments", "TypeMismatch", "TypeMismatch",
                                                 "TypeMismatch"}));
}

TEST(Types, PropagateNeedsAResult) {
  auto r = Compile("graph g(n: u32) {\n let a = n?\n}\n", "types");
  EXPECT_EQ(r.kinds, std::vector<std::string>{"TypeMismatch"});
}

TEST(Types, FnSignaturesAreChecked) {
  auto r = Compile("fn f(a: u32) -> i64 { return i64(a) }\ngraph g() {\n let x = f(1)?\n f(1, 2)\n}\n",
                   "types");
  EXPECT_EQ(r.kinds, std::vector<std::string>{"BadArguments"});
  EXPECT_EQ(InitOf(r, 0).type, Type::Int(64, false));
}

TEST(Types, DurationsMixOnlyWithDurationsAndScalars) {
  auto r = Compile("graph g(d: duration) {\n let a = d * 2\n let b = d / 4\n let c = d + 1\n"
                   " sleep(d - 1 ms)\n}\n", "types");
  EXPECT_EQ(r.diags, std::vector<std::string>{"error TypeMismatch@4:10"});
}

}  // namespace
}  // namespace uringc::testing
