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

/// The same loop with an i32 `bound` that may be a placeholder the caller replaces once the body
/// is emitted (a bound that depends on what the body turned out to need).
llvm::Value* EmitBoundedLoop(StepBuilder& sb, llvm::Value* bound,
                             const std::function<llvm::Value*(StepBuilder&, llvm::Value*)>& cond,
                             const std::function<void(StepBuilder&, llvm::Value*)>& body);

/// `cond || rest(sb)`, an i1, with rest's code run only when `cond` is false (a branch and a phi,
/// not a select: the volatile loads in `rest` would run either way).
llvm::Value* EmitLazyOr(StepBuilder& sb, llvm::Value* cond,
                        const std::function<llvm::Value*(StepBuilder&)>& rest);
/// `cond ? if_true : rest(sb)` the same way: rest's code (a volatile load, say) runs only when
/// `cond` is false. On a load-time constant `cond` the verifier drops the branch not taken.
llvm::Value* EmitLazySelect(StepBuilder& sb, llvm::Value* cond, llvm::Value* if_true,
                            const std::function<llvm::Value*(StepBuilder&)>& rest,
                            const char* name);

/// for each k in [0, count): body(k), with `k` an i32 the verifier knows nothing about: its
/// counter lives in a `.bss` word (loaded each turn, so only `k < count` is known), and the loop
/// head is a `may_goto` (Linux 6.9+). Unlike EmitBoundedLoop's, whose counter the verifier
/// tracks exactly and so walks the body once per iteration, this loop is checked until its
/// states repeat (a few walks of the body whatever `count` is): the loop for a wide `parallel`.
/// No kfunc call per turn (bpf_iter_num_next was one). The body must bound `k` itself before
/// indexing with it; it may Stop()/Return(). When the kernel's loop budget for one program run
/// (may_goto's, 8M turns) runs out, the loop ends early.
void EmitIterLoop(StepBuilder& sb, uint32_t count,
                  const std::function<void(StepBuilder&, llvm::Value*)>& body);

/// The same iterator loop that also ends at the first `k` where `cond(k)` is false: for (k in
/// [0, count) while cond(k)) body(k). Returns the iterations run (an i32: `count`, or the `k`
/// where `cond` failed), like EmitBoundedLoop.
llvm::Value* EmitIterLoop(StepBuilder& sb, uint32_t count,
                          const std::function<llvm::Value*(StepBuilder&, llvm::Value*)>& cond,
                          const std::function<void(StepBuilder&, llvm::Value*)>& body);

/// Loops of at most this many iterations are counted (EmitBoundedLoop) by EmitStepLoop: the
/// verifier walks the body once per iteration, and a few walks cost less than the iterator
/// (about 12 instructions more, and a kfunc call per iteration).
inline constexpr uint32_t kMostCountedIterations = 8;

/// The loops of one step over CQEs and ready slots: EmitBoundedLoop up to kMostCountedIterations,
/// else EmitIterLoop, whose verification does not grow with `bound` (a run loop of 64 through a
/// whole run dispatch was refused counted: "The sequence of 8193 jumps is too complex"). The body
/// gets its iteration as an i32 the verifier may know nothing about. Returns the iterations run.
llvm::Value* EmitStepLoop(StepBuilder& sb, uint32_t bound,
                          const std::function<llvm::Value*(StepBuilder&, llvm::Value*)>& cond,
                          const std::function<void(StepBuilder&, llvm::Value*)>& body);

/// Runs `body` on the first step only: a `.bss __u8 <name>` flag remembers that it ran.
void EmitOnce(StepBuilder& sb, const std::string& name, const EmitFn& body);

}  // namespace uringc
