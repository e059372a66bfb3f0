// Test-only generator: builds the NOP controllers with the compiler/lower building blocks, the way
// the rgir lowering will, before the front end exists. Each program comes with a fake `.uring`
// source whose constructs the instructions point at, so line info and verifier logs can be
// checked against it.
//   - NOP chain: one task issues one NOP at a time, n times (`repeat n { nop() }`); its loop
//     counter lives in the task's slot.
//   - NOP in-flight: K tasks share the counters and keep K NOPs in flight until n complete.
// Globals: `.rodata` `n` (__u64) and the ring constants (`uringc_*`, see bpf_ir/ring.h);
// `.bss` `completed`, `submitted`, `steps` (__u64), `<name>_status`, `<name>_detail`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "diag/diagnostic.h"
#include "emit/codegen.h"
#include "emit/kernel_abi.h"

namespace uringc::testing {

struct NopProgramSpec {
  /// 0 builds the NOP chain; K >= 1 builds the in-flight controller with K tasks.
  uint32_t inflight = 0;
  KernelAbi abi = kDefaultKernelAbi;
  /// Most CQEs reaped per step (the reap loop's constant bound); 0 picks the most that can be
  /// pending, one per task, as the rgir lowering will. 64 matches the hand-written controller.
  uint32_t max_cqes = 0;
  /// Test-only: emit a frame larger than the BPF stack allows, to exercise backend diagnostics.
  bool blow_stack = false;
};

/// "nop_chain" or "nop_inflight".
std::string NopProgramName(const NopProgramSpec& spec);
/// The fake `.uring` source the program's line info points into.
std::string NopProgramSource(const NopProgramSpec& spec);

/// Builds the module and runs codegen. nullopt with diagnostics on failure.
std::optional<std::string> BuildNopProgram(const NopProgramSpec& spec,
                                           const CodegenOptions& options, DiagnosticList& diags,
                                           SourceManager* sources = nullptr);

}  // namespace uringc::testing
