// sema/calls.cpp: recursion through user fns, and which fns await requests.
#include <gtest/gtest.h>

#include "compile_helper.h"

namespace uringc::testing {
namespace {

const ast::FnDecl* Fn(const Compiled& r, const std::string& name) {
  for (auto& d : r.c->program.root().ast->decls)
    if (auto* f = d->As<ast::FnDecl>(); f && f->name == name) return f;
  return nullptr;
}

TEST(Calls, HasRequestPropagatesThroughCallers) {
  auto r = Compile("fn leaf() -> i32 { return nop() }\nfn mid() -> i32 { return leaf() }\n"
                   "fn pure(a: i32) -> i32 { return a + 1 }\ngraph g() { mid()? }\n", "calls");
  ASSERT_TRUE(r.kinds.empty());
  EXPECT_TRUE(Fn(r, "leaf")->has_request);
  EXPECT_TRUE(Fn(r, "mid")->has_request);
  EXPECT_FALSE(Fn(r, "pure")->has_request);
}

TEST(Calls, DirectAndMutualRecursionAreErrors) {
  auto r = Compile("fn a() -> i32 { return b() }\nfn b() -> i32 { return a() }\n"
                   "fn c() -> i32 { return c() }\ngraph g() { a()? }\n", "calls");
  EXPECT_EQ(r.Count("RecursiveFunction"), 2);
}

TEST(Calls, LongCallChainsAreNotRecursion) {
  std::string text = "fn f0() -> i32 { return nop() }\n";
  for (int i = 1; i < 3000; ++i)
    text += "fn f" + std::to_string(i) + "() -> i32 { return f" + std::to_string(i - 1) + "() }\n";
  text += "graph g() { f2999()? }\n";
  auto r = Compile(text, "calls");
  EXPECT_TRUE(r.kinds.empty());
  EXPECT_TRUE(Fn(r, "f2999")->has_request);
}

}  // namespace
}  // namespace uringc::testing
