// The steps of BuildRequestView (build.cpp), one file each: the clusters (clusters.cpp), the
// control, error and timeout edges (control_edges.cpp) and the value edges (value_edges.cpp),
// with the source-text helpers they share (source_text.cpp).
#pragma once

#include <string>
#include <vector>

#include "view/request_view.h"

namespace uringc::view {

/// Where each rgir node and deadline scope sits among the view's clusters.
struct ClusterMap {
  std::vector<uint32_t> of_node;      ///< per rgir node: innermost cluster, or kNone
  std::vector<uint32_t> of_deadline;  ///< per rgir deadline scope: its cluster, or kNone
};

/// Adds a cluster per fork (`parallel`, `all`, `any`), loop, block deadline and inlined fn call
/// that holds a request, nested as in the program, and says which cluster each rgir node is in.
ClusterMap BuildClusters(const rgir::Graph& g, const SourceManager& sources, GraphView& view);

/// Adds kNext, kError and kTimeout edges between the view's nodes; `view_of` maps an rgir
/// request node to its view node (kNone for other nodes).
void AddControlEdges(const rgir::Graph& g, const std::vector<uint32_t>& view_of,
                     const ClusterMap& clusters, GraphView& view);

/// Adds a kValue edge from each request to every request (and the end node, for outputs) that
/// reads its result, directly or through assignments, labelled with the result's name.
void AddValueEdges(const rgir::Graph& g, const std::vector<uint32_t>& view_of, GraphView& view);

/// The source text of `r` on one line (whitespace runs become one space), cut at `max` bytes.
std::string OneLine(const SourceManager& sources, SourceRange r, size_t max = 60);

/// The head of a construct: its text up to the first `{`, on one line (`parallel c in 0..64`).
std::string Head(const SourceManager& sources, SourceRange r);

/// `echo.uring:10`: the file's base name and the line where `r` begins; `std/io.uring:19` (with
/// its folder) when `r` is in another file than `home`, a module. Empty without a file.
std::string Where(const SourceManager& sources, SourceRange r, uint32_t home);

}  // namespace uringc::view
