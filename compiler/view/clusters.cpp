// The clusters of the request view: a fork (`parallel`, `all`, `any`) holds its child tasks, a
// loop the nodes of its natural loop (found from the back edges of its task's control flow), a
// block deadline the nodes of its scope. Nesting follows containment: a loop or deadline is
// inside the smallest other one of its task that holds its first node, and the outermost ones of
// a child task are inside that task's fork. An inlined fn call holds the nodes copied from its
// fn, so a request of std's `write_all` is drawn inside the call that the program wrote.
// Clusters that hold no request are left out.
#include <algorithm>
#include <tuple>

#include "view/passes.h"

namespace uringc::view {
namespace {

using rgir::Node;

std::vector<rgir::NodeId> Successors(const rgir::Graph& g, rgir::NodeId n) {
  const Node& node = g.nodes[n];
  std::vector<rgir::NodeId> out;
  for (rgir::NodeId s : {node.next, node.alt}) {
    if (s != rgir::kNone) out.push_back(s);
  }
  out.insert(out.end(), node.arms.begin(), node.arms.end());
  if (node.kind == Node::Kind::kDeadlineStart &&
      g.deadlines[node.scope].on_expire != rgir::kNone) {
    out.push_back(g.deadlines[node.scope].on_expire);
  }
  return out;
}

struct Candidate {
  ViewCluster::Kind kind;
  rgir::TaskId task;
  rgir::NodeId anchor;         // the fork, the loop head, the deadline's start
  std::vector<bool> members;   // loops and deadlines: the nodes of `task` inside
  size_t size = 0;
  std::string label;
  uint32_t parent = kNone;     // candidate index
  bool has_request = false;
};

// Natural loops: for each back edge u -> h of a depth-first walk, h and every node that reaches
// u without passing h. Back edges to one head make one loop.
void FindLoops(const rgir::Graph& g, const SourceManager& sources,
               std::vector<Candidate>& out) {
  const size_t n = g.nodes.size();
  std::vector<std::vector<rgir::NodeId>> preds(n);
  for (rgir::NodeId i = 0; i < n; ++i)
    for (rgir::NodeId s : Successors(g, i)) preds[s].push_back(i);
  std::vector<uint8_t> state(n, 0);  // 0 new, 1 on the stack, 2 done
  std::vector<std::vector<rgir::NodeId>> latches(n);
  for (const rgir::Task& t : g.tasks) {
    if (t.entry == rgir::kNone) continue;
    std::vector<std::pair<rgir::NodeId, size_t>> stack = {{t.entry, 0}};
    state[t.entry] = 1;
    while (!stack.empty()) {
      auto& [node, next_succ] = stack.back();
      const std::vector<rgir::NodeId> succ = Successors(g, node);
      if (next_succ == succ.size()) {
        state[node] = 2;
        stack.pop_back();
        continue;
      }
      const rgir::NodeId s = succ[next_succ++];
      if (state[s] == 1) latches[s].push_back(node);
      if (state[s] == 0) {
        state[s] = 1;
        stack.push_back({s, 0});
      }
    }
  }
  for (rgir::NodeId head = 0; head < n; ++head) {
    // A loop of the program starts at a loop head (kNop) or, for `for x in recv_each`, at the
    // release of the previous chunk; other cycles (a stream waiting again after a re-arm) are
    // parts of one request.
    const Node::Kind k = g.nodes[head].kind;
    if (latches[head].empty() || (k != Node::Kind::kNop && k != Node::Kind::kStreamRelease))
      continue;
    Candidate c{ViewCluster::Kind::kLoop, g.nodes[head].task, head, std::vector<bool>(n), 0,
                Head(sources, g.nodes[head].range)};
    c.members[head] = true;
    std::vector<rgir::NodeId> work = latches[head];
    while (!work.empty()) {
      const rgir::NodeId m = work.back();
      work.pop_back();
      if (c.members[m]) continue;
      c.members[m] = true;
      work.insert(work.end(), preds[m].begin(), preds[m].end());
    }
    c.size = static_cast<size_t>(std::count(c.members.begin(), c.members.end(), true));
    if (c.label.empty()) c.label = "loop";
    out.push_back(std::move(c));
  }
}

void FindDeadlines(const rgir::Graph& g, const SourceManager& sources,
                   std::vector<Candidate>& out, std::vector<uint32_t>& of_deadline) {
  for (rgir::ScopeId d = 0; d < g.deadlines.size(); ++d) {
    const rgir::Deadline& dl = g.deadlines[d];
    if (dl.kind != rgir::Deadline::Kind::kDeadline) continue;  // a stream is drawn as its loop
    Candidate c{ViewCluster::Kind::kDeadline, dl.task, dl.start,
                std::vector<bool>(g.nodes.size()), 0, OneLine(sources, dl.range)};
    for (rgir::NodeId i = 0; i < g.nodes.size(); ++i) {
      for (rgir::ScopeId s = g.nodes[i].deadline; s != rgir::kNone; s = g.deadlines[s].parent) {
        if (s == d) c.members[i] = true;
      }
    }
    c.size = static_cast<size_t>(std::count(c.members.begin(), c.members.end(), true));
    if (c.label.empty()) c.label = "within";
    of_deadline[d] = static_cast<uint32_t>(out.size());
    out.push_back(std::move(c));
  }
}

void FindCalls(const rgir::Graph& g, const SourceManager& sources, std::vector<Candidate>& out) {
  for (uint32_t call = 0; call < g.calls.size(); ++call) {
    const rgir::InlinedCall& c = g.calls[call];
    Candidate cand{ViewCluster::Kind::kCall, c.task, rgir::kNone,
                   std::vector<bool>(g.nodes.size()), 0,
                   OneLine(sources, c.range) + "\n" + Where(sources, c.range, g.range.file)};
    for (rgir::NodeId i = 0; i < g.nodes.size(); ++i) {
      if (g.nodes[i].task != c.task) continue;
      for (uint32_t k = g.nodes[i].call; k != rgir::kNone; k = g.calls[k].parent) {
        if (k == call) cand.members[i] = true;
      }
      if (cand.members[i] && cand.anchor == rgir::kNone) cand.anchor = i;
    }
    cand.size = static_cast<size_t>(std::count(cand.members.begin(), cand.members.end(), true));
    if (cand.anchor != rgir::kNone) out.push_back(std::move(cand));
  }
}

// Orders candidates of one task from inner to outer: fewer nodes first; a deadline and a loop
// with the same nodes nest with the deadline outside, and a fn call outside both.
auto Key(const Candidate& c) {
  const int rank = c.kind == ViewCluster::Kind::kCall ? 2 : c.kind == ViewCluster::Kind::kDeadline;
  return std::make_tuple(c.size, rank);
}

// The innermost candidate of `node`'s task that holds it, other than `self`; else the fork of
// its task (kNone in the root task).
uint32_t Innermost(const rgir::Graph& g, const std::vector<Candidate>& cands,
                   const std::vector<uint32_t>& fork_of_task, rgir::NodeId node, uint32_t self) {
  uint32_t best = kNone;
  for (uint32_t i = 0; i < cands.size(); ++i) {
    const Candidate& c = cands[i];
    if (i == self || c.members.empty() || c.task != g.nodes[node].task || !c.members[node])
      continue;
    if (self != kNone && Key(c) <= Key(cands[self])) continue;
    if (best == kNone || Key(c) < Key(cands[best])) best = i;
  }
  return best != kNone ? best : fork_of_task[g.nodes[node].task];
}

}  // namespace

ClusterMap BuildClusters(const rgir::Graph& g, const SourceManager& sources, GraphView& view) {
  std::vector<Candidate> cands;
  std::vector<uint32_t> fork_of_task(g.tasks.size(), kNone);
  for (rgir::NodeId i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].kind != Node::Kind::kFork) continue;
    for (rgir::TaskId t : g.nodes[i].tasks) fork_of_task[t] = static_cast<uint32_t>(cands.size());
    std::string label = Head(sources, g.nodes[i].range);
    cands.push_back({ViewCluster::Kind::kFork, g.nodes[i].task, i, {}, 0,
                     label.empty() ? "fork" : label});
  }
  FindLoops(g, sources, cands);
  std::vector<uint32_t> deadline_cand(g.deadlines.size(), kNone);
  FindDeadlines(g, sources, cands, deadline_cand);
  FindCalls(g, sources, cands);
  for (uint32_t i = 0; i < cands.size(); ++i)
    cands[i].parent = Innermost(g, cands, fork_of_task, cands[i].anchor, i);

  ClusterMap map;
  std::vector<uint32_t> node_cand(g.nodes.size());
  for (rgir::NodeId i = 0; i < g.nodes.size(); ++i) {
    node_cand[i] = Innermost(g, cands, fork_of_task, i, kNone);
    if (g.nodes[i].kind != Node::Kind::kRequest && g.nodes[i].kind != Node::Kind::kStreamWait)
      continue;
    for (uint32_t c = node_cand[i]; c != kNone && !cands[c].has_request; c = cands[c].parent)
      cands[c].has_request = true;
  }
  // The kept candidates become clusters in the order of their first node.
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < cands.size(); ++i)
    if (cands[i].has_request) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return cands[a].anchor < cands[b].anchor;
  });
  std::vector<uint32_t> cluster_of(cands.size(), kNone);
  for (uint32_t c : order) {
    cluster_of[c] = static_cast<uint32_t>(view.clusters.size());
    view.clusters.push_back({cands[c].kind, cands[c].label, kNone});
  }
  auto kept = [&](uint32_t c) {
    while (c != kNone && cluster_of[c] == kNone) c = cands[c].parent;
    return c == kNone ? kNone : cluster_of[c];
  };
  for (uint32_t c : order) view.clusters[cluster_of[c]].parent = kept(cands[c].parent);
  for (uint32_t c : node_cand) map.of_node.push_back(kept(c));
  for (uint32_t c : deadline_cand) map.of_deadline.push_back(c == kNone ? kNone : cluster_of[c]);
  return map;
}

}  // namespace uringc::view
