// Where control goes after each request: a walk through the rgir nodes that are not requests
// (assignments, branches, loop heads, forks and joins) to the requests it can reach next. A walk
// that passes a `raise` is an error edge; one that leaves through a request's `within` or a
// block deadline is a timeout edge. Reaching the end of a child task continues after its join
// (or at its `any` arm's handler), and a failure with no handler goes to the join's failure path
// or, in the graph's own task, to the failure exit.
#include <algorithm>
#include <set>
#include <tuple>

#include "view/passes.h"

namespace uringc::view {
namespace {

using rgir::Node;
using rgir::NodeId;

struct Reached {
  uint32_t node;
  bool error;
};

class Walker {
 public:
  Walker(const rgir::Graph& g, const std::vector<uint32_t>& view_of) : g_(g), view_of_(view_of) {
    wait_of_fork_.assign(g.nodes.size(), rgir::kNone);
    for (NodeId i = 0; i < g.nodes.size(); ++i) {
      const Node& n = g.nodes[i];
      if ((n.kind == Node::Kind::kJoin || n.kind == Node::Kind::kRace) && n.fork != rgir::kNone)
        wait_of_fork_[n.fork] = i;
    }
  }

  /// The view nodes control can reach from rgir node `from` before it reaches a request.
  std::vector<Reached> Walk(NodeId from, bool error) {
    std::vector<Reached> out;
    std::set<std::pair<NodeId, bool>> seen;
    work_.clear();
    Push(from, error);
    while (!work_.empty()) {
      const auto [id, err] = work_.back();
      work_.pop_back();
      if (!seen.insert({id, err}).second) continue;
      Step(id, err, out);
    }
    return out;
  }

 private:
  void Push(NodeId n, bool error) {
    if (n != rgir::kNone) work_.push_back({n, error});
  }

  void Step(NodeId id, bool err, std::vector<Reached>& out) {
    const Node& n = g_.nodes[id];
    switch (n.kind) {
      case Node::Kind::kRequest:
      case Node::Kind::kStreamWait: out.push_back({view_of_[id], err}); return;
      case Node::Kind::kStop: out.push_back({kEndNode, err}); return;
      case Node::Kind::kExit:
        if (n.task == 0) out.push_back({kEndNode, err});
        else ChildEnded(n.task, err);
        return;
      case Node::Kind::kRaise:
        if (n.next != rgir::kNone) Push(n.next, true);
        else Failed(n.task, out);
        return;
      case Node::Kind::kFork:
        for (rgir::TaskId t : n.tasks) Push(g_.tasks[t].entry, err);
        return;
      case Node::Kind::kDeadlineStart: Push(n.next, err); return;  // expiry: a timeout edge
      default:
        Push(n.next, err);
        Push(n.alt, err);
        for (NodeId a : n.arms) Push(a, err);
    }
  }

  void ChildEnded(rgir::TaskId t, bool err) {
    const NodeId fork = g_.tasks[t].fork;
    const NodeId wait = wait_of_fork_[fork];
    if (wait == rgir::kNone) return;
    const Node& w = g_.nodes[wait];
    const std::vector<rgir::TaskId>& kids = g_.nodes[fork].tasks;
    for (size_t i = 0; i < kids.size() && w.kind == Node::Kind::kRace; ++i) {
      if (kids[i] == t && i < w.arms.size()) return Push(w.arms[i], err);
    }
    Push(w.next, err);
  }

  void Failed(rgir::TaskId t, std::vector<Reached>& out) {
    while (t != 0) {
      const NodeId wait = wait_of_fork_[g_.tasks[t].fork];
      if (wait == rgir::kNone) break;
      if (g_.nodes[wait].alt != rgir::kNone) return Push(g_.nodes[wait].alt, true);
      t = g_.nodes[wait].task;
    }
    out.push_back({kFailNode, true});
  }

  const rgir::Graph& g_;
  const std::vector<uint32_t>& view_of_;
  std::vector<NodeId> wait_of_fork_;
  std::vector<std::pair<NodeId, bool>> work_;
};

class EdgeSet {
 public:
  explicit EdgeSet(GraphView& view) : view_(view) {}
  void Add(uint32_t from, std::vector<Reached> to, bool timeout, uint32_t from_cluster) {
    std::sort(to.begin(), to.end(), [](const Reached& a, const Reached& b) {
      return std::tie(a.node, a.error) < std::tie(b.node, b.error);
    });
    for (const Reached& r : to) {
      const ViewEdge::Kind kind = timeout ? ViewEdge::Kind::kTimeout
                                  : r.error ? ViewEdge::Kind::kError
                                            : ViewEdge::Kind::kNext;
      if (!seen_.insert({from, r.node, kind}).second) continue;
      const char* label = timeout ? "timeout" : r.error ? "error" : "";
      view_.edges.push_back({kind, from, r.node, label, from_cluster});
    }
  }

 private:
  GraphView& view_;
  std::set<std::tuple<uint32_t, uint32_t, ViewEdge::Kind>> seen_;
};

// A request node drawn inside cluster `c` (or one nested in it), to anchor an edge that leaves
// the cluster.
uint32_t NodeInside(const GraphView& view, uint32_t c) {
  for (uint32_t i = 0; i < view.nodes.size(); ++i) {
    for (uint32_t k = view.nodes[i].cluster; k != kNone; k = view.clusters[k].parent) {
      if (k == c) return i;
    }
  }
  return kNone;
}

}  // namespace

void AddControlEdges(const rgir::Graph& g, const std::vector<uint32_t>& view_of,
                     const ClusterMap& clusters, GraphView& view) {
  Walker walker(g, view_of);
  EdgeSet edges(view);
  if (!g.tasks.empty()) edges.Add(kStartNode, walker.Walk(g.tasks[0].entry, false), false, kNone);
  for (NodeId i = 0; i < g.nodes.size(); ++i) {
    if (view_of[i] == kNone) continue;
    const Node& n = g.nodes[i];
    edges.Add(view_of[i], walker.Walk(n.next, false), false, kNone);
    if (n.timeout && n.alt != rgir::kNone)
      edges.Add(view_of[i], walker.Walk(n.alt, false), true, kNone);
  }
  for (rgir::ScopeId d = 0; d < g.deadlines.size(); ++d) {
    const uint32_t c = clusters.of_deadline[d];
    if (c == kNone || g.deadlines[d].on_expire == rgir::kNone) continue;
    const uint32_t from = NodeInside(view, c);
    if (from != kNone) edges.Add(from, walker.Walk(g.deadlines[d].on_expire, false), true, c);
  }
}

}  // namespace uringc::view
