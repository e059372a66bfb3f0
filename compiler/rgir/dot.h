// `uringc graph FILE`: the request graph in Graphviz DOT. One cluster per task; requests are
// boxes, branches diamonds, fork/join/race bars; solid edges are control flow, dashed edges the
// alternative path (false branch, timeout, failure), bold blue edges start tasks, dotted edges
// end them, and gray edges carry a request's result to the nodes that use it.
#pragma once

#include <string>

#include "rgir/rgir.h"

namespace uringc::rgir {

std::string ToDot(const Module& m);

/// Text for inside a DOT string: quotes and backslashes escaped, line breaks as `\n`.
std::string DotEscape(const std::string& s);

}  // namespace uringc::rgir
