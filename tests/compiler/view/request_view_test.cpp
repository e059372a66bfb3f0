// view/: the request view built from small programs (BuildRequestView): its nodes, the control,
// error, timeout and value edges, and how clusters nest. The examples' pictures are golden-tested
// as DOT by graph_view_test.py.
#include <gtest/gtest.h>

#include <algorithm>

#include "compile_helper.h"
#include "view/dot.h"
#include "view/request_view.h"

namespace uringc::testing {
namespace {

using view::GraphView;
using view::ViewEdge;

GraphView ViewOf(const std::string& text) {
  Compiled r = Compile(text, "build");
  EXPECT_TRUE(r.kinds.empty()) << (r.diags.empty() ? "" : r.diags[0]);
  if (!r.c->rgir || r.c->rgir->graphs.empty()) return {};
  return view::BuildRequestView(r.c->rgir->graphs.at(0), r.c->sources);
}

// The view node whose label begins with `prefix` (the only one).
uint32_t Find(const GraphView& v, const std::string& prefix) {
  uint32_t found = view::kNone;
  for (uint32_t i = 0; i < v.nodes.size(); ++i) {
    if (v.nodes[i].label.rfind(prefix, 0) != 0) continue;
    EXPECT_EQ(found, view::kNone) << "two nodes begin with " << prefix;
    found = i;
  }
  EXPECT_NE(found, view::kNone) << "no node begins with " << prefix;
  return found;
}

const ViewEdge* EdgeOf(const GraphView& v, ViewEdge::Kind k, uint32_t from, uint32_t to) {
  for (const ViewEdge& e : v.edges)
    if (e.kind == k && e.from == from && e.to == to) return &e;
  return nullptr;
}

size_t Requests(const GraphView& v) {
  return static_cast<size_t>(std::count_if(v.nodes.begin(), v.nodes.end(), [](const auto& n) {
    return n.kind == view::ViewNode::Kind::kRequest;
  }));
}

TEST(RequestView, ResultFlowsIntoTheNextRequestAndAnOutput) {
  GraphView v = ViewOf(
      "graph g(f: fd, buf: buffers[1] of 64) -> (m: u32) {\n"
      "    let n = read(f, buf[0], 0)?\n"
      "    write(f, buf[0][..n], 0)?\n"
      "    m = n\n"
      "}\n");
  ASSERT_EQ(Requests(v), 2u);
  const uint32_t rd = Find(v, "read(f, buf[0], 0)"), wr = Find(v, "write(f, buf[0][..n], 0)");
  EXPECT_EQ(v.nodes[rd].where, "main.uring:2");
  EXPECT_EQ(v.nodes[wr].where, "main.uring:3");
  EXPECT_NE(EdgeOf(v, ViewEdge::Kind::kNext, view::kStartNode, rd), nullptr);
  EXPECT_NE(EdgeOf(v, ViewEdge::Kind::kNext, rd, wr), nullptr);
  EXPECT_NE(EdgeOf(v, ViewEdge::Kind::kNext, wr, view::kEndNode), nullptr);
  EXPECT_NE(EdgeOf(v, ViewEdge::Kind::kError, rd, view::kFailNode), nullptr);  // the `?`
  EXPECT_EQ(EdgeOf(v, ViewEdge::Kind::kNext, rd, view::kEndNode), nullptr);
  const ViewEdge* n = EdgeOf(v, ViewEdge::Kind::kValue, rd, wr);
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->label, "n");
  const ViewEdge* m = EdgeOf(v, ViewEdge::Kind::kValue, rd, view::kEndNode);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->label, "m");
  EXPECT_EQ(EdgeOf(v, ViewEdge::Kind::kValue, wr, rd), nullptr);  // nothing flows backwards
}

TEST(RequestView, ACaughtErrorGoesToTheHandlersRequest) {
  GraphView v = ViewOf(
      "graph g(f: fd) {\n"
      "    try {\n"
      "        nop()?\n"
      "    } catch e {\n"
      "        close(f)\n"
      "    }\n"
      "}\n");
  const uint32_t nop = Find(v, "nop()"), close = Find(v, "close(f)");
  EXPECT_NE(EdgeOf(v, ViewEdge::Kind::kError, nop, close), nullptr);
  EXPECT_NE(EdgeOf(v, ViewEdge::Kind::kNext, nop, view::kEndNode), nullptr);
  EXPECT_EQ(EdgeOf(v, ViewEdge::Kind::kError, nop, view::kFailNode), nullptr);
}

TEST(RequestView, AnyInsideABlockDeadlineTimesOutToTheFailureExit) {
  GraphView v = ViewOf(
      "graph g(a: fd, b: fd, buf: buffers[2] of 64) -> (w: u32) {\n"
      "    any {\n"
      "        read(a, buf[0], 0) as n => { w = u32(max(n, 0)) }\n"
      "        read(b, buf[1], 0) as n => { w = u32(max(n, 1)) }\n"
      "    } within 10 ms else fail ETIME\n"
      "}\n");
  const uint32_t ra = Find(v, "read(a"), rb = Find(v, "read(b");
  ASSERT_EQ(v.clusters.size(), 2u);
  const uint32_t any = v.nodes[ra].cluster;
  ASSERT_NE(any, view::kNone);
  EXPECT_EQ(v.nodes[rb].cluster, any);
  EXPECT_EQ(v.clusters[any].kind, view::ViewCluster::Kind::kFork);
  EXPECT_EQ(v.clusters[any].label, "any");
  const uint32_t within = v.clusters[any].parent;
  ASSERT_NE(within, view::kNone);
  EXPECT_EQ(v.clusters[within].kind, view::ViewCluster::Kind::kDeadline);
  EXPECT_EQ(v.clusters[within].label, "within 10 ms else fail ETIME");
  bool timeout = false;
  for (const ViewEdge& e : v.edges) {
    timeout = timeout || (e.kind == ViewEdge::Kind::kTimeout && e.from_cluster == within &&
                          e.to == view::kFailNode);
  }
  EXPECT_TRUE(timeout);
  // Each arm's winner ends the graph; neither waits for the other.
  EXPECT_NE(EdgeOf(v, ViewEdge::Kind::kNext, ra, view::kEndNode), nullptr);
  EXPECT_NE(EdgeOf(v, ViewEdge::Kind::kNext, rb, view::kEndNode), nullptr);
  EXPECT_EQ(EdgeOf(v, ViewEdge::Kind::kNext, ra, rb), nullptr);
}

