// Test helper for the back-end tests that change a lowered module before code generation: loads
// a .uring file, runs the front end and lowers its first graph into a BpfModule, the set-up the
// driver does before `Codegen`.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "driver/compilation.h"
#include "driver/pipeline.h"
#include "lower/lower.h"

namespace uringc::testing {

struct LoweredGraph {
  driver::Compilation c;
  const rgir::Graph* graph = nullptr;
  std::unique_ptr<BpfModule> module;
};

/// nullptr (after a test failure saying why) when the file does not load or lower.
inline std::unique_ptr<LoweredGraph> LowerFirstGraph(const std::string& file, bool optimized) {
  auto lowered = std::make_unique<LoweredGraph>();
  driver::Compilation& c = lowered->c;
  std::string io_error;
  if (!c.LoadRoot(file, io_error)) {
    ADD_FAILURE() << file << ": " << io_error;
    return nullptr;
  }
  driver::RunPipeline(c, driver::FrontendPhases(), "");
  if (c.rgir == nullptr || c.rgir->graphs.empty()) {
    ADD_FAILURE() << file << ": the front end gave no graph";
    return nullptr;
  }
  lowered->graph = &c.rgir->graphs.front();
  lowered->module =
      std::make_unique<BpfModule>(BpfModuleOptions{.name = lowered->graph->name,
                                                   .sources = &c.sources,
                                                   .main_file = lowered->graph->range.file,
                                                   .optimized = optimized});
  if (!LowerGraphToBpf(*lowered->graph, *lowered->module, GraphLoweringOptions{}, c.diagnostics)) {
    ADD_FAILURE() << file << ": lowering failed";
    return nullptr;
  }
  return lowered;
}

}  // namespace uringc::testing
