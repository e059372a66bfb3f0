// `uringc ublk`: declared beside `run` because it compiles a target and serves it with the
// runtime (ublk_compiled.cpp); registered by BackendMain.
#pragma once

#include <CLI/CLI.hpp>

#include "driver/subcommands.h"

namespace uringc::driver {

/// Declares `uringc ublk add` and `uringc ublk del` on `cmd`.
Runner DeclareUblk(CLI::App& cmd);

}  // namespace uringc::driver
