// The values that flow between requests: a request's result variable, and every variable
// assigned from it (`let n = read(...)`, `copied += u64(n)`, a fn parameter it is passed as),
// reaches each request whose operands read one of them. Flow-insensitive: a variable assigned
// from two requests carries both. The edge is named after the first variable of the program
// that holds the result (`n`, not the fn parameter it becomes in std.io's `write_all`).
#include <map>
#include <set>

#include "view/passes.h"

namespace uringc::view {
namespace {

using rgir::Node;
using rgir::VarId;

void Reads(const rgir::Expr& e, std::set<VarId>& out) {
  if (e.op == rgir::Expr::Op::kVar && e.id != rgir::kNone) out.insert(e.id);
  for (const rgir::Expr& o : e.operands) Reads(o, out);
}

// The variables a request (or a stream's next chunk) sets, and those its operands read.
std::vector<VarId> Results(const rgir::Graph& g, const Node& n) {
  std::vector<VarId> out;
  if (n.var != rgir::kNone) out.push_back(n.var);
  if (n.kind == Node::Kind::kStreamWait && g.deadlines[n.scope].chunk != rgir::kNone)
    out.push_back(g.deadlines[n.scope].chunk);
  return out;
}

std::set<VarId> Operands(const rgir::Graph& g, const Node& n) {
  std::set<VarId> out;
  for (const rgir::Expr& a : n.args) Reads(a, out);
  if (n.timeout) Reads(*n.timeout, out);
  if (n.kind == Node::Kind::kStreamWait) Reads(g.deadlines[n.scope].socket, out);
  return out;
}

}  // namespace

void AddValueEdges(const rgir::Graph& g, const std::vector<uint32_t>& view_of, GraphView& view) {
  // derived[y]: the variables assigned from an expression that reads y.
  std::vector<std::set<VarId>> derived(g.vars.size());
  for (const Node& n : g.nodes) {
    if (n.kind != Node::Kind::kAssign || n.var == rgir::kNone || !n.value) continue;
    std::set<VarId> reads;
    Reads(*n.value, reads);
    for (VarId y : reads) derived[y].insert(n.var);
  }
  std::vector<std::set<VarId>> operands(g.nodes.size());
  for (rgir::NodeId i = 0; i < g.nodes.size(); ++i)
    if (view_of[i] != kNone) operands[i] = Operands(g, g.nodes[i]);

  auto named = [&](VarId v) { return g.vars[v].kind != rgir::Var::Kind::kTemp; };
  for (rgir::NodeId r = 0; r < g.nodes.size(); ++r) {
    if (view_of[r] == kNone) continue;
    // Breadth first from the results, each variable labelled with the first named one on its way.
    std::map<VarId, std::string> label;
    std::vector<VarId> queue;
    for (VarId v : Results(g, g.nodes[r])) {
      label[v] = named(v) ? g.vars[v].name : "";
      queue.push_back(v);
    }
    for (size_t q = 0; q < queue.size(); ++q) {
      const VarId y = queue[q];
      for (VarId x : derived[y]) {
        if (label.count(x)) continue;
        label[x] = !label[y].empty() ? label[y] : named(x) ? g.vars[x].name : "";
        queue.push_back(x);
      }
    }
    std::set<uint32_t> done = {view_of[r]};  // one edge per pair; none back to itself
    for (rgir::NodeId b = 0; b < g.nodes.size(); ++b) {
      if (view_of[b] == kNone || done.count(view_of[b])) continue;
      for (VarId x : operands[b]) {
        if (!label.count(x)) continue;
        const std::string& name = label[x].empty() ? g.vars[x].name : label[x];
        view.edges.push_back({ViewEdge::Kind::kValue, view_of[r], view_of[b], name, kNone});
        done.insert(view_of[b]);
        break;
      }
    }
    for (VarId x : queue) {  // the outputs it reaches, in the order found
      if (g.vars[x].kind != rgir::Var::Kind::kOutput) continue;
      view.edges.push_back({ViewEdge::Kind::kValue, view_of[r], kEndNode, g.vars[x].name, kNone});
    }
  }
}

}  // namespace uringc::view
