// BuildRequestView (request_view.h): the start, end and failure nodes, a node per request, then
// the clusters, the control edges and the value edges, each from its own file (passes.h).
#include "rgir/printer.h"
#include "view/passes.h"

namespace uringc::view {
namespace {

using rgir::Node;

std::string Duration(const rgir::Graph& g, const rgir::Expr& e) {
  if (e.op != rgir::Expr::Op::kConst) return rgir::PrintExpr(g, e);
  const uint64_t v = e.value;
  if (v != 0 && v % 1000000000 == 0) return std::to_string(v / 1000000000) + " s";
  if (v != 0 && v % 1000000 == 0) return std::to_string(v / 1000000) + " ms";
  if (v != 0 && v % 1000 == 0) return std::to_string(v / 1000) + " us";
  return std::to_string(v) + " ns";
}

// `read(f, b) within 1 s else fail` without its `within` (the node's note says it, and the
// timeout edge where it goes).
std::string WithoutWithin(const std::string& text) {
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(' || text[i] == '[') ++depth;
    if (text[i] == ')' || text[i] == ']') --depth;
    if (depth == 0 && text.compare(i, 8, " within ") == 0) return text.substr(0, i);
  }
  return text;
}

// The request as written (`read(sock, buf[c])`); rgir's own spelling when it has no source.
std::string RequestText(const rgir::Graph& g, const SourceManager& sources, const Node& n) {
  if (n.kind == Node::Kind::kStreamWait) {
    const rgir::Deadline& d = g.deadlines[n.scope];
    if (std::string text = OneLine(sources, d.range); !text.empty()) return text;
    return "recv_each(" + rgir::PrintExpr(g, d.socket) + ", " + g.params[d.pool].name + ")";
  }
  std::string text = OneLine(sources, n.range);
  if (!text.empty()) return n.timeout ? WithoutWithin(text) : text;
  text = std::string(sema::Request(n.request).name) + "(";
  for (size_t a = 0; a < n.args.size(); ++a)
    text += (a ? ", " : "") + rgir::PrintExpr(g, n.args[a]);
  return text + ")";
}

std::string Names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

GraphView BuildRequestView(const rgir::Graph& g, const SourceManager& sources) {
  GraphView view;
  view.name = g.name;
  std::vector<std::string> params, outputs;
  for (const rgir::Param& p : g.params) params.push_back(p.name);
  for (const rgir::Var& v : g.vars)
    if (v.kind == rgir::Var::Kind::kOutput) outputs.push_back(v.name);
  view.nodes.push_back({ViewNode::Kind::kStart, "start", "", g.name + "(" + Names(params) + ")"});
  view.nodes.push_back(
      {ViewNode::Kind::kEnd, "end", "", outputs.empty() ? "" : "-> " + Names(outputs)});
  view.nodes.push_back({ViewNode::Kind::kFail, "fail", "", "-errno"});

  const ClusterMap clusters = BuildClusters(g, sources, view);
  std::vector<uint32_t> view_of(g.nodes.size(), kNone);
  for (rgir::NodeId i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.kind != Node::Kind::kRequest && n.kind != Node::Kind::kStreamWait) continue;
    const SourceRange at = n.kind == Node::Kind::kStreamWait ? g.deadlines[n.scope].range : n.range;
    ViewNode v{ViewNode::Kind::kRequest, RequestText(g, sources, n),
               Where(sources, at, g.range.file), ""};
    if (n.timeout) {
      v.note = "within " + Duration(g, *n.timeout);
      if (n.alt == rgir::kNone) v.note += " (else -ETIME)";
    }
    v.cluster = clusters.of_node[i];
    v.ir = i;
    view_of[i] = static_cast<uint32_t>(view.nodes.size());
    view.nodes.push_back(std::move(v));
  }
  AddControlEdges(g, view_of, clusters, view);
  AddValueEdges(g, view_of, view);
  return view;
}

}  // namespace uringc::view
