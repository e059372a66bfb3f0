// Tasks as state machines whose state lives in BPF memory. A TaskTable is a `.bss` array of
// per-task slots, `struct <name>_slot { __u32 state; __u32 reserved; __u64 vars[V]; } <name>[N]`:
// `state` says where the task resumes (0 = not started; the lowering numbers the rest), `vars`
// hold the task's variables that live across await points (narrower types widened to 64 bits).
// Task indices that come from user_data are checked against N before any slot is addressed, so
// the verifier sees a bounded offset.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bpf_ir/step_builder.h"

namespace uringc {

/// Conventional states; the lowering numbers its resume points from kFirstResumeState.
inline constexpr uint32_t kTaskNotStarted = 0;
inline constexpr uint32_t kTaskFinished = 1;
inline constexpr uint32_t kFirstResumeState = 2;

class TaskTable {
 public:
  /// Declares `<name>[tasks]` in `.bss` with `vars` 64-bit variables per slot.
  TaskTable(BpfModule& module, const std::string& name, uint32_t tasks, uint32_t vars,
            SourceRange decl);

  uint32_t vars() const { return vars_; }
  /// Bytes per slot: 8 + 8 * vars.
  uint32_t stride() const { return 8 + 8 * vars_; }

  /// Stops the step with `reason` unless `task` (i32) < tasks; returns it as a checked i64.
  llvm::Value* CheckedIndex(StepBuilder& sb, llvm::Value* task,
                            StopReason reason = StopReason::kBadCqe);

  /// Slot accessors; `index` must come from CheckedIndex or be known to be below tasks.
  llvm::Value* LoadState(StepBuilder& sb, llvm::Value* index);
  void StoreState(StepBuilder& sb, llvm::Value* index, uint32_t state);
  llvm::Value* LoadVar(StepBuilder& sb, llvm::Value* index, uint32_t var);
  void StoreVar(StepBuilder& sb, llvm::Value* index, uint32_t var, llvm::Value* value);
  /// The address of word `var` of slot `index`, for a subprogram that reads or writes it.
  llvm::Value* VarAddress(StepBuilder& sb, llvm::Value* index, uint32_t var);
  /// The low half of word `var` (its first 4 bytes: the BPF targets are little endian) as an
  /// i32: for a word that holds a sign-extended i32 (a CQE's res), read at its own width, a sign
  /// test stays one 32-bit compare instead of a 64-bit load, a mask and a test of bit 31.
  llvm::Value* LoadVarLow32(StepBuilder& sb, llvm::Value* index, uint32_t var);
  /// The same at a variable word `var` (i64), which the caller keeps below vars() (a constant
  /// plus a masked value, so the verifier sees the bound).
  llvm::Value* LoadVarAt(StepBuilder& sb, llvm::Value* index, llvm::Value* var);
  void StoreVarAt(StepBuilder& sb, llvm::Value* index, llvm::Value* var, llvm::Value* value);

 private:
  llvm::Value* Slot(StepBuilder& sb, llvm::Value* index);

  uint32_t tasks_;
  uint32_t vars_;
  llvm::GlobalVariable* global_ = nullptr;
};

}  // namespace uringc
