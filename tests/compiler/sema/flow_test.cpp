// sema/flow.cpp: reachability, definite assignment and unused variables.
#include <gtest/gtest.h>

#include "compile_helper.h"

namespace uringc::testing {
namespace {

std::vector<std::string> Flow(const std::string& body) {
  return Compile("graph g(n: u32) -> (o: u32) {\n" + body + "\n}\n", "flow").diags;
}

TEST(Flow, AssignedOnEveryPathIsInitialized) {
  EXPECT_TRUE(Flow("var x: u32\nif n > 1 { x = 1 } else { x = 2 }\no = x").empty());
  EXPECT_TRUE(Flow("var x: u32\nif n > 1 { x = 1 } else { fail EIO }\no = x").empty());
  EXPECT_EQ(Flow("var x: u32\nif n > 1 { x = 1 }\no = x"),
            std::vector<std::string>{"error UninitializedVariable@4:5"});
  EXPECT_EQ(Flow("var x: u32\nrepeat 3 { x = 1 }\no = x"),
            std::vector<std::string>{"error UninitializedVariable@4:5"});
  EXPECT_TRUE(Flow("var x: u32\nall { x = 1; nop() }\no = x").empty());
}

TEST(Flow, CodeAfterALeavingStatementIsUnreachable) {
  EXPECT_EQ(Flow("stop\no = 1"), std::vector<std::string>{"warning UnreachableCode@3:1"});
  EXPECT_EQ(Flow("loop { nop() }\no = 1"), std::vector<std::string>{"warning UnreachableCode@3:1"});
  EXPECT_TRUE(Flow("loop { nop()\n break }\no = 1").empty());
  EXPECT_EQ(Flow("if n > 0 { fail EIO } else { return }\no = 1"),
            std::vector<std::string>{"warning UnreachableCode@3:1"});
  auto r = Compile("graph g() -> (o: u32) {\n stop\n o = 1\n}\n", "flow");
  EXPECT_FALSE(FirstGraph(r)->body->stmts[1]->reachable);
}

TEST(Flow, UnusedVariablesAreWarnedUnlessUnderscored) {
  EXPECT_EQ(Flow("let a = 1\nlet _b = 2\nvar c = 3\nc = 4"),
            (std::vector<std::string>{"warning UnusedVariable@2:5",
                                      "warning UnusedVariable@4:5"}));
}

TEST(Flow, WithinElseActionsAreAPath) {
  EXPECT_TRUE(Flow("var x: u32\n{ nop()\n x = 1 } within 1 s else { x = 2 }\no = x").empty());
  EXPECT_EQ(Flow("var x: u32\n{ nop()\n x = 1 } within 1 s else { nop() }\no = x"),
            std::vector<std::string>{"error UninitializedVariable@5:5"});
}

}  // namespace
}  // namespace uringc::testing
