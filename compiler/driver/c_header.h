// The C header of a compiled graph (`uringc compile --emit-header`): the program and ops names,
// the parameter region's size, and a typedef per parameter and output, so a host written in C
// can set and read them by name (docs/embedding.md).
#pragma once

#include <string>

#include "rgir/rgir.h"

namespace uringc::driver {

/// The header for graph `g`, compiled from `file` (named in its first comment). With a
/// `host_symbol` (an object made with --target=host) it also declares that descriptor.
std::string CHeader(const rgir::Graph& g, const std::string& file,
                    const std::string& host_symbol = "");

}  // namespace uringc::driver
