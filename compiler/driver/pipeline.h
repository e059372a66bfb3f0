// The compiler's pipeline, listed in one place: each row has a name (for --dump-after), a
// one-line description (for --help) and what it prints when dumped. The front end's rows (parse,
// the sema passes, build) are here; the back end's (lower, optimize, codegen) follow them in
// backend_phases.h, beside LLVM, which this library does not link. Adding a pass = adding a row.
#pragma once

#include <functional>
#include <ostream>
#include <string_view>
#include <vector>

#include "driver/compilation.h"

namespace uringc::driver {

struct Phase {
  std::string_view name;
  std::string_view description;
  /// Prints what the phase made (the AST, rgir, LLVM IR) for --dump-after; nullptr when its
  /// result is the output file itself.
  void (*dump)(const Compilation&, std::ostream&);
  /// Runs the phase; false stops the pipeline (errors that later phases cannot work around).
  bool (*run)(Compilation&);
};

/// The front end's phases, in order: parse, the sema passes, build (AST to rgir).
const std::vector<Phase>& FrontendPhases();

/// The phase of `phases` called `name`, or nullptr.
const Phase* FindPhase(const std::vector<Phase>& phases, std::string_view name);

/// Runs `phases` in order up to and including `last` (all when empty), calling `after` after
/// each phase that ran. Returns false when a phase stopped the pipeline.
bool RunPipeline(Compilation& c, const std::vector<Phase>& phases, std::string_view last,
                 const std::function<void(const Phase&)>& after = nullptr);

/// The dumps of the front end's rows: every module's AST (with what sema filled in so far), and
/// the request-graph IR.
void DumpAst(const Compilation& c, std::ostream& out);
void DumpRgir(const Compilation& c, std::ostream& out);

}  // namespace uringc::driver
