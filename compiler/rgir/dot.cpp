// The Graphviz export (see dot.h).
#include "rgir/dot.h"

#include "rgir/printer.h"

namespace uringc::rgir {
namespace {

std::string Label(const Graph& g, const Node& n) {
  switch (n.kind) {
    case Node::Kind::kEntry: return "start";
    case Node::Kind::kExit: return "end";
    case Node::Kind::kNop: return "";
    case Node::Kind::kAssign:
      if (n.var == kNone) return PrintExpr(g, *n.value);  // a store, for its effect
      return g.vars[n.var].name + " = " + PrintExpr(g, *n.value);
    case Node::Kind::kBranch: return PrintExpr(g, *n.value);
    case Node::Kind::kRequest: {
      std::string s = std::string(sema::Request(n.request).name) + "(";
      for (size_t a = 0; a < n.args.size(); ++a) s += (a ? ", " : "") + PrintExpr(g, n.args[a]);
      s += ")";
      if (n.var != kNone) s = g.vars[n.var].name + " = " + s;
      if (n.timeout) s += "\nwithin " + PrintExpr(g, *n.timeout);
      return s;
    }
    case Node::Kind::kFork: return "fork";
    case Node::Kind::kJoin: return "join";
    case Node::Kind::kRace: return "race (first wins)";
    case Node::Kind::kDeadlineStart: {
      const Deadline& d = g.deadlines[n.scope];
      if (d.kind == Deadline::Kind::kStream) {
        return "recv_each(" + PrintExpr(g, d.socket) + ", " + g.params[d.pool].name + ")";
      }
      return "deadline " + PrintExpr(g, d.duration);
    }
    case Node::Kind::kDeadlineEnd:
      return g.deadlines[n.scope].kind == Deadline::Kind::kStream ? "stream end" : "deadline end";
    case Node::Kind::kStreamWait: return g.vars[g.deadlines[n.scope].chunk].name + " = next chunk";
    case Node::Kind::kStreamRelease: return "release chunk";
    case Node::Kind::kRaise: return "raise " + PrintExpr(g, *n.value);
    case Node::Kind::kStop: return "stop";
  }
  return "";
}

std::string Shape(const Node& n) {
  switch (n.kind) {
    case Node::Kind::kEntry: return "shape=circle";
    case Node::Kind::kExit: return "shape=doublecircle";
    case Node::Kind::kNop: return "shape=point";
    case Node::Kind::kAssign: return "shape=plaintext";
    case Node::Kind::kBranch: return "shape=diamond";
    case Node::Kind::kRequest: return "shape=box,style=\"rounded,filled\",fillcolor=lightyellow";
    case Node::Kind::kFork:
    case Node::Kind::kJoin:
    case Node::Kind::kRace: return "shape=box,style=filled,fillcolor=black,fontcolor=white";
    case Node::Kind::kDeadlineStart:
    case Node::Kind::kDeadlineEnd:
    case Node::Kind::kStreamRelease: return "shape=box,style=dashed";
    case Node::Kind::kStreamWait:
      return "shape=box,style=\"rounded,filled\",fillcolor=lightyellow";
    case Node::Kind::kRaise: return "shape=octagon,color=red";
    case Node::Kind::kStop: return "shape=doubleoctagon";
  }
  return "";
}

void Graph1(const Graph& g, size_t gi, std::string& out) {
  const std::string p = "g" + std::to_string(gi) + "n";
  out += "  subgraph cluster_g" + std::to_string(gi) + " {\n    label=\"graph " +
         DotEscape(g.name) + "\";\n";
  for (size_t t = 0; t < g.tasks.size(); ++t) {
    const Task& task = g.tasks[t];
    std::string label = "task " + task.name;
    if (task.instances > 1) label += " x" + std::to_string(task.instances);
    out += "    subgraph cluster_g" + std::to_string(gi) + "t" + std::to_string(t) +
           " {\n      label=\"" + DotEscape(label) + "\"; style=rounded;\n";
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& n = g.nodes[i];
      if (n.task != t) continue;
      out += "      " + p + std::to_string(i) + " [label=\"" + DotEscape(Label(g, n)) + "\"," +
             Shape(n) + "];\n";
    }
    out += "    }\n";
  }
  out += "  }\n";
  for (const Edge& e : g.edges) {
    out += "  " + p + std::to_string(e.from) + " -> " + p + std::to_string(e.to);
    switch (e.kind) {
      case Edge::Kind::kControl: break;
      case Edge::Kind::kAlt: out += " [style=dashed]"; break;
      case Edge::Kind::kSpawn: out += " [style=bold,color=blue]"; break;
      case Edge::Kind::kDone: out += " [style=dotted,color=blue]"; break;
      case Edge::Kind::kData: out += " [color=gray,constraint=false]"; break;
    }
    out += ";\n";
  }
  for (const Deadline& d : g.deadlines) {
    if (d.kind == Deadline::Kind::kStream) continue;
    out += "  " + p + std::to_string(d.start) + " -> " + p + std::to_string(d.on_expire) +
           " [style=dashed,color=red,label=\"expired\"];\n";
  }
}

}  // namespace

std::string DotEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string ToDot(const Module& m) {
  std::string out = "digraph uringc {\n  node [fontname=\"monospace\",fontsize=10];\n";
  for (size_t i = 0; i < m.graphs.size(); ++i) Graph1(m.graphs[i], i, out);
  out += "}\n";
  return out;
}

}  // namespace uringc::rgir
