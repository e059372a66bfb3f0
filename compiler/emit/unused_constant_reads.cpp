// Deleting volatile reads of load-time constants that nothing uses; see unused_constant_reads.h.
#include "emit/unused_constant_reads.h"

#include <vector>

#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"

namespace uringc {
namespace {

// `load volatile` of a constant global in `.rodata`, directly or at a constant offset.
bool ReadsLoadTimeConstant(const llvm::LoadInst& load) {
  const auto* gv = llvm::dyn_cast<llvm::GlobalVariable>(
      load.getPointerOperand()->stripInBoundsConstantOffsets());
  return gv != nullptr && gv->isConstant() && gv->getSection() == ".rodata";
}

}  // namespace

llvm::PreservedAnalyses DropUnusedConstantReads::run(llvm::Function& f,
                                                     llvm::FunctionAnalysisManager&) {
  std::vector<llvm::LoadInst*> dead;
  for (llvm::BasicBlock& block : f) {
    for (llvm::Instruction& inst : block) {
      auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst);
      if (load != nullptr && load->isVolatile() && load->use_empty() &&
          ReadsLoadTimeConstant(*load)) {
        dead.push_back(load);
      }
    }
  }
  for (llvm::LoadInst* load : dead) load->eraseFromParent();
  if (dead.empty()) return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses kept;
  kept.preserveSet<llvm::CFGAnalyses>();
  return kept;
}

}  // namespace uringc
