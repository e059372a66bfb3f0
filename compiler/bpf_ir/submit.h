// Submitting: SQEs are written straight into the SQ region at SQ tail + pending (masked), each
// as eight 8-byte words with its fields merged in (0 elsewhere); Flush() publishes the new SQ
// tail and calls bpf_io_uring_submit_sqes(ring, pending). The kernel consumes every submitted SQE
// inside that call, so each step starts with an empty SQ and may queue up to sq_entries SQEs.
// A queue made with `mid_step_flush` may also be flushed in the middle of a step (the SQ tail is
// then read from the rings region at every use instead of once per step).
// On an SQ_REWIND ring (load-time constant `sq_rewind`) the tail counts as 0, so SQEs go at
// sqes[pending], and Flush leaves the SQ tail alone (the kernel takes sqes[0..n) and the UAPI
// wants the tail kept 0). The verifier sees the frozen constant and drops the other ring's path,
// so one object runs on both rings at the cost of one constant load per step. A program for
// SQ_REWIND rings only (RingConstants::FixSqRewind) has no tail-ring code at all.
#pragma once

#include "bpf_ir/ring.h"
#include "bpf_ir/sqe.h"

namespace uringc {

class SubmitQueue {
 public:
  /// Reads the SQ tail. `pending` (SQEs written this step) lives in `.bss` as
  /// `<program>_pending` and is accessed with volatile loads and stores: kept in a register,
  /// its exact value differs along every path through a reap loop, the verifier can no longer
  /// prune states, and a 64-CQE loop exceeded the 1M-instruction limit. From memory it is an
  /// unknown scalar (bounded by the SQ-full check) and paths that differ only in it merge.
  ///
  /// With `pending_may_be_register`, `pending` starts as a stack slot and SettlePending decides
  /// at the end: a step whose pushes sit in no loop (they are straight-line code between its
  /// start and its one Flush) can keep it in a register, where each path's count is a constant,
  /// as a hand-written controller's is.
  SubmitQueue(StepBuilder& sb, const RingRegions& regions, const RingConstants& rc,
              bool mid_step_flush = false, bool pending_may_be_register = false);

  /// Where `pending` lives, once the step is emitted: in a register (returns its alloca, for
  /// the caller to promote with the step's other register variables) or, by default, in `.bss`
  /// (returns nullptr; the stack slot's loads and stores become volatile ones of the global).
  llvm::AllocaInst* SettlePending(StepBuilder& sb, bool in_register);

  /// Writes one SQE; stops the step with kSqFull when the SQ ring is already full. Returns that
  /// check's condition (i1), which a caller that proved room for the SQE may fold to false.
  llvm::Instruction* Push(StepBuilder& sb, const SqeFields& fields);
  /// Writes an SQE that names another request by its user_data (`addr`): opcode `opcode`, no
  /// flags, fd, length or user_data of its own (IORING_OP_ASYNC_CANCEL, IORING_OP_TIMEOUT_REMOVE).
  /// With `pending` in `.bss` the writing is a call of the subprogram
  /// `<program>_push_by_user_data(sqes, sq_tail, opcode, addr)`; the SQ-full check stays inline
  /// and is returned as Push returns it.
  llvm::Instruction* PushByUserData(StepBuilder& sb, uint8_t opcode, llvm::Value* addr);
  /// Publishes the SQ tail and submits the pending SQEs with one call (nothing when there are
  /// none; the ring has SUBMIT_ALL, see submit.cpp). A negative result stops the step with
  /// kSubmitFailed and that errno in the detail word; a short count with kSubmitFailed and no
  /// detail (EAGAIN).
  void Flush(StepBuilder& sb);
  /// i32: SQEs written since the last Flush.
  llvm::Value* Pending(StepBuilder& sb);
  /// Each Flush adds the SQEs it submitted to the u32 global `counter` (requests in flight),
  /// once per batch rather than once per SQE.
  void CountSubmittedIn(llvm::GlobalVariable* counter) { submitted_ = counter; }

 private:
  /// Stops the step with kSqFull when `pending` SQEs fill the SQ; returns the check (i1).
  llvm::Instruction* StopIfFull(StepBuilder& sb, llvm::Value* pending, llvm::Value* entries);
  /// i32: the SQ tail as published by the last Flush (or as the step found it).
  llvm::Value* Tail(StepBuilder& sb);
  void StorePending(StepBuilder& sb, llvm::Value* n);
  /// With mid-step flushes and `pending` in `.bss` (not a register): the whole flush as one subprogram,
  /// `<program>_flush(ring, sq_tail)`, which returns 0, the submission's negative errno, or 1 for
  /// a short count (built on first use).
  llvm::Function* FlushHelper(StepBuilder& sb);
  /// PushByUserData's subprogram (built on first use).
  llvm::Function* PushByUserDataHelper(StepBuilder& sb);

  llvm::Value* sqes_;
  llvm::Value* sq_tail_ptr_;
  llvm::Value* rewind_;  ///< i1: an SQ_REWIND ring; read once per step
  /// Read once per step (0 on SQ_REWIND rings); nullptr with mid_step_flush.
  llvm::Value* sq_tail_;
  RingConstant sq_entries_;
  RingConstant sq_rewind_;  ///< for FlushHelper, which reads it in its own body
  /// `pending`'s home: the .bss global, or (until SettlePending) a stack slot.
  llvm::Value* pending_ = nullptr;
  bool pending_volatile_ = true;
  llvm::GlobalVariable* submitted_ = nullptr;
  bool mid_step_flush_ = false;
  llvm::Function* flush_helper_ = nullptr;
  llvm::Function* push_by_user_data_helper_ = nullptr;
};

}  // namespace uringc
