// How much code a graph lowers to, estimated on rgir so that `uringc check` and `uringc compile`
// refuse the same graphs (GraphTooLarge) before LLVM spends minutes on them. The estimate follows
// what compiler/lower/ emits: each node once per task, each task's run, reap and end code,
// and the cancellation of task subtrees, which is emitted where a subtree can be cancelled (the
// end of every fork, a task's own failure, a deadline's expiry) and so grows with nesting.
// The weights are BPF instructions per construct, measured on compiled programs (docs/codegen.md,
// "Compile time of large graphs"); the estimate is within a small factor of the real count.
#include "rgir/budget.h"

namespace uringc::rgir {
namespace {

// Instructions, roughly, that lowering emits for each part (measured with -O2).
constexpr uint64_t kPerRequest = 30;
constexpr uint64_t kPerLinkTimeout = 25;
constexpr uint64_t kPerDeadlineNode = 35;
constexpr uint64_t kPerForkChild = 30;
constexpr uint64_t kPerOtherNode = 3;
constexpr uint64_t kPerTask = 200;
constexpr uint64_t kPerScope = 30;
constexpr uint64_t kPerCancelledSlot = 45;

uint64_t Add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
uint64_t Mul(uint64_t a, uint64_t b) { return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b; }

}  // namespace

CodeEstimate EstimateCode(const Graph& g) {
  const size_t nt = g.tasks.size();
  std::vector<uint64_t> own(nt, kPerTask);  // the task's own code
  std::vector<uint64_t> scopes(nt, 0);
  std::vector<std::vector<TaskId>> children(nt);
  for (const Deadline& d : g.deadlines) {
    if (d.task < nt) ++scopes[d.task];
  }
  for (const Node& n : g.nodes) {
    if (n.task >= nt) continue;
    uint64_t cost = kPerOtherNode;
    switch (n.kind) {
      case Node::Kind::kRequest: cost = kPerRequest + (n.timeout ? kPerLinkTimeout : 0); break;
      case Node::Kind::kDeadlineStart:
      case Node::Kind::kDeadlineEnd:
      case Node::Kind::kStreamWait:
      case Node::Kind::kStreamRelease: cost = kPerDeadlineNode; break;
      case Node::Kind::kFork:
        cost = Mul(kPerForkChild, n.tasks.size());
        for (TaskId c : n.tasks) {
          if (c < nt) children[n.task].push_back(c);
        }
        break;
      default: break;
    }
    own[n.task] = Add(own[n.task], cost);
  }
  for (TaskId t = 0; t < nt; ++t) own[t] = Add(own[t], Mul(kPerScope, scopes[t]));

  // cancel[t]: the code that cancels one slot of t and everything below it. Children are created
  // after their parents (rgir lowering), so a reverse walk sees children first; a child numbered
  // before its parent (never made by lowering) is counted without its subtree.
  std::vector<uint64_t> cancel(nt, 0);
  auto cancel_child = [&](TaskId child, TaskId parent) {
    return child > parent ? cancel[child] : kPerCancelledSlot;
  };
  for (size_t i = nt; i-- > 0;) {
    uint64_t c = Add(kPerCancelledSlot, Mul(kPerScope, scopes[i]));
    for (TaskId ch : children[i]) c = Add(c, cancel_child(ch, static_cast<TaskId>(i)));
    cancel[i] = c;
  }
  // Where t's children are cancelled: the end of each of t's forks (together: once), t's own
  // failure, and the expiry of t's deadlines.
  auto cancel_sites = [&](TaskId t) -> uint64_t { return 2 + (scopes[t] ? 1 : 0); };

  CodeEstimate e;
  auto consider = [&](uint64_t cost, const SourceRange& where) {
    if (cost > e.largest) e.largest = cost, e.largest_range = where;
  };
  for (TaskId t = 0; t < nt; ++t) {
    uint64_t below = 0;
    for (TaskId ch : children[t]) below = Add(below, cancel_child(ch, t));
    const uint64_t total = Add(own[t], Mul(cancel_sites(t), below));
    e.total = Add(e.total, total);
    if (t != 0) consider(total, g.tasks[t].range);
  }
  // The constructs that fork: what their children cost, with their cancellation.
  for (const Node& n : g.nodes) {
    if (n.kind != Node::Kind::kFork || n.task >= nt) continue;
    uint64_t cost = Mul(kPerForkChild, n.tasks.size());
    for (TaskId c : n.tasks) {
      if (c < nt) cost = Add(cost, Add(own[c], Mul(cancel_sites(n.task), cancel_child(c, n.task))));
    }
    consider(cost, n.range);
  }
  return e;
}

bool CheckCodeBudget(const Graph& g, DiagnosticList& diagnostics, uint64_t budget) {
  const CodeEstimate e = EstimateCode(g);
  if (e.total <= budget) return true;
  Diagnostic& d = diagnostics.Error(
      DiagKind::kGraphTooLarge, g.range,
      "graph `" + g.name + "` would lower to about " + std::to_string(e.total) +
          " BPF instructions, more than the " + std::to_string(budget) +
          " a controller may have; split it into smaller graphs, or use fewer arms, branches "
          "and requests");
  if (e.largest != 0) {
    d.notes.push_back({e.largest_range, "the largest part: about " + std::to_string(e.largest) +
                                            " of them are this construct's"});
  }
  return false;
}

}  // namespace uringc::rgir