TEST(RequestView, LoopsNestAroundForksAndEmptyLoopsAreLeftOut) {
  GraphView v = ViewOf(
      "graph g(n: u64) -> (k: u64) {\n"
      "    repeat n {\n"
      "        all {\n"
      "            nop()\n"
      "            sleep(1 ms)\n"
      "        }\n"
      "    }\n"
      "    for i in 0..3 { k += 1 }\n"
      "    nop()\n"
      "}\n");
  ASSERT_EQ(v.clusters.size(), 2u);  // the `for` holds no request
  uint32_t in_all = view::kNone, after = view::kNone;
  for (uint32_t i = 0; i < v.nodes.size(); ++i) {
    if (v.nodes[i].label != "nop()") continue;
    (v.nodes[i].cluster == view::kNone ? after : in_all) = i;
  }
  ASSERT_NE(in_all, view::kNone);
  ASSERT_NE(after, view::kNone);
  const uint32_t tm = Find(v, "sleep(1 ms)");
  const uint32_t all = v.nodes[in_all].cluster;
  EXPECT_EQ(v.nodes[tm].cluster, all);
  EXPECT_EQ(v.clusters[all].label, "all");
  const uint32_t loop = v.clusters[all].parent;
  ASSERT_NE(loop, view::kNone);
  EXPECT_EQ(v.clusters[loop].kind, view::ViewCluster::Kind::kLoop);
  EXPECT_EQ(v.clusters[loop].label, "repeat n");
  // Both branches go on to the next round (the join waits for both) or out of the loop.
  for (uint32_t from : {in_all, tm}) {
    EXPECT_NE(EdgeOf(v, ViewEdge::Kind::kNext, from, in_all), nullptr);
    EXPECT_NE(EdgeOf(v, ViewEdge::Kind::kNext, from, after), nullptr);
  }
  EXPECT_NE(EdgeOf(v, ViewEdge::Kind::kNext, view::kStartNode, after), nullptr);  // n == 0
}

TEST(RequestView, EachInlinedCallIsAClusterAroundItsFnsRequests) {
  GraphView v = ViewOf(
      "fn twice(f: fd) -> i32 {\n"
      "    nop()?\n"
      "    return close(f)\n"
      "}\n"
      "graph g(a: fd, b: fd) {\n"
      "    twice(a)?\n"
      "    twice(b)?\n"
      "}\n");
  ASSERT_EQ(Requests(v), 4u);
  ASSERT_EQ(v.clusters.size(), 2u);
  std::vector<uint32_t> nops, closes;
  for (uint32_t i = 0; i < v.nodes.size(); ++i) {
    if (v.nodes[i].label == "nop()") nops.push_back(i);
    if (v.nodes[i].label == "close(f)") closes.push_back(i);
  }
  ASSERT_EQ(nops.size(), 2u);
  ASSERT_EQ(closes.size(), 2u);
  for (int k = 0; k < 2; ++k) {
    const uint32_t c = v.nodes[nops[k]].cluster;
    ASSERT_NE(c, view::kNone);
    EXPECT_EQ(v.nodes[closes[k]].cluster, c);
    EXPECT_EQ(v.clusters[c].kind, view::ViewCluster::Kind::kCall);
    EXPECT_EQ(v.clusters[c].parent, view::kNone);
    EXPECT_EQ(v.nodes[nops[k]].where, "main.uring:2");  // the fn's own line
    EXPECT_EQ(v.clusters[c].label, k == 0 ? "twice(a)\nmain.uring:6" : "twice(b)\nmain.uring:7");
  }
  EXPECT_NE(EdgeOf(v, ViewEdge::Kind::kNext, closes[0], nops[1]), nullptr);
}

TEST(RequestView, DotNamesEveryClusterAndTheTimeoutLeavesItsCluster) {
  Compiled r = Compile(
      "graph g(f: fd, buf: buffers[1] of 64) {\n"
      "    {\n"
      "        read(f, buf[0], 0)?\n"
      "    } within 1 s\n"
      "}\n",
      "build");
  const std::string dot = view::ToDot(*r.c->rgir, r.c->sources);
  EXPECT_NE(dot.find("subgraph cluster_g0_c0 {\n      label=\"within 1 s\""), std::string::npos)
      << dot;
  EXPECT_NE(dot.find("label=\"timeout\",ltail=cluster_g0_c0"), std::string::npos) << dot;
  EXPECT_NE(dot.find("label=\"read(f, buf[0], 0)\\nmain.uring:3\""), std::string::npos) << dot;
}

}  // namespace
}  // namespace uringc::testing
