// sema/bounds.cpp: index and slice verdicts from the interval analysis.
#include <gtest/gtest.h>

#include "compile_helper.h"

namespace uringc::testing {
namespace {

// The bounds verdict of the first slice (or index) in statement `i` of the graph.
ast::Bounds SliceVerdict(const Compiled& r, size_t i) {
  const ast::Stmt& s = *FirstGraph(r)->body->stmts.at(i);
  const ast::Expr* e = nullptr;
  if (auto* x = s.As<ast::ExprStmt>()) e = x->expr.get();
  if (auto* p = e ? e->As<ast::PropagateExpr>() : nullptr) e = p->operand.get();
  auto* call = e ? e->As<ast::CallExpr>() : nullptr;
  if (!call) return ast::Bounds::kUnchecked;
  const ast::Expr& arg = *call->args.at(1);
  if (auto* sl = arg.As<ast::SliceExpr>()) return sl->bounds;
  if (auto* ix = arg.As<ast::IndexExpr>()) return ix->bounds;
  return ast::Bounds::kUnchecked;
}

const char* kHead = "graph g(f: fd, k: u32, buf: buffers[4] of 1 KiB) {\n";

TEST(Bounds, RequestResultsBoundLaterSlices) {
  auto r = Compile(std::string(kHead) + " let n = recv(f, buf[1])?\n send(f, buf[1][..n])?\n}\n",
                   "bounds");
  ASSERT_TRUE(r.kinds.empty());
  EXPECT_EQ(SliceVerdict(r, 1), ast::Bounds::kProven);
}

TEST(Bounds, UnknownLengthsAreClampedAtRunTime) {
  auto r = Compile(std::string(kHead) + " send(f, buf[1][..k])?\n send(f, buf[k])?\n"
                   " send(f, buf[2][..min(k, 100)])?\n}\n", "bounds");
  ASSERT_TRUE(r.kinds.empty());
  EXPECT_EQ(SliceVerdict(r, 0), ast::Bounds::kRuntime);
  EXPECT_EQ(SliceVerdict(r, 1), ast::Bounds::kRuntime);
  EXPECT_EQ(SliceVerdict(r, 2), ast::Bounds::kProven);
}

TEST(Bounds, ProvableOverrunsAreErrors) {
  auto r = Compile(std::string(kHead) + " send(f, buf[0][..1025])?\n send(f, buf[7])?\n"
                   " let n = recv(f, buf[0])?\n send(f, buf[0][..n + 1025])?\n"
                   " send(f, buf[0][..n + 1023])?\n}\n", "bounds");
  EXPECT_EQ(r.diags, (std::vector<std::string>{"error BufferOverrun@2:19",
                                               "error BufferIndexOutOfRange@3:14",
                                               "error BufferOverrun@5:19"}));
}

TEST(Bounds, TaskIndicesAreProvenInRange) {
  auto r = Compile(std::string(kHead) + " parallel c in 0..4 { send(f, buf[c])? }\n"
                   " parallel d in 0..5 { send(f, buf[d])? }\n}\n", "bounds");
  ASSERT_TRUE(r.kinds.empty());
  auto* p0 = FirstGraph(r)->body->stmts[0]->As<ast::ParallelStmt>();
  auto* p1 = FirstGraph(r)->body->stmts[1]->As<ast::ParallelStmt>();
  auto index_of = [](const ast::ParallelStmt* p) {
    auto* e = p->body->stmts[0]->As<ast::ExprStmt>()->expr->As<ast::PropagateExpr>();
    return e->operand->As<ast::CallExpr>()->args[1]->As<ast::IndexExpr>()->bounds;
  };
  EXPECT_EQ(index_of(p0), ast::Bounds::kProven);
  EXPECT_EQ(index_of(p1), ast::Bounds::kRuntime);
}

}  // namespace
}  // namespace uringc::testing
