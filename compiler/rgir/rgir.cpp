// Derived edges, the invariant check and the task limits of rgir (see rgir.h).
#include "rgir/rgir.h"

#include <algorithm>
#include <functional>
#include <set>
#include <map>
#include <tuple>

namespace uringc::rgir {
namespace {

void CollectVars(const Expr& e, std::set<VarId>& out) {
  if (e.op == Expr::Op::kVar) out.insert(e.id);
  for (const Expr& o : e.operands) CollectVars(o, out);
}

std::set<VarId> VarsRead(const Node& n) {
  std::set<VarId> vars;
  if (n.value) CollectVars(*n.value, vars);
  for (const Expr& a : n.args) CollectVars(a, vars);
  if (n.timeout) CollectVars(*n.timeout, vars);
  return vars;
}

}  // namespace

void ComputeEdges(Graph& g) {
  std::vector<Edge> edges;
  std::map<VarId, std::vector<NodeId>> request_defs;
  // The nodes waiting on each fork (its kJoin/kRace), so that each task's exit finds them without
  // a walk over every node (which made a wide `any` quadratic).
  std::map<NodeId, std::vector<NodeId>> waiting_on_fork;
  for (NodeId i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.kind == Node::Kind::kRequest && n.var != kNone) request_defs[n.var].push_back(i);
    if (n.fork != kNone) waiting_on_fork[n.fork].push_back(i);
  }
  for (NodeId i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.next != kNone) edges.push_back({Edge::Kind::kControl, i, n.next});
    if (n.alt != kNone) edges.push_back({Edge::Kind::kAlt, i, n.alt});
    for (NodeId a : n.arms) edges.push_back({Edge::Kind::kControl, i, a});
    if (n.kind == Node::Kind::kFork) {
      for (TaskId t : n.tasks) edges.push_back({Edge::Kind::kSpawn, i, g.tasks[t].entry});
    }
    if (n.kind == Node::Kind::kExit && g.tasks[n.task].fork != kNone) {
      // Done edge to the kJoin/kRace that waits on this task's fork.
      auto waiting = waiting_on_fork.find(g.tasks[n.task].fork);
      if (waiting != waiting_on_fork.end()) {
        for (NodeId j : waiting->second) edges.push_back({Edge::Kind::kDone, i, j});
      }
    }
    // A node reading a variable that a request writes depends on that request's result.
    for (VarId v : VarsRead(n)) {
      auto it = request_defs.find(v);
      if (it == request_defs.end()) continue;
      for (NodeId def : it->second)
        if (def != i) edges.push_back({Edge::Kind::kData, def, i});
    }
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
    return std::tie(a.from, a.to, a.kind) < std::tie(b.from, b.to, b.kind);
  });
  edges.erase(std::unique(edges.begin(), edges.end(),
                          [](const Edge& a, const Edge& b) {
                            return a.from == b.from && a.to == b.to && a.kind == b.kind;
                          }),
              edges.end());
  g.edges = std::move(edges);
}

std::string Verify(const Graph& g) {
  auto bad = [](const std::string& what, size_t i) {
    return what + " (node " + std::to_string(i) + ")";
  };
  const size_t nn = g.nodes.size();
  auto ok = [&](uint32_t id, size_t limit) { return id == kNone || id < limit; };
  for (size_t i = 0; i < nn; ++i) {
    const Node& n = g.nodes[i];
    if (!ok(n.next, nn) || !ok(n.alt, nn) || !ok(n.fork, nn)) return bad("bad node id", i);
    if (n.task >= g.tasks.size()) return bad("bad task id", i);
    if (!ok(n.var, g.vars.size())) return bad("bad var id", i);
    if (!ok(n.deadline, g.deadlines.size()) || !ok(n.scope, g.deadlines.size()))
      return bad("bad scope id", i);
    for (NodeId a : n.arms) if (a >= nn) return bad("bad arm id", i);
    for (TaskId t : n.tasks) if (t >= g.tasks.size()) return bad("bad child task", i);
    const bool terminal = n.kind == Node::Kind::kExit || n.kind == Node::Kind::kStop ||
                          (n.kind == Node::Kind::kRaise && n.var == kNone);
    if (terminal && (n.next != kNone || n.alt != kNone)) return bad("terminal with successor", i);
    if (!terminal && n.kind != Node::Kind::kRace && n.kind != Node::Kind::kFork &&
        n.next == kNone)
      return bad("node without successor", i);
    if (n.next != kNone && g.nodes[n.next].task != n.task) return bad("edge across tasks", i);
  }
  // Reachability from task entries and deadline expiry points.
  std::vector<bool> seen(nn, false);
  std::vector<NodeId> work;
  for (const Task& t : g.tasks) if (t.entry != kNone && t.entry < nn) work.push_back(t.entry);
  for (const Deadline& d : g.deadlines) if (d.on_expire < nn) work.push_back(d.on_expire);
  while (!work.empty()) {
    NodeId i = work.back();
    work.pop_back();
    if (seen[i]) continue;
    seen[i] = true;
    const Node& n = g.nodes[i];
    for (NodeId s : {n.next, n.alt}) if (s != kNone) work.push_back(s);
    for (NodeId a : n.arms) work.push_back(a);
  }
  for (size_t i = 0; i < nn; ++i) if (!seen[i]) return bad("unreachable node", i);
  return "";
}

