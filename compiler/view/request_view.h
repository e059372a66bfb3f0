// The request-level picture of a graph (`uringc graph`, the default view): what a user reads,
// not what code generation needs. rgir has a node per assignment and branch; this model keeps
// only the requests, the values that flow from one request's result into another's operands,
// where control goes after each request (including errors and timeouts), and the constructs that
// group requests: `parallel`/`all`/`any`, loops, deadlines and the fn calls they come from.
// Built from rgir (BuildRequestView) and written as DOT (view/dot.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rgir/rgir.h"

namespace uringc::view {

inline constexpr uint32_t kNone = UINT32_MAX;

/// A box of the picture: a request, or the graph's start, end (its outputs) or failure exit.
struct ViewNode {
  enum class Kind : uint8_t { kStart, kEnd, kFail, kRequest };
  Kind kind = Kind::kRequest;
  std::string label;       ///< `read(sock, buf[c])`, or `start`, `end`, `fail`
  std::string where;       ///< `echo.uring:10` (requests only)
  std::string note;        ///< `within 1 s` on a request, the outputs on the end node
  uint32_t cluster = kNone;       ///< innermost ViewCluster holding it
  rgir::NodeId ir = rgir::kNone;  ///< the rgir node it stands for (requests only)
};

/// A group of requests drawn as a DOT cluster.
struct ViewCluster {
  enum class Kind : uint8_t { kFork, kLoop, kDeadline, kCall };
  Kind kind = Kind::kLoop;
  /// The construct's source head: `any`, `parallel c in 0..64`, `within 10 ms`; for a fn call
  /// (the fn's requests are inside), the call and its line:
  /// `write_all(dst, buf[lane][..n], off)\ncopy.uring:13`.
  std::string label;
  uint32_t parent = kNone;
};

struct ViewEdge {
  enum class Kind : uint8_t {
    kNext,     ///< control goes on from `from` to `to`
    kValue,    ///< `from`'s result flows into `to` as `label`
    kError,    ///< a failure after `from` goes to `to` (a handler, or the failure exit)
    kTimeout,  ///< a deadline of `from` (or of cluster `from_cluster`) expires and goes to `to`
  };
  Kind kind = Kind::kNext;
  uint32_t from = 0, to = 0;
  std::string label;
  uint32_t from_cluster = kNone;  ///< kTimeout of a block deadline: leaves this cluster
};

struct GraphView {
  std::string name;
  std::vector<ViewNode> nodes;  ///< start, end, fail, then the requests in rgir order
  std::vector<ViewCluster> clusters;
  std::vector<ViewEdge> edges;
};

inline constexpr uint32_t kStartNode = 0;
inline constexpr uint32_t kEndNode = 1;
inline constexpr uint32_t kFailNode = 2;

/// The request view of one rgir graph; `sources` gives the request text and lines.
GraphView BuildRequestView(const rgir::Graph& g, const SourceManager& sources);

}  // namespace uringc::view
