// The IR optimisation pipeline uringc runs before code generation. LLVM's per-module O2 pipeline
// (inliner, vectorisers, loop unrolling, eight InstCombine runs, ...) cost 40-60% of a fresh
// `uringc compile -O2` on a controller that is one function with no calls, loops over ring
// entries with constant bounds and no vector code; this file lists the passes that actually
// shrink such a controller. Both levels keep the BPF target's own IR passes (registered through
// the PassBuilder callbacks of the TargetMachine; the backend aborts without some of them).
#pragma once

#include "emit/target.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

namespace uringc {

/// Runs the O0 pipeline (only what the BPF backend requires) or uringc's O2 pipeline on `module`.
void RunOptPipeline(llvm::Module& module, llvm::TargetMachine& tm, OptLevel level);

}  // namespace uringc
