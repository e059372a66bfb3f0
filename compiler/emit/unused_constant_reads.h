// Why: the lowering reads load-time constants (`.rodata` globals the loader fills in, such as the
// ring's sizes and uringc_fixed_<p>) with volatile loads, so that LLVM does not fold them to the
// zeros they are compiled with. Volatile loads are never deleted, so a read whose every use the
// optimiser removed stays in the object: the SQ's size read for an SQE's index that became the
// constant 0 (an SQ_REWIND ring, the step's first SQE), two instructions each. Reading constant
// memory has no effect besides its value, so after the optimisation pipeline a volatile load of
// a constant `.rodata` global (or a constant offset into one) that nothing uses is deleted.
#pragma once

#include "llvm/IR/PassManager.h"

namespace uringc {

class DropUnusedConstantReads : public llvm::PassInfoMixin<DropUnusedConstantReads> {
 public:
  llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager& fam);
  static bool isRequired() { return false; }
};

}  // namespace uringc
