// Reaping completions: read the CQ head (ours) and tail (the kernel's), walk the CQEs between them
// with a constant bound per step, hand each to a handler, then publish the new head. CQEs beyond
// the bound stay in the ring for the next step (the step's ending then wakes at once).
#pragma once

#include <cstdint>
#include <functional>

#include "bpf_ir/ring.h"

namespace uringc {

/// One completion, loaded from the CQ ring.
struct Cqe {
  llvm::Value* user_data = nullptr;  ///< i64
  llvm::Value* res = nullptr;        ///< i32, negative errno on failure
  llvm::Value* flags = nullptr;      ///< i32 (IORING_CQE_F_*)
};

using CqeHandler = std::function<void(StepBuilder&, const Cqe&)>;

struct ReapResult {
  llvm::Value* head = nullptr;         ///< i32: the CQ head after reaping (already published)
  llvm::Value* cq_tail_ptr = nullptr;  ///< where the kernel publishes the CQ tail
};

/// Reaps at most `max_cqes` CQEs, calling `handler` for each in ring order. The handler emits at
/// the builder's insertion point and may Stop() the step. Up to kMostCountedIterations the loop is
/// counted (the verifier walks it once per possible iteration), beyond an iterator loop
/// (EmitStepLoop), so `max_cqes` may be as large as the completions that can be pending at once.
ReapResult EmitReapLoop(StepBuilder& sb, const RingRegions& regions, const RingConstants& rc,
                        uint32_t max_cqes, const CqeHandler& handler);

}  // namespace uringc
