// The front end's pipeline, listed in one place: each phase has a name (for --dump-after), a
// one-line description (for --help) and what it prints when dumped. Adding a pass = adding a row
// in pipeline.cpp.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "driver/compilation.h"

namespace uringc::driver {

struct Phase {
  std::string_view name;
  std::string_view description;
  enum class Dump { kAst, kRgir } dump;
  /// Runs the phase; false stops the pipeline (errors that later phases cannot work around).
  bool (*run)(Compilation&);
};

/// Every phase, in order: parse, the sema passes, lowering to rgir.
const std::vector<Phase>& Pipeline();

/// The phase called `name`, or nullptr.
const Phase* FindPhase(std::string_view name);

/// Runs the phases in order up to and including `last` (all when empty), calling `after` after
/// each phase that ran. Returns false when a phase stopped the pipeline.
bool RunPipeline(Compilation& c, std::string_view last,
                 const std::function<void(const Phase&)>& after = nullptr);

}  // namespace uringc::driver
