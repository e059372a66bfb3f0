// The rgir text printer (see printer.h). Variables print as `name#id`, parameters as `@name`,
// node ids as `nK`, task ids as `tK`, deadline scopes as `dK`. Positions are byte offsets, not
// lines, so the output does not depend on how a file was edited around the graph.
#include "rgir/printer.h"

namespace uringc::rgir {
namespace {

std::string Id(char prefix, uint32_t id) {
  return id == kNone ? std::string("-") : prefix + std::to_string(id);
}

const char* KindName(Node::Kind k) {
  switch (k) {
    case Node::Kind::kEntry: return "entry";
    case Node::Kind::kExit: return "exit";
    case Node::Kind::kNop: return "nop";
    case Node::Kind::kAssign: return "assign";
    case Node::Kind::kBranch: return "branch";
    case Node::Kind::kRequest: return "request";
    case Node::Kind::kFork: return "fork";
    case Node::Kind::kJoin: return "join";
    case Node::Kind::kRace: return "race";
    case Node::Kind::kDeadlineStart: return "deadline.start";
    case Node::Kind::kDeadlineEnd: return "deadline.end";
    case Node::Kind::kRaise: return "raise";
    case Node::Kind::kStop: return "stop";
    case Node::Kind::kStreamWait: return "stream.wait";
    case Node::Kind::kStreamRelease: return "stream.release";
  }
  return "?";
}

const char* TaskKind(Task::Kind k) {
  switch (k) {
    case Task::Kind::kRoot: return "root";
    case Task::Kind::kParallel: return "parallel";
    case Task::Kind::kBranch: return "branch";
    case Task::Kind::kArm: return "arm";
  }
  return "?";
}

std::string ConstText(const Type& t, uint64_t v) {
  if (t.kind == Type::Kind::kBool) return v ? "true" : "false";
  if (t.kind == Type::Kind::kDuration) {
    // The largest unit that divides the value exactly: 10ms, 1s, 1500us.
    if (v != 0 && v % 1000000000 == 0) return std::to_string(v / 1000000000) + "s";
    if (v != 0 && v % 1000000 == 0) return std::to_string(v / 1000000) + "ms";
    if (v != 0 && v % 1000 == 0) return std::to_string(v / 1000) + "us";
    return std::to_string(v) + "ns";
  }
  if ((t.kind == Type::Kind::kInt && t.is_signed) || t.kind == Type::Kind::kFd) {
    return std::to_string(static_cast<int64_t>(v));
  }
  return std::to_string(v);
}

}  // namespace

std::string PrintExpr(const Graph& g, const Expr& e) {
  auto ops = [&](const char* name) {
    std::string s = std::string(name) + "(";
    for (size_t i = 0; i < e.operands.size(); ++i)
      s += (i ? ", " : "") + PrintExpr(g, e.operands[i]);
    return s + ")";
  };
  switch (e.op) {
    case Expr::Op::kConst: return ConstText(e.type, e.value);
    case Expr::Op::kVar:
      return (e.id < g.vars.size() ? g.vars[e.id].name : "?") + "#" + std::to_string(e.id);
    case Expr::Op::kParam: return "@" + (e.id < g.params.size() ? g.params[e.id].name : "?");
    case Expr::Op::kUnary:
      return std::string(Spelling(e.unary_op)) + PrintExpr(g, e.operands.at(0));
    case Expr::Op::kBinary:
      return "(" + PrintExpr(g, e.operands.at(0)) + " " + std::string(Spelling(e.binary_op)) + " " +
             PrintExpr(g, e.operands.at(1)) + ")";
    case Expr::Op::kCast: return e.type.ToString() + "(" + PrintExpr(g, e.operands.at(0)) + ")";
    case Expr::Op::kMin: return ops("min");
    case Expr::Op::kMax: return ops("max");
    case Expr::Op::kLen: return ops("len");
    case Expr::Op::kBuffer:
      return "@" + (e.id < g.params.size() ? g.params[e.id].name : "?") + "[" +
             PrintExpr(g, e.operands.at(0)) + "]" + (e.runtime_check ? "!check" : "");
    case Expr::Op::kSlice:
      return PrintExpr(g, e.operands.at(0)) + "[" + PrintExpr(g, e.operands.at(1)) + ".." +
             PrintExpr(g, e.operands.at(2)) + "]" + (e.runtime_check ? "!clamp" : "");
    case Expr::Op::kLiteral:
      return "literal#" + std::to_string(e.id) + "(" +
             std::to_string(e.id < g.literals.size() ? g.literals[e.id].size() : 0) + " bytes)";
    case Expr::Op::kLoad:
    case Expr::Op::kStore: {
      const uint32_t bytes = DataAccessBytes(e.value);
      const std::string name = std::string(e.op == Expr::Op::kLoad ? "load." : "store.") +
                               std::to_string(bytes * 8) +
                               (bytes == 1 ? "" : DataAccessBigEndian(e.value) ? "be" : "le");
      return ops(name.c_str());
    }
    case Expr::Op::kCopy: return ops("copy_bytes");
    case Expr::Op::kEqual: return ops("equal_bytes");
    case Expr::Op::kCopyFromUser: return ops("copy_from_user");
    case Expr::Op::kAddressOf: return ops("address_of");
  }
  return "?";
}

std::string Print(const Graph& g) {
  std::string out = "graph " + g.name + "\n";
  for (size_t i = 0; i < g.params.size(); ++i)
    out += "  param @" + g.params[i].name + ": " + g.params[i].type.ToString() + "\n";
  for (size_t i = 0; i < g.vars.size(); ++i) {
    const Var& v = g.vars[i];
    const char* kind = v.kind == Var::Kind::kOutput ? "output" : v.kind == Var::Kind::kTemp ? "temp" : "local";
    out += "  var " + v.name + "#" + std::to_string(i) + ": " + v.type.ToString() + " " + kind +
           " " + Id('t', v.task) + "\n";
  }
  for (size_t i = 0; i < g.tasks.size(); ++i) {
    const Task& t = g.tasks[i];
    out += "  task t" + std::to_string(i) + " " + t.name + " " + TaskKind(t.kind);
    if (t.parent != kNone) out += " parent " + Id('t', t.parent) + " fork " + Id('n', t.fork);
    if (t.kind == Task::Kind::kParallel) {
      out += " x" + std::to_string(t.instances) + " index " +
             g.vars[t.index_var].name + "#" + std::to_string(t.index_var) + " from " +
             std::to_string(t.index_base);
    }
    if (t.result_var != kNone) out += " result #" + std::to_string(t.result_var);
    out += " entry " + Id('n', t.entry) + "\n";
  }
  for (size_t i = 0; i < g.deadlines.size(); ++i) {
    const Deadline& d = g.deadlines[i];
    if (d.kind == Deadline::Kind::kStream) {
      out += "  stream d" + std::to_string(i) + " " + Id('t', d.task) + " recv_each(" +
             PrintExpr(g, d.socket) + ", " + g.params[d.pool].name + ") chunk " +
             g.vars[d.chunk].name + "#" + std::to_string(d.chunk) + " start " + Id('n', d.start) +
             (d.parent != kNone ? " in " + Id('d', d.parent) : "") + "\n";
      continue;
    }
    out += "  deadline d" + std::to_string(i) + " " + Id('t', d.task) + " after " +
           PrintExpr(g, d.duration) + " start " + Id('n', d.start) + " expire " +
           Id('n', d.on_expire) + (d.parent != kNone ? " in " + Id('d', d.parent) : "") + "\n";
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    std::string line = "  n" + std::to_string(i) + " " + Id('t', n.task) + " " + KindName(n.kind);
    switch (n.kind) {
      case Node::Kind::kAssign:
        if (n.var == kNone) {
          line += " " + PrintExpr(g, *n.value);
        } else {
          line += " " + g.vars[n.var].name + "#" + std::to_string(n.var) + " = " +
                  PrintExpr(g, *n.value);
        }
        break;
      case Node::Kind::kBranch: line += " " + PrintExpr(g, *n.value); break;
      case Node::Kind::kRequest: {
        line += " " + std::string(sema::Request(n.request).name) + "(";
        for (size_t a = 0; a < n.args.size(); ++a) line += (a ? ", " : "") + PrintExpr(g, n.args[a]);
        line += ")";
        if (n.var != kNone) line += " -> " + g.vars[n.var].name + "#" + std::to_string(n.var);
        if (n.timeout) line += " within " + PrintExpr(g, *n.timeout);
        break;
      }
      case Node::Kind::kFork:
        line += " [";
        for (size_t t = 0; t < n.tasks.size(); ++t) line += (t ? " " : "") + Id('t', n.tasks[t]);
        line += "]";
        break;
      case Node::Kind::kJoin:
        line += " " + Id('n', n.fork) + " errno " + g.vars[n.var].name + "#" + std::to_string(n.var);
        break;
      case Node::Kind::kRace:
        line += " " + Id('n', n.fork) + " arms [";
        for (size_t a = 0; a < n.arms.size(); ++a) line += (a ? " " : "") + Id('n', n.arms[a]);
        line += "]";
        if (n.var != kNone) line += " errno " + g.vars[n.var].name + "#" + std::to_string(n.var);
        break;
      case Node::Kind::kDeadlineStart:
      case Node::Kind::kDeadlineEnd:
      case Node::Kind::kStreamRelease: line += " " + Id('d', n.scope); break;
      case Node::Kind::kStreamWait:
        line += " " + Id('d', n.scope) + " status " + g.vars[n.var].name + "#" +
                std::to_string(n.var);
        break;
      case Node::Kind::kRaise:
        line += " " + PrintExpr(g, *n.value);
        if (n.var != kNone) line += " into " + g.vars[n.var].name + "#" + std::to_string(n.var);
        break;
      default: break;
    }
    if (n.deadline != kNone) line += " in " + Id('d', n.deadline);
    if (n.next != kNone) line += " -> " + Id('n', n.next);
    if (n.alt != kNone) line += " else " + Id('n', n.alt);
    out += line + "\n";
  }
  return out;
}

std::string Print(const Module& m) {
  std::string out;
  for (const Graph& g : m.graphs) out += Print(g);
  return out;
}

}  // namespace uringc::rgir
