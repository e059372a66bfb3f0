// sema/loops.cpp: a loop must await a request on every iteration or have a constant bound.
#include <gtest/gtest.h>

#include "compile_helper.h"

namespace uringc::testing {
namespace {

std::vector<std::string> Loops(const std::string& body) {
  return Compile("fn io() -> i32 { return nop() }\nfn pure() -> i32 { return 1 }\n"
                 "graph g(n: u32, f: fd, buf: buffers[1] of 8) -> (o: u64) {\n" + body + "\n}\n",
                 "loops").kinds;
}

TEST(Loops, RequestsOnEveryIterationAllowUnboundedLoops) {
  EXPECT_TRUE(Loops("loop { nop()? }").empty());
  EXPECT_TRUE(Loops("while o < 10 { o += u64(read(f, buf[0])?) }").empty());
  EXPECT_TRUE(Loops("loop { io()? }").empty());
  EXPECT_TRUE(Loops("loop { if o > 3 { break }\n nop() }").empty());
  EXPECT_TRUE(Loops("loop { all { nop(); nop() } }").empty());
}

TEST(Loops, ComputeLoopsNeedConstantBounds) {
  EXPECT_TRUE(Loops("repeat 10 { o += 1 }").empty());
  EXPECT_TRUE(Loops("for i in 0..10 { o += i }").empty());
  EXPECT_EQ(Loops("repeat n { o += 1 }"), std::vector<std::string>{"UnboundedLoop"});
  EXPECT_EQ(Loops("for i in 0..n { o += i }"), std::vector<std::string>{"UnboundedLoop"});
  EXPECT_EQ(Loops("while o < 5 { o += 1 }"), std::vector<std::string>{"UnboundedLoop"});
  EXPECT_EQ(Loops("loop { pure()? }"), std::vector<std::string>{"UnboundedLoop"});
}

TEST(Loops, APathWithoutARequestIsEnough) {
  EXPECT_EQ(Loops("loop { if o > 3 { o += 1\n continue }\n nop() }"),
            std::vector<std::string>{"UnboundedLoop"});
  EXPECT_EQ(Loops("loop { if o > 3 { nop() } }"), std::vector<std::string>{"UnboundedLoop"});
  EXPECT_TRUE(Loops("loop { if o > 3 { nop() } else { sleep(1 ms) } }").empty());
}

TEST(Loops, HasRequestIsRecorded) {
  auto r = Compile("graph g(n: u32) -> (o: u32) {\n repeat n { nop() }\n repeat 3 { o += 1 }\n}\n",
                   "loops");
  ASSERT_TRUE(r.kinds.empty());
  auto* g = FirstGraph(r);
  EXPECT_TRUE(g->body->stmts[0]->As<ast::RepeatStmt>()->has_request);
  EXPECT_FALSE(g->body->stmts[1]->As<ast::RepeatStmt>()->has_request);
}

}  // namespace
}  // namespace uringc::testing
