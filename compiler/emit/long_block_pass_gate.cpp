// The cheap two-address pass for functions with a very long block; see long_block_pass_gate.h.
#include "emit/long_block_pass_gate.h"

#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"

namespace uringc {
namespace {

// The pass's argument name, which legacy passes give the gate (FunctionPass::skipFunction).
constexpr llvm::StringLiteral kTwoAddressPass = "twoaddressinstruction";

}  // namespace

bool HasLongBlock(const llvm::Function& f) {
  // A block that only branches to a block with no other predecessor continues into it, so the
  // run is one block once SimplifyCFG (or CodeGen Prepare) has merged them: count it whole.
  auto continues_into = [](const llvm::BasicBlock& bb) -> const llvm::BasicBlock* {
    const auto* br = llvm::dyn_cast<llvm::BranchInst>(bb.getTerminator());
    if (br == nullptr || br->isConditional()) return nullptr;
    const llvm::BasicBlock* next = br->getSuccessor(0);
    return next != &bb && next->getSinglePredecessor() == &bb ? next : nullptr;
  };
  for (const llvm::BasicBlock& bb : f) {
    const llvm::BasicBlock* pred = bb.getSinglePredecessor();
    if (pred != nullptr && continues_into(*pred) == &bb) continue;  // counted from its start
    size_t run = 0;
    for (const llvm::BasicBlock* b = &bb; b != nullptr && run < kLongBlockInstructions;
         b = continues_into(*b)) {
      run += b->size();
    }
    if (run >= kLongBlockInstructions) return true;
  }
  return false;
}

LongBlockPassGate::LongBlockPassGate(const llvm::Module& module) {
  for (const llvm::Function& f : module) {
    if (!f.isDeclaration() && HasLongBlock(f)) {
      descriptions_.insert(("function (" + f.getName() + ")").str());
    }
  }
}

bool LongBlockPassGate::shouldRunPass(llvm::StringRef pass, llvm::StringRef ir_description) const {
  return pass != kTwoAddressPass || !descriptions_.contains(ir_description);
}

ScopedPassGate::ScopedPassGate(llvm::LLVMContext& context, llvm::OptPassGate& gate)
    : context_(context), previous_(context.getOptPassGate()) {
  context_.setOptPassGate(gate);
}

ScopedPassGate::~ScopedPassGate() { context_.setOptPassGate(previous_); }

}  // namespace uringc
