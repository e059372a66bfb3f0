// The build phase: AST (checked by sema, no errors) -> rgir. One rgir::Graph per `graph` of the root module; user
// fns are inlined at each call. A program whose inlined graph would exceed `max_nodes` gets a
// GraphTooLarge error instead (nested fns can multiply), and nullptr is returned.
#pragma once

#include <memory>

#include "uringc/diag/diagnostic.h"
#include "rgir/rgir.h"
#include "sema/program.h"

namespace uringc::build {

std::unique_ptr<rgir::Module> BuildRgir(const sema::Program& program, DiagnosticList& diagnostics,
                                    uint32_t max_nodes = 200000);

}  // namespace uringc::build
