// `uringc check --emit=rgir`: the request-graph IR as stable text (golden-tested in
// tests/compiler/files). One line per param, var, task, deadline and node.
#pragma once

#include <string>

#include "rgir/rgir.h"

namespace uringc::rgir {

std::string Print(const Module& m);
std::string Print(const Graph& g);
/// An expression as printed in node lines: `off#3`, `@buf`, `(n#4 + 1)`, `slice(...)`.
std::string PrintExpr(const Graph& g, const Expr& e);

}  // namespace uringc::rgir
