// Writing SQEs into the SQ region and submitting them; see submit.h.
#include "bpf_ir/submit.h"

#include <linux/io_uring.h>

#include <cstddef>
#include <functional>

#include "bpf_ir/control.h"

namespace uringc {

static_assert(sizeof(io_uring_sqe) == 64);
static_assert(offsetof(io_uring_sqe, opcode) == 0 && offsetof(io_uring_sqe, flags) == 1 &&
              offsetof(io_uring_sqe, fd) == 4 && offsetof(io_uring_sqe, off) == 8 &&
              offsetof(io_uring_sqe, addr) == 16 && offsetof(io_uring_sqe, len) == 24 &&
              offsetof(io_uring_sqe, rw_flags) == 28 && offsetof(io_uring_sqe, user_data) == 32 &&
              offsetof(io_uring_sqe, ioprio) == 2 && offsetof(io_uring_sqe, buf_group) == 40 &&
              offsetof(io_uring_sqe, splice_fd_in) == 44 && offsetof(io_uring_sqe, cmd) == 48);

SubmitQueue::SubmitQueue(StepBuilder& sb, const RingRegions& regions, const RingConstants& rc,
                         bool mid_step_flush, bool pending_may_be_register)
    : sqes_(regions.sqes),
      sq_entries_(rc.sq_entries),
      sq_rewind_(rc.sq_rewind),
      mid_step_flush_(mid_step_flush) {
  llvm::IRBuilder<>& ir = sb.ir();
  // On SQ_REWIND rings only there is no tail to read or publish (the subprograms take null).
  sq_tail_ptr_ = rc.RewindOnly() ? llvm::ConstantPointerNull::get(ir.getPtrTy())
                                 : sb.At(regions.rings,
                                         ir.CreateZExt(rc.sq_tail_off.Read(sb), ir.getInt64Ty()));
  rewind_ = ir.CreateICmpNE(rc.sq_rewind.Read(sb), ir.getInt32(0), "sq_rewind");
  sq_tail_ = nullptr;
  if (!mid_step_flush) sq_tail_ = Tail(sb);
  if (pending_may_be_register) {
    llvm::Function* f = ir.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
    entry.SetCurrentDebugLocation(ir.getCurrentDebugLocation());
    pending_ = entry.CreateAlloca(ir.getInt32Ty(), nullptr, "pending");
    pending_volatile_ = false;
  } else {
    pending_ = sb.module().AddBss(sb.InternalName("pending"), ScalarType::kU32,
                                 sb.program().decl);
  }
  StorePending(sb, ir.getInt32(0));
}

llvm::AllocaInst* SubmitQueue::SettlePending(StepBuilder& sb, bool in_register) {
  auto* slot = llvm::dyn_cast<llvm::AllocaInst>(pending_);
  if (slot == nullptr || in_register) return slot;
  llvm::GlobalVariable* global =
      sb.module().AddBss(sb.InternalName("pending"), ScalarType::kU32, sb.program().decl);
  for (llvm::User* u : slot->users()) {
    if (auto* load = llvm::dyn_cast<llvm::LoadInst>(u)) load->setVolatile(true);
    if (auto* store = llvm::dyn_cast<llvm::StoreInst>(u)) store->setVolatile(true);
  }
  slot->replaceAllUsesWith(global);
  slot->eraseFromParent();
  pending_ = global;
  pending_volatile_ = true;
  return nullptr;
}

llvm::Value* SubmitQueue::Pending(StepBuilder& sb) {
  return sb.Load(ScalarType::kU32, pending_, 0, 4, pending_volatile_);
}

void SubmitQueue::StorePending(StepBuilder& sb, llvm::Value* n) {
  sb.Store(ScalarType::kU32, pending_, 0, n, 4, pending_volatile_);
}

// A branch, not a select: on an SQ_REWIND ring the tail is not read at all (the verifier knows
// the constant and drops the load's path).
llvm::Value* SubmitQueue::Tail(StepBuilder& sb) {
  if (sq_tail_ != nullptr) return sq_tail_;
  if (sq_rewind_.IsFixed()) return sb.ir().getInt32(0);  // SQ_REWIND rings only
  return EmitLazySelect(sb, rewind_, sb.ir().getInt32(0), [&](StepBuilder& b) {
    return b.Load(ScalarType::kU32, sq_tail_ptr_, 0, 4, /*is_volatile=*/true);
  }, "sq_tail");
}

// Word `word` (bytes 8*word .. 8*word+7, little endian) of the SQE `f` describes: its fields
// shifted into place, 0 where `f` sets none. Writing the SQE as eight whole words, instead of a
// memset and then a store per field, costs one store per word: the opcode, flags and fd of word
// 0 (or len and op_flags of word 3) no longer take a store each on top of the zeroing one. Under
// emulation and in the JIT a store costs more than the shift and or that merge the fields.
static llvm::Value* SqeWord(llvm::IRBuilder<>& ir, const SqeFields& f, size_t word) {
  llvm::Type* i64 = ir.getInt64Ty();
  llvm::Value* const zero = ir.getInt64(0);
  llvm::Value* result = zero;
  // The field at byte `offset`, `bits` wide: `v`, or the constant `imm` when `v` is null.
  auto put = [&](llvm::Value* v, uint64_t imm, unsigned bits, size_t offset) {
    if (offset / 8 != word || (v == nullptr && imm == 0)) return;
    if (v == nullptr) v = ir.getIntN(bits, imm);
    llvm::Value* field = ir.CreateZExt(ir.CreateZExtOrTrunc(v, ir.getIntNTy(bits)), i64);
    if (offset % 8 != 0) field = ir.CreateShl(field, (offset % 8) * 8);
    result = result == zero ? field : ir.CreateOr(result, field);
  };
  put(f.opcode_v, f.opcode, 8, offsetof(io_uring_sqe, opcode));
  put(nullptr, f.flags, 8, offsetof(io_uring_sqe, flags));
  put(nullptr, f.ioprio, 16, offsetof(io_uring_sqe, ioprio));
  put(f.fd, 0, 32, offsetof(io_uring_sqe, fd));
  put(f.off, 0, 64, offsetof(io_uring_sqe, off));
  put(f.addr, 0, 64, offsetof(io_uring_sqe, addr));
  put(f.len, f.len_imm, 32, offsetof(io_uring_sqe, len));
  put(f.op_flags, 0, 32, offsetof(io_uring_sqe, rw_flags));
  put(f.user_data, 0, 64, offsetof(io_uring_sqe, user_data));
  // buf_group and buf_index share their two bytes; a registered buffer's index wins.
  put(f.buf_index, f.buf_group, 16, offsetof(io_uring_sqe, buf_index));
  put(f.splice_fd_in, 0, 32, offsetof(io_uring_sqe, splice_fd_in));
  put(f.cmd0, 0, 64, offsetof(io_uring_sqe, cmd));
  put(f.cmd1, 0, 64, offsetof(io_uring_sqe, cmd) + 8);
  return result;
}

// The SQE at SQ position tail + pending, masked by the SQ's size (a power of two).
static llvm::Value* SqeAt(llvm::IRBuilder<>& ir, llvm::Value* sqes, llvm::Value* tail,
                          llvm::Value* pending, llvm::Value* entries) {
  llvm::Value* index =
      ir.CreateAnd(ir.CreateAdd(tail, pending), ir.CreateSub(entries, ir.getInt32(1)));
  return ir.CreateInBoundsGEP(ir.getInt8Ty(), sqes,
                              {ir.CreateShl(ir.CreateZExt(index, ir.getInt64Ty()), 6, "sqe_off")});
}

llvm::Instruction* SubmitQueue::StopIfFull(StepBuilder& sb, llvm::Value* pending,
                                           llvm::Value* entries) {
  auto* full = llvm::cast<llvm::Instruction>(sb.ir().CreateICmpUGE(pending, entries, "sq_full"));
  sb.StopIf(full, StopReason::kSqFull);
  return full;
}

llvm::Instruction* SubmitQueue::Push(StepBuilder& sb, const SqeFields& f) {
  llvm::IRBuilder<>& ir = sb.ir();
  llvm::Value* entries = sq_entries_.Read(sb);
  llvm::Value* pending = Pending(sb);
  llvm::Instruction* full = StopIfFull(sb, pending, entries);
  llvm::Value* sqe = SqeAt(ir, sqes_, Tail(sb), pending, entries);
  for (size_t word = 0; word < sizeof(io_uring_sqe) / 8; ++word) {
    sb.Store(ScalarType::kU64, sqe, word * 8, SqeWord(ir, f, word), 8);
  }
  StorePending(sb, ir.CreateAdd(pending, ir.getInt32(1)));
  return full;
}

llvm::Instruction* SubmitQueue::PushByUserData(StepBuilder& sb, uint8_t opcode,
                                               llvm::Value* addr) {
  // A one-task step may keep `pending` in a register (SettlePending), which a subprogram
  // cannot count: the SQE is written inline there.
  if (!llvm::isa<llvm::GlobalVariable>(pending_)) {
    return Push(sb, SqeFields{.opcode = opcode, .addr = addr, .user_data = sb.ir().getInt64(0)});
  }
  llvm::IRBuilder<>& ir = sb.ir();
  llvm::Instruction* full = StopIfFull(sb, Pending(sb), sq_entries_.Read(sb));
  ir.CreateCall(PushByUserDataHelper(sb), {sqes_, sq_tail_ptr_, ir.getInt64(opcode),
                                           ir.CreateZExtOrTrunc(addr, ir.getInt64Ty())});
  return full;
}

// In a subprogram's body (its own blocks, no StepBuilder): `on_tail()` only on a ring with an SQ
// tail, behind a branch on the load-time `sq_rewind`, and its value, or `on_rewind` on an
// SQ_REWIND ring (a phi when both are values); for an object for SQ_REWIND rings only, nothing
// but `on_rewind`.
static llvm::Value* OnTailRing(llvm::IRBuilder<>& ir, const RingConstant& sq_rewind,
                               llvm::Value* on_rewind,
                               const std::function<llvm::Value*()>& on_tail) {
  if (sq_rewind.IsFixed()) return on_rewind;
  llvm::LLVMContext& ctx = ir.getContext();
  llvm::Function* fn = ir.GetInsertBlock()->getParent();
  llvm::BasicBlock* start = ir.GetInsertBlock();
  llvm::BasicBlock* tail = llvm::BasicBlock::Create(ctx, "tail", fn);
  llvm::BasicBlock* join = llvm::BasicBlock::Create(ctx, "tail.end", fn);
  llvm::Value* rewind = StepBuilder::ReadConstField(ir, sq_rewind.layout, sq_rewind.index);
  ir.CreateCondBr(ir.CreateICmpEQ(rewind, ir.getInt32(0)), tail, join);
  ir.SetInsertPoint(tail);
  llvm::Value* value = on_tail();
  ir.CreateBr(join);
  ir.SetInsertPoint(join);
  if (on_rewind == nullptr || value == nullptr) return nullptr;
  llvm::PHINode* phi = ir.CreatePHI(on_rewind->getType(), 2, "sq_tail");
  phi->addIncoming(on_rewind, start);
  phi->addIncoming(value, tail);
  return phi;
}

// Cancelling is emitted wherever a task, a scope or a stream can end, one SQE each: some 25
// instructions at every place (examples/proxy.uring had 37), now a call of this subprogram. It
// reads the SQ tail itself (0 on an SQ_REWIND ring), which no one moves before the step's Flush.
llvm::Function* SubmitQueue::PushByUserDataHelper(StepBuilder& sb) {
  if (push_by_user_data_helper_ != nullptr) return push_by_user_data_helper_;
  BpfModule& m = sb.module();
  llvm::LLVMContext& ctx = m.context();
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  DebugTypes& types = m.types();
  llvm::Function* fn = m.CreateHelper(
      sb.InternalName("push_by_user_data"),
      llvm::FunctionType::get(i32, {ptr, ptr, i64, i64}, false),
      {types.Int(), types.VoidPtr(), types.VoidPtr(), types.Scalar(ScalarType::kU64),
       types.Scalar(ScalarType::kU64)},
      {"sqes", "sq_tail", "opcode", "addr"}, sb.program().decl);
  llvm::IRBuilder<> ir(ctx);
  BpfModule::BeginHelperBody(ir, fn);
  llvm::Value* n = ir.CreateAlignedLoad(i32, pending_, llvm::Align(4), /*isVolatile=*/true);
  // The published tail on a tail ring, 0 on an SQ_REWIND ring.
  llvm::Value* at = OnTailRing(ir, sq_rewind_, ir.getInt32(0), [&]() -> llvm::Value* {
    return ir.CreateAlignedLoad(i32, fn->getArg(1), llvm::Align(4), /*isVolatile=*/true);
  });
  llvm::Value* entries = StepBuilder::ReadConstField(ir, sq_entries_.layout, sq_entries_.index);
  llvm::Value* sqe = SqeAt(ir, fn->getArg(0), at, n, entries);
  for (size_t word = 0; word < sizeof(io_uring_sqe) / 8; ++word) {
    llvm::Value* v = ir.getInt64(0);
    if (word == 0) v = fn->getArg(2);
    if (word == offsetof(io_uring_sqe, addr) / 8) v = fn->getArg(3);
    ir.CreateAlignedStore(v, ir.CreateConstGEP1_64(ir.getInt8Ty(), sqe, word * 8), llvm::Align(8));
  }
  ir.CreateAlignedStore(ir.CreateAdd(n, ir.getInt32(1)), pending_, llvm::Align(4), true);
  ir.CreateRet(ir.getInt32(0));  // a subprogram's exit reads r0
  push_by_user_data_helper_ = fn;
  return fn;
}

// One bpf_io_uring_submit_sqes call per batch, as liburing's reference controllers make. Without
// IORING_SETUP_SUBMIT_ALL io_submit_sqes would stop at the first SQE whose preparation fails (an
// empty openat path: -ENOENT) and leave the rest in the SQ; with it that SQE completes with its
// error and the kernel goes on, so anything but the whole batch (an errno, or a short count when
// the kernel runs out of requests) fails the step. The runtime refuses rings without SUBMIT_ALL
// (kSubmitAllGlobal), and an SQ_REWIND ring could not take the rest of a batch again anyway (the
// kernel starts at sqes[0]).
void SubmitQueue::Flush(StepBuilder& sb) {
  llvm::IRBuilder<>& ir = sb.ir();
  if (mid_step_flush_ && llvm::isa<llvm::GlobalVariable>(pending_)) {  // not a register
    llvm::Value* ret = ir.CreateCall(FlushHelper(sb), {sb.ring(), sq_tail_ptr_}, "flushed");
    sb.StopIf(ir.CreateICmpSLT(ret, ir.getInt32(0)), StopReason::kSubmitFailed, ret);
    sb.StopIf(ir.CreateICmpNE(ret, ir.getInt32(0)), StopReason::kSubmitFailed);  // EAGAIN
    return;
  }
  llvm::Value* n = Pending(sb);
  EmitIf(sb, ir.CreateICmpNE(n, ir.getInt32(0)), [&](StepBuilder& b) {
    llvm::IRBuilder<>& ir = b.ir();
    if (!sq_rewind_.IsFixed()) {
      EmitIf(b, ir.CreateNot(rewind_), [&](StepBuilder& b) {
        b.Store(ScalarType::kU32, sq_tail_ptr_, 0, b.ir().CreateAdd(Tail(b), n), 4,
                /*is_volatile=*/true);
      });
    }
    llvm::Value* ret = ir.CreateCall(b.module().SubmitSqesKfunc(), {b.ring(), n}, "submitted");
    b.StopIf(ir.CreateICmpSLT(ret, ir.getInt32(0)), StopReason::kSubmitFailed, ret);
    b.StopIf(ir.CreateICmpNE(ret, n), StopReason::kSubmitFailed);  // EAGAIN
    if (submitted_ != nullptr) {
      llvm::Value* total = b.Load(ScalarType::kU32, submitted_, 0, 4, /*is_volatile=*/true);
      b.Store(ScalarType::kU32, submitted_, 0, ir.CreateAdd(total, n), 4, /*is_volatile=*/true);
    }
    StorePending(b, ir.getInt32(0));
  });
}

// A step that may submit in the middle (cancelling a wide fork, copying openat paths) flushes at
// many places: each was some 25 instructions (the tail, the call, its checks, the counts), now a
// call of this subprogram, which does what Flush does inline and leaves stopping the step, which
// only the program itself can do, to its caller.
llvm::Function* SubmitQueue::FlushHelper(StepBuilder& sb) {
  if (flush_helper_ != nullptr) return flush_helper_;
  BpfModule& m = sb.module();
  llvm::LLVMContext& ctx = m.context();
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  DebugTypes& types = m.types();
  llvm::Function* fn = m.CreateHelper(
      sb.InternalName("flush"), llvm::FunctionType::get(i32, {ptr, ptr}, false),
      {types.Int(), types.ContextPtr(), types.U64Ptr()}, {"ring", "sq_tail"}, sb.program().decl);
  llvm::IRBuilder<> ir(ctx);
  BpfModule::BeginHelperBody(ir, fn);
  auto block = [&](const char* name) { return llvm::BasicBlock::Create(ctx, name, fn); };
  auto load32 = [&](llvm::Value* p) {
    return ir.CreateAlignedLoad(i32, p, llvm::Align(4), /*isVolatile=*/true);
  };
  auto store32 = [&](llvm::Value* v, llvm::Value* p) {
    ir.CreateAlignedStore(v, p, llvm::Align(4), /*isVolatile=*/true);
  };
  llvm::BasicBlock* done = block("done");
  llvm::BasicBlock* some = block("some");
  llvm::Value* n = load32(pending_);
  ir.CreateCondBr(ir.CreateICmpEQ(n, ir.getInt32(0)), done, some);
  ir.SetInsertPoint(some);
  // On a tail ring the SQEs are published first (the SQ_REWIND ring's constant 1 drops this).
  OnTailRing(ir, sq_rewind_, nullptr, [&]() -> llvm::Value* {
    store32(ir.CreateAdd(load32(fn->getArg(1)), n), fn->getArg(1));
    return nullptr;
  });
  llvm::Value* ret = ir.CreateCall(m.SubmitSqesKfunc(), {fn->getArg(0), n}, "submitted");
  llvm::BasicBlock* failed = block("failed");
  llvm::BasicBlock* whole = block("whole");
  ir.CreateCondBr(ir.CreateICmpEQ(ret, n), whole, failed);
  ir.SetInsertPoint(failed);  // an errno, or 1 for a short count
  ir.CreateRet(ir.CreateSelect(ir.CreateICmpSLT(ret, ir.getInt32(0)), ret, ir.getInt32(1)));
  ir.SetInsertPoint(whole);
  if (submitted_ != nullptr) store32(ir.CreateAdd(load32(submitted_), n), submitted_);
  store32(ir.getInt32(0), pending_);
  ir.CreateBr(done);
  ir.SetInsertPoint(done);
  ir.CreateRet(ir.getInt32(0));
  flush_helper_ = fn;
  return fn;
}

}  // namespace uringc
