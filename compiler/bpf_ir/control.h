// Structured control flow for lowering: if/else and loops with a constant bound. The verifier
// only accepts loops it can prove finite, so every loop emitted here counts up to a compile-time
// constant, whatever other exit condition it has. Bodies are callbacks that emit at the builder's
// insertion point; they may Stop()/Return(), after which the builder sits in an unreachable block.
#pragma once

#include <cstdint>
#include <functional>

#include "bpf_ir/step_builder.h"

namespace uringc {

using EmitFn = std::function<void(StepBuilder&)>;

/// if (cond) then_fn else else_fn (either may be empty); emission continues after the join.
void EmitIf(StepBuilder& sb, llvm::Value* cond, const EmitFn& then_fn, const EmitFn& else_fn = {});

/// for (i = 0; i < bound && cond(i); i++) body(i), with `i` an i32. `cond` may be empty. Returns
/// the value of `i` after the loop (the number of iterations run), an i32.
llvm::Value* EmitBoundedLoop(StepBuilder& sb, uint32_t bound,
                             const std::function<llvm::Value*(StepBuilder&, llvm::Value*)>& cond,
                             const std::function<void(StepBuilder&, llvm::Value*)>& body);

/// Runs `body` on the first step only: a `.bss __u8 <name>` flag remembers that it ran.
void EmitOnce(StepBuilder& sb, const std::string& name, const EmitFn& body);

}  // namespace uringc
