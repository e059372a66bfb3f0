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
  llvm::Value* count = nullptr;        ///< i32: the CQEs reaped
  llvm::Value* cq_tail_ptr = nullptr;  ///< where the kernel publishes the CQ tail
};

/// The CQ for reaping one CQE at a time inside a loop that does other work between CQEs (the
/// multi-task step's event loop): the head lives in the ring, read and written (volatile) at
/// each CQE, so no register carries it around the loop (the verifier then sees no counter in an
/// iterator loop's state); the tail is read once, at Open.
struct CqCursor {
  llvm::Value* head_ptr = nullptr;  ///< ours: the next CQE to reap
  llvm::Value* tail_ptr = nullptr;  ///< the kernel's
  llvm::Value* cqes = nullptr;
  llvm::Value* mask = nullptr;      ///< i32: cq_entries - 1
  llvm::Value* first = nullptr;     ///< i32: the head when the step began
  llvm::Value* tail = nullptr;      ///< i32: the tail when the step began
};
CqCursor OpenCq(StepBuilder& sb, const RingRegions& regions, const RingConstants& rc);
/// The head now (i32); below the tail read at Open means a CQE waits.
llvm::Value* CqHead(StepBuilder& b, const CqCursor& cq);
/// Loads the CQE at `head` (from CqHead) and publishes head + 1.
Cqe TakeCqe(StepBuilder& b, const CqCursor& cq, llvm::Value* head);

/// Reaps at most `max_cqes` CQEs, calling `handler` for each in ring order. The handler emits at
/// the builder's insertion point and may Stop() the step. Up to kMostCountedIterations the loop is
/// counted (the verifier walks it once per possible iteration), beyond an iterator loop
/// (EmitStepLoop), so `max_cqes` may be as large as the completions that can be pending at once.
ReapResult EmitReapLoop(StepBuilder& sb, const RingRegions& regions, const RingConstants& rc,
                        uint32_t max_cqes, const CqeHandler& handler);

}  // namespace uringc
