// Submitting: SQEs are written straight into the SQ region at SQ tail + pending (masked), each
// zeroed with a 64-byte, 8-aligned memset and then given its fields; Flush() publishes the new SQ
// tail and calls bpf_io_uring_submit_sqes(ring, pending). The kernel consumes every submitted SQE
// inside that call, so each step starts with an empty SQ and may queue up to sq_entries SQEs.
#pragma once

#include "lower/ring.h"
#include "lower/sqe.h"

namespace uringc {

class SubmitQueue {
 public:
  /// Reads the SQ tail. `pending` (SQEs written this step) lives in `.bss` as
  /// `<program>_pending` and is accessed with volatile loads and stores: kept in a register,
  /// its exact value differs along every path through a reap loop, the verifier can no longer
  /// prune states, and a 64-CQE loop exceeded the 1M-instruction limit. From memory it is an
  /// unknown scalar (bounded by the SQ-full check) and paths that differ only in it merge.
  SubmitQueue(StepBuilder& sb, const RingRegions& regions, const RingConstants& rc);

  /// Writes one SQE; stops the step with kSqFull when the SQ ring is already full.
  void Push(StepBuilder& sb, const SqeFields& fields);
  /// Publishes the SQ tail and submits the pending SQEs (nothing when there are none). A short
  /// submission stops the step with kSubmitFailed, the kfunc's result in the detail word.
  void Flush(StepBuilder& sb);
  /// i32: SQEs written since the last Flush.
  llvm::Value* Pending(StepBuilder& sb);

 private:
  llvm::Value* sqes_;
  llvm::Value* sq_tail_ptr_;
  llvm::Value* sq_tail_;
  llvm::GlobalVariable* sq_entries_;
  llvm::GlobalVariable* pending_;
};

}  // namespace uringc
