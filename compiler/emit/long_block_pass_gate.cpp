// The cheap two-address pass for functions with a very long block; see long_block_pass_gate.h.
#include "emit/long_block_pass_gate.h"

#include "llvm/IR/LLVMContext.h"

namespace uringc {
namespace {

// The pass's argument name, which legacy passes give the gate (FunctionPass::skipFunction).
constexpr llvm::StringLiteral kTwoAddressPass = "twoaddressinstruction";

}  // namespace

bool HasLongBlock(const llvm::Function& f) {
  for (const llvm::BasicBlock& bb : f) {
    if (bb.size() >= kLongBlockInstructions) return true;
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
