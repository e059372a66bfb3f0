// build/ and rgir/: what each construct family becomes in rgir, the IR invariants on every
// example and stdlib module, the printer and the DOT export.
#include <gtest/gtest.h>

#include <dirent.h>

#include <fstream>
#include <sstream>

#include "compile_helper.h"
#include "rgir/dot.h"
#include "rgir/printer.h"

namespace uringc::testing {
namespace {

const rgir::Graph& Lowered(const Compiled& r) {
  EXPECT_TRUE(r.kinds.empty()) << (r.diags.empty() ? "" : r.diags[0]);
  EXPECT_NE(r.c->rgir, nullptr);
  return r.c->rgir->graphs.at(0);
}

int CountKind(const rgir::Graph& g, rgir::Node::Kind k) {
  int n = 0;
  for (const auto& node : g.nodes) n += node.kind == k;
  return n;
}

TEST(Build, RequestsBecomeNodesWithSignatureOrderArgs) {
  auto r = Compile("graph g(f: fd, buf: buffers[1] of 64) { read(f, buf[0])? }\n");
  const rgir::Graph& g = Lowered(r);
  EXPECT_EQ(rgir::Verify(g), "");
  ASSERT_EQ(CountKind(g, rgir::Node::Kind::kRequest), 1);
  for (const auto& n : g.nodes) {
    if (n.kind != rgir::Node::Kind::kRequest) continue;
    EXPECT_EQ(n.request, sema::RequestKind::kRead);
    ASSERT_EQ(n.args.size(), 3u);
    EXPECT_EQ(n.args[2].value, static_cast<uint64_t>(-1));  // default offset: file position
  }
  EXPECT_EQ(CountKind(g, rgir::Node::Kind::kRaise), 1);  // from `?`
}

TEST(Build, ConcurrencyMakesTasksForksJoinsAndRaces) {
  auto r = Compile("graph g(a: fd, b: fd, buf: buffers[2] of 16) {\n"
                   " parallel i in 0..8 { nop() }\n all { nop(); nop() }\n"
                   " any { read(a, buf[0]) => { }\n read(b, buf[1]) => { } }\n}\n");
  const rgir::Graph& g = Lowered(r);
  EXPECT_EQ(rgir::Verify(g), "");
  ASSERT_EQ(g.tasks.size(), 1u + 1 + 2 + 2);
  EXPECT_EQ(g.tasks[1].kind, rgir::Task::Kind::kParallel);
  EXPECT_EQ(g.tasks[1].instances, 8u);
  EXPECT_EQ(CountKind(g, rgir::Node::Kind::kFork), 3);
  EXPECT_EQ(CountKind(g, rgir::Node::Kind::kJoin), 2);
  EXPECT_EQ(CountKind(g, rgir::Node::Kind::kRace), 1);
}

TEST(Build, TimeoutsAndDeadlines) {
  auto r = Compile("graph g(f: fd, buf: buffers[1] of 16) {\n"
                   " loop { read(f, buf[0]) within 5 ms else break }\n"
                   " { nop() } within 1 s else { nop() }\n}\n");
  const rgir::Graph& g = Lowered(r);
  EXPECT_EQ(rgir::Verify(g), "");
  ASSERT_EQ(g.deadlines.size(), 1u);
  EXPECT_EQ(g.deadlines[0].duration.value, 1000000000u);
  bool timed = false;
  for (const auto& n : g.nodes) {
    if (n.kind == rgir::Node::Kind::kRequest && n.timeout) {
      timed = true;
      EXPECT_EQ(n.timeout->value, 5000000u);
      EXPECT_NE(n.alt, rgir::kNone);  // the `else break` path
    }
  }
  EXPECT_TRUE(timed);
}

TEST(Build, FnsAreInlinedAndFailBecomesANegativeResult) {
  auto r = Compile("fn f() -> i32 { fail EAGAIN }\ngraph g() -> (o: i32) { o = f() }\n");
  const rgir::Graph& g = Lowered(r);
  EXPECT_EQ(rgir::Verify(g), "");
  EXPECT_EQ(CountKind(g, rgir::Node::Kind::kRaise), 0);
  EXPECT_NE(rgir::Print(g).find("f.result#1 = -i32(11)"), std::string::npos) << rgir::Print(g);
}

TEST(Build, EveryExampleAndStdlibModuleBuildsAValidGraph) {
  for (std::string dir : {std::string(URINGC_SOURCE_DIR) + "/examples",
                          std::string(URINGC_SOURCE_DIR) + "/stdlib/std"}) {
    DIR* d = opendir(dir.c_str());
    ASSERT_NE(d, nullptr) << dir;
    int seen = 0;
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name.size() < 7 || name.substr(name.size() - 6) != ".uring") continue;
      std::ifstream in(dir + "/" + name);
      std::stringstream ss;
      ss << in.rdbuf();
      auto r = Compile(ss.str());
      EXPECT_FALSE(r.c->diagnostics.HasErrors()) << name << ": " << r.diags.at(0);
      ASSERT_NE(r.c->rgir, nullptr) << name;
      for (const auto& g : r.c->rgir->graphs) EXPECT_EQ(rgir::Verify(g), "") << name;
      const std::string dot = rgir::ToDot(*r.c->rgir);
      EXPECT_EQ(dot.rfind("digraph uringc {", 0), 0u);
      ++seen;
    }
    closedir(d);
    EXPECT_GT(seen, 2) << dir;
  }
}

// The right side of `&&`/`||` is built on the branch where it runs: its buffer index check (the
// branch to `raise 14`) comes after the left side's branch, and only on the edge that needs it.
TEST(Build, TheRightSideOfAndOrIsBuiltWhereItRuns) {
  for (const char* op : {"&&", "||"}) {
    SCOPED_TRACE(op);
    const std::string left = std::string(op) == "&&" ? "i < 4" : "i >= 4";
    auto r = Compile(
        "graph g(bufs: buffers[4] of 64, i: u32) -> (x: u64) {\n"
        " if " +
        left + " " + op + " len(bufs[i]) > 0 { x = 1 }\n}\n");
    const rgir::Graph& g = Lowered(r);
    EXPECT_EQ(rgir::Verify(g), "");
    const std::string text = rgir::Print(*r.c->rgir);
    const size_t left_branch = text.find(std::string("branch ") + (op[0] == '&' ? "and#" : "or#"));
    const size_t check = text.find("raise 14");
    ASSERT_NE(left_branch, std::string::npos) << text;
    ASSERT_NE(check, std::string::npos) << text;
    EXPECT_LT(left_branch, check) << text;
  }
}

TEST(Build, PrinterIsDeterministic) {
  const std::string text = "graph g(n: u64) { repeat n { nop()? } }\n";
  EXPECT_EQ(rgir::Print(*Compile(text).c->rgir), rgir::Print(*Compile(text).c->rgir));
}

}  // namespace
}  // namespace uringc::testing