std::vector<uint64_t> TaskSlots(const Graph& g) {
  // Iterative: a parent may (in principle) come after its child in `tasks`.
  std::vector<uint64_t> slots(g.tasks.size(), 0);
  std::vector<bool> known(g.tasks.size(), false);
  for (TaskId root = 0; root < g.tasks.size(); ++root) {
    std::vector<TaskId> chain;  // root and its ancestors whose count is not known yet
    for (TaskId t = root; t != kNone && t < g.tasks.size() && !known[t] &&
                          chain.size() <= g.tasks.size();
         t = g.tasks[t].parent) {
      chain.push_back(t);
    }
    for (size_t i = chain.size(); i-- > 0;) {
      const Task& task = g.tasks[chain[i]];
      uint64_t n = task.kind == Task::Kind::kParallel ? task.instances : 1;
      const uint64_t above =
          task.parent == kNone || task.parent >= g.tasks.size() ? 1 : slots[task.parent];
      slots[chain[i]] = n != 0 && above > UINT64_MAX / n ? UINT64_MAX : n * above;
      known[chain[i]] = true;
    }
  }
  return slots;
}

bool CheckTaskLimits(const Graph& g, DiagnosticList& diagnostics) {
  if (g.tasks.size() > kMaxTasks) {
    diagnostics.Error(DiagKind::kTooManyTasks, g.range,
                      "graph `" + g.name + "` has " + std::to_string(g.tasks.size()) +
                          " concurrent constructs once its fns are inlined; the controller "
                          "supports " +
                          std::to_string(kMaxTasks));
    return false;
  }
  const std::vector<uint64_t> slots = TaskSlots(g);
  for (TaskId t = 0; t < g.tasks.size(); ++t) {
    if (slots[t] <= kMaxTaskSlots) continue;
    const std::string count =
        slots[t] == UINT64_MAX ? "more than " + std::to_string(UINT64_MAX - 1)
                               : std::to_string(slots[t]);
    diagnostics.Error(DiagKind::kTooManyTasks, g.tasks[t].range,
                      "this concurrent construct needs " + count +
                          " task instances in total (its own times those of the constructs "
                          "around it); the controller supports " +
                          std::to_string(kMaxTaskSlots));
    return false;
  }
  // A stream queues up to one completion per pool buffer in each instance of its task: its
  // queues live in the task's slots, in `.bss`, which the kernel holds as one BPF map value of at
  // most 4 MiB (KMALLOC_MAX_SIZE); half of that is left for everything else.
  constexpr uint64_t kMostQueueBytes = 2ull << 20;
  uint64_t queues = 0;
  for (const Deadline& d : g.deadlines) {
    if (d.kind != Deadline::Kind::kStream || d.pool >= g.params.size()) continue;
    const uint64_t bytes = slots[d.task] * g.params[d.pool].type.count * 8;
    queues += bytes;
    if (queues <= kMostQueueBytes) continue;
    diagnostics.Error(DiagKind::kTooManyTasks, d.range,
                      "the streams' queues take " + std::to_string(queues) +
                          " bytes with this one (an 8-byte word per pool buffer in each of its " +
                          std::to_string(slots[d.task]) +
                          " task instances), more than the " +
                          std::to_string(kMostQueueBytes >> 20) +
                          " MiB the controller's state may spend on them: use a smaller "
                          "`provided` pool, or fewer lanes");
    return false;
  }
  return true;
}

}  // namespace uringc::rgir
