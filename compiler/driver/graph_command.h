// `uringc graph`: the picture of a program's graphs. The request view (view/dot.h) by default,
// the IR view (rgir/dot.h) with --view=ir; DOT on standard output and an SVG through Graphviz's
// `dot` when it is installed, or one of them with --format.
#pragma once

#include <CLI/CLI.hpp>

#include "driver/subcommands.h"

namespace uringc::driver {

/// Declares `graph`'s options and positional on `cmd` (its row in subcommands.cpp).
Runner DeclareGraph(CLI::App& cmd);

}  // namespace uringc::driver
