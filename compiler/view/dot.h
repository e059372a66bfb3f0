// `uringc graph` (the default, `--view=requests`): the request view of every graph of a module
// in Graphviz DOT. Requests are yellow boxes with their source line; black edges say where
// control goes next, blue labelled edges carry a result into a later request (or an output),
// dashed red edges are errors and dashed orange edges timeouts; `parallel`/`all`/`any`, loops
// and deadlines are clusters. docs/graph.md shows how to read it.
#pragma once

#include <string>

#include "view/request_view.h"

namespace uringc::view {

/// DOT of the request views of `m`'s graphs, one top-level cluster each.
std::string ToDot(const rgir::Module& m, const SourceManager& sources);

}  // namespace uringc::view
