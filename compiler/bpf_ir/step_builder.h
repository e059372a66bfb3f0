// StepBuilder: the IRBuilder-level context every lowering building block works in. One
// StepBuilder writes the body of one loop_step program: it knows the ring context and loop
// parameters the kernel passes, gives every instruction the DILocation of the `.uring` construct
// being lowered (SetLocation), does loads and stores with exact alignment (an under-aligned access
// merged into an SQE memset made the backend emit byte stores), and ends a step with CONTINUE or
// STOP. The status word (`.bss` `<program>_status`, a StopReason) and the detail word
// (`<program>_detail`, an errno or kfunc result) tell the host why the program stopped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "emit/bpf_module.h"
#include "llvm/IR/IRBuilder.h"

namespace uringc {

/// What loop_step returns (the kernel's IOU_LOOP_CONTINUE / IOU_LOOP_STOP).
enum class LoopAction : uint32_t { kContinue = 0, kStop = 1 };

/// The value of the status word; 0 while the program runs.
enum class StopReason : uint32_t {
  kRunning = 0,
  kDone = 1,          ///< the graph finished
  kNoRegion = 2,      ///< bpf_io_uring_get_region returned NULL
  kSubmitFailed = 3,  ///< bpf_io_uring_submit_sqes submitted fewer SQEs than asked (detail: result)
  kBadCqe = 4,        ///< a CQE whose user_data names no await point or task of this program
  kSqFull = 5,        ///< one step wanted more SQEs than the SQ ring holds
  kFailed = 6,        ///< the graph failed (detail: the errno)
};

/// How the status word is named and valued. kProgramNamed: `<program>_status` holds a StopReason
/// and `<program>_detail` the detail (the generated test controllers). kRuntime: the runtime's
/// convention (docs/embedding.md): `uringc_status` is 1 (done) or 2 (failed) and `uringc_error`
/// a negative errno; compiled `.uring` programs use it so `uringc run` understands them.
enum class StatusConvention : uint8_t { kProgramNamed, kRuntime };

/// Region ids of bpf_io_uring_get_region.
enum class RegionId : uint32_t { kMem = 0, kCq = 1, kSq = 2 };

class StepBuilder {
 public:
  /// Starts the body of `program` (which must have none yet): an entry block that reads the ring
  /// context (ctx[0]) and the loop parameters (ctx[1]), located at the program's declaration.
  StepBuilder(BpfModule& module, const BpfProgram& program,
              StatusConvention convention = StatusConvention::kProgramNamed);

  StatusConvention convention() const { return convention_; }
  /// Prefix for internal `.bss` globals: `<program>_`, or `uringc_<program>_` under kRuntime
  /// (the runtime prints every global not starting with `uringc_` as an output).
  std::string InternalName(std::string_view suffix) const;

  BpfModule& module() { return module_; }
  const BpfProgram& program() const { return program_; }
  llvm::IRBuilder<>& ir() { return ir_; }
  llvm::LLVMContext& context() { return module_.context(); }

  /// Every instruction created from now on carries the DILocation of `range`'s first byte.
  void SetLocation(SourceRange range);
  SourceRange location() const { return location_; }

  /// `struct iou_ctx *` (7.1: `struct io_ring_ctx *`), the first argument of every kfunc.
  llvm::Value* ring() const { return ring_; }
  /// `struct iou_loop_params *`.
  llvm::Value* loop_params() const { return loop_params_; }

  /// An integer constant of a scalar type.
  llvm::ConstantInt* Const(ScalarType type, uint64_t value);
  /// `base + offset` in bytes (offset: a constant or an i32/i64 value).
  llvm::Value* At(llvm::Value* base, uint64_t offset);
  llvm::Value* At(llvm::Value* base, llvm::Value* offset);
  /// A load of `type` from `base + offset`, aligned to `align` bytes (never more than is true).
  llvm::Value* Load(ScalarType type, llvm::Value* base, uint64_t offset, uint32_t align,
                    bool is_volatile = false);
  /// A store of `value` (already of `type`'s width) to `base + offset`.
  void Store(ScalarType type, llvm::Value* base, uint64_t offset, llvm::Value* value,
             uint32_t align, bool is_volatile = false);
  /// Reads a `.rodata` constant with a volatile load, so -O2 keeps the loader's value.
  llvm::Value* ReadConst(llvm::GlobalVariable* rodata);
  /// Field `index` of a `.rodata` array or struct of `__u32`s, read the same way.
  llvm::Value* ReadConstField(llvm::GlobalVariable* rodata, uint32_t index) {
    return ReadConstField(ir_, rodata, index);
  }
  /// The same with any builder (a subprogram's: BpfModule::CreateHelper).
  static llvm::Value* ReadConstField(llvm::IRBuilder<>& ir, llvm::GlobalVariable* rodata,
                                     uint32_t index);
  /// Adds `delta` to a scalar `.bss` global.
  void Increment(llvm::GlobalVariable* global, ScalarType type, uint64_t delta = 1);

  /// A new block in the program (not yet the insertion point).
  llvm::BasicBlock* NewBlock(const llvm::Twine& name);
  /// Continues emitting at the end of `block`.
  void SetBlock(llvm::BasicBlock* block);

  /// Ends the current path with `return action`. Emission continues in a fresh block nothing
  /// branches to (removed before codegen), so callers may keep emitting without checks.
  void Return(LoopAction action);
  /// Ends the current path: status word = reason, detail word = `detail` (if given), return STOP.
  /// Under kRuntime the status becomes 1 (kDone) or 2 (anything else) and the error word the
  /// detail, or a negative errno standing for the reason when there is none.
  void Stop(StopReason reason, llvm::Value* detail = nullptr);
  /// If `cond`: Stop(reason, detail); otherwise continue after it.
  void StopIf(llvm::Value* cond, StopReason reason, llvm::Value* detail = nullptr);
  /// Returns STOP at once when the status word is no longer kRunning (a later io_uring_enter
  /// after the graph ended must not run it again).
  void ReturnIfStopped();

  /// Inside an iterator loop's body (EmitIterLoop) until CloseIterator.
  void OpenIterator() { ++open_iters_; }
  void CloseIterator() { --open_iters_; }
  /// True inside an iterator loop's body.
  bool InIterator() const { return open_iters_ != 0; }

  /// `.bss __s32 <program>_detail`: errno or kfunc result that goes with the status.
  llvm::GlobalVariable* detail() const { return detail_; }

 private:
  BpfModule& module_;
  BpfProgram program_;
  StatusConvention convention_;
  llvm::IRBuilder<> ir_;
  SourceRange location_;
  llvm::Value* ring_ = nullptr;
  llvm::Value* loop_params_ = nullptr;
  llvm::GlobalVariable* status_ = nullptr;
  llvm::GlobalVariable* detail_ = nullptr;
  // kRuntime: the one block every failing path branches to, and its error-word phi.
  llvm::BasicBlock* fail_block_ = nullptr;
  llvm::PHINode* fail_error_ = nullptr;

  /// The negative errno's magnitude standing for `reason` when a stop has no detail.
  static int32_t ErrnoFor(StopReason reason);
  /// kRuntime failure: branches to the shared failed block with `error` (an i32) as the error.
  void FailWith(llvm::Value* error);
  int open_iters_ = 0;
};

}  // namespace uringc
