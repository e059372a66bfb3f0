// Why: LLVM's two-address pass is quadratic in the length of a basic block. For each
// two-address instruction (every BPF ALU instruction) it follows the chain of last uses that are
// themselves two-address instructions to the end of the block (TwoAddressInstructionPass's
// scanUses, looking for copies to commute away). Straight-line arithmetic is one such chain:
// a 10,000-line `arith` program spent two thirds of its compile time there (1.6 s of 2.3 s of
// code generation). Splitting the block in the IR does not survive to machine code (CodeGen
// Prepare merges the pieces) and a `freeze` between pieces is folded away before instruction
// selection, so for a function with a block this long the pass runs without its optimisations
// (what it does at -O0: the tied operands get a copy each, which the register coalescer then
// mostly removes; `arith 10000` is 6% more instructions). Every example's longest block is
// under 90 IR instructions, so examples are compiled exactly as before. The same test keeps
// the optimisation pipeline's two InstCombines off such a function (opt_pipeline.cpp): on
// `arith 10000` they took 180 ms (each walks known bits through the dense chain), and the
// object came out 9 instructions smaller without them. There the test runs before SimplifyCFG
// has merged the lowering's blocks, so a run of blocks that only fall into each other (each
// the next one's only predecessor) counts as one block.
#pragma once

#include <cstddef>

#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/OptBisect.h"

namespace uringc {

/// A function with a basic block of at least this many IR instructions gets the cheap
/// two-address pass (the examples' longest block has 54; `arith 1000` has about 2,000).
inline constexpr size_t kLongBlockInstructions = 1024;

/// Whether `f` has a block of at least kLongBlockInstructions instructions, counting a chain of
/// blocks joined by unconditional branches to a sole successor as one. The optimisation
/// pipeline skips InstCombine on such a function (opt_pipeline.cpp).
bool HasLongBlock(const llvm::Function& f);

/// Refuses the two-address pass's optimisations for the functions of `module` with a block of
/// at least kLongBlockInstructions instructions; every other pass and function runs as usual.
/// Install it with ScopedPassGate for the code generation run.
class LongBlockPassGate : public llvm::OptPassGate {
 public:
  explicit LongBlockPassGate(const llvm::Module& module);
  bool shouldRunPass(llvm::StringRef pass, llvm::StringRef ir_description) const override;
  bool isEnabled() const override { return !descriptions_.empty(); }

 private:
  // LLVM's description of each such function's IR: "function (name)".
  llvm::StringSet<> descriptions_;
};

/// Sets `gate` as the context's pass gate for its lifetime and puts the previous one back.
class ScopedPassGate {
 public:
  ScopedPassGate(llvm::LLVMContext& context, llvm::OptPassGate& gate);
  ~ScopedPassGate();
  ScopedPassGate(const ScopedPassGate&) = delete;
  ScopedPassGate& operator=(const ScopedPassGate&) = delete;

 private:
  llvm::LLVMContext& context_;
  llvm::OptPassGate& previous_;
};

}  // namespace uringc
