// The request view's DOT writer (see dot.h). Node and cluster names are stable (g0_r5,
// cluster_g0_c2) so the goldens in tests/compiler/view/golden change only when the picture does.
#include "view/dot.h"

#include "rgir/dot.h"

namespace uringc::view {
namespace {

std::string Quote(const std::string& s) { return "\"" + rgir::DotEscape(s) + "\""; }

class Writer {
 public:
  Writer(const GraphView& v, size_t gi, std::string& out)
      : v_(v), p_("g" + std::to_string(gi)), out_(out) {}

  void Write() {
    out_ += "  subgraph cluster_" + p_ + " {\n    label=" + Quote("graph " + v_.name) + ";\n";
    bool fails = false;
    for (const ViewEdge& e : v_.edges) fails = fails || e.to == kFailNode;
    for (uint32_t i = 0; i < v_.nodes.size(); ++i) {
      if (v_.nodes[i].cluster == kNone && (i != kFailNode || fails)) Node(i, "    ");
    }
    for (uint32_t c = 0; c < v_.clusters.size(); ++c) {
      if (v_.clusters[c].parent == kNone) Cluster(c, "    ");
    }
    out_ += "  }\n";
    for (const ViewEdge& e : v_.edges) Edge(e);
  }

 private:
  std::string NodeName(uint32_t i) const {
    switch (i) {
      case kStartNode: return p_ + "_start";
      case kEndNode: return p_ + "_end";
      case kFailNode: return p_ + "_fail";
      default: return p_ + "_r" + std::to_string(i);
    }
  }
  bool Inside(uint32_t node, uint32_t cluster) const {
    for (uint32_t k = v_.nodes[node].cluster; k != kNone; k = v_.clusters[k].parent) {
      if (k == cluster) return true;
    }
    return false;
  }
  std::string ClusterName(uint32_t c) const { return "cluster_" + p_ + "_c" + std::to_string(c); }

  void Node(uint32_t i, const std::string& indent) {
    const ViewNode& n = v_.nodes[i];
    std::string label = n.label;
    if (!n.where.empty()) label += "\n" + n.where;
    if (!n.note.empty()) label += "\n" + n.note;
    const char* shape = "";
    switch (n.kind) {
      case ViewNode::Kind::kStart: shape = "shape=oval,style=filled,fillcolor=palegreen"; break;
      case ViewNode::Kind::kEnd: shape = "shape=oval,peripheries=2"; break;
      case ViewNode::Kind::kFail: shape = "shape=octagon,color=red,fontcolor=red"; break;
      case ViewNode::Kind::kRequest:
        shape = "shape=box,style=\"rounded,filled\",fillcolor=lightyellow";
        break;
    }
    out_ += indent + NodeName(i) + " [label=" + Quote(label) + "," + shape + "];\n";
  }

  void Cluster(uint32_t c, const std::string& indent) {
    const ViewCluster& k = v_.clusters[c];
    const char* style = "";
    switch (k.kind) {
      case ViewCluster::Kind::kFork: style = "style=\"rounded,bold\"; color=blue"; break;
      case ViewCluster::Kind::kLoop: style = "style=rounded; color=gray40"; break;
      case ViewCluster::Kind::kDeadline: style = "style=dashed; color=darkorange"; break;
      case ViewCluster::Kind::kCall: style = "style=dotted; color=gray30"; break;
    }
    out_ += indent + "subgraph " + ClusterName(c) + " {\n" + indent + "  label=" +
            Quote(k.label) + "; " + style + ";\n";
    for (uint32_t i = 0; i < v_.nodes.size(); ++i)
      if (v_.nodes[i].cluster == c) Node(i, indent + "  ");
    for (uint32_t d = 0; d < v_.clusters.size(); ++d)
      if (v_.clusters[d].parent == c) Cluster(d, indent + "  ");
    out_ += indent + "}\n";
  }

  void Edge(const ViewEdge& e) {
    out_ += "  " + NodeName(e.from) + " -> " + NodeName(e.to);
    std::string attrs;
    switch (e.kind) {
      case ViewEdge::Kind::kNext: break;
      case ViewEdge::Kind::kValue:
        attrs = "color=blue,fontcolor=blue,constraint=false,label=" + Quote(e.label);
        break;
      case ViewEdge::Kind::kError:
        attrs = "style=dashed,color=red,fontcolor=red,label=" + Quote(e.label);
        break;
      case ViewEdge::Kind::kTimeout:
        attrs = "style=dashed,color=darkorange,fontcolor=darkorange,label=" + Quote(e.label);
        // Drawn from the cluster's border, unless it comes back into the cluster (Graphviz
        // cannot clip such an edge).
        if (e.from_cluster != kNone && !Inside(e.to, e.from_cluster))
          attrs += ",ltail=" + ClusterName(e.from_cluster);
        break;
    }
    out_ += attrs.empty() ? ";\n" : " [" + attrs + "];\n";
  }

  const GraphView& v_;
  const std::string p_;
  std::string& out_;
};

}  // namespace

std::string ToDot(const rgir::Module& m, const SourceManager& sources) {
  std::string out =
      "digraph uringc {\n  compound=true;\n  graph [fontname=\"monospace\",fontsize=11];\n"
      "  node [fontname=\"monospace\",fontsize=10];\n"
      "  edge [fontname=\"monospace\",fontsize=9];\n";
  for (size_t i = 0; i < m.graphs.size(); ++i) {
    const GraphView v = BuildRequestView(m.graphs[i], sources);
    Writer(v, i, out).Write();
  }
  return out + "}\n";
}

}  // namespace uringc::view
