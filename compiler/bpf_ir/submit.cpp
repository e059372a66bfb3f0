// Writing SQEs into the SQ region and submitting them; see submit.h.
#include "bpf_ir/submit.h"

#include <linux/io_uring.h>

#include <cstddef>

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
    : sqes_(regions.sqes), sq_entries_(rc.sq_entries) {
  llvm::IRBuilder<>& ir = sb.ir();
  sq_tail_ptr_ = sb.At(regions.rings, ir.CreateZExt(rc.sq_tail_off.Read(sb), ir.getInt64Ty()));
  rewind_ = ir.CreateICmpNE(rc.sq_rewind.Read(sb), ir.getInt32(0), "sq_rewind");
  sq_tail_ = nullptr;
  if (!mid_step_flush) {
    sq_tail_ = ir.CreateSelect(rewind_, ir.getInt32(0),
                               sb.Load(ScalarType::kU32, sq_tail_ptr_, 0, 4), "sq_tail");
  }
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

llvm::Value* SubmitQueue::Tail(StepBuilder& sb) {
  if (sq_tail_ != nullptr) return sq_tail_;
  return sb.ir().CreateSelect(rewind_, sb.ir().getInt32(0),
                              sb.Load(ScalarType::kU32, sq_tail_ptr_, 0, 4, /*is_volatile=*/true),
                              "sq_tail");
}

llvm::Instruction* SubmitQueue::Push(StepBuilder& sb, const SqeFields& f) {
  llvm::IRBuilder<>& ir = sb.ir();
  llvm::Value* entries = sq_entries_.Read(sb);
  llvm::Value* pending = Pending(sb);
  auto* full = llvm::cast<llvm::Instruction>(ir.CreateICmpUGE(pending, entries, "sq_full"));
  sb.StopIf(full, StopReason::kSqFull);
  llvm::Value* index =
      ir.CreateAnd(ir.CreateAdd(Tail(sb), pending), ir.CreateSub(entries, ir.getInt32(1)));
  llvm::Value* sqe = sb.At(sqes_, ir.CreateShl(ir.CreateZExt(index, ir.getInt64Ty()), 6, "sqe_off"));
  // 64 bytes at 8-byte alignment: the backend turns this into eight 8-byte stores.
  ir.CreateMemSet(sqe, ir.getInt8(0), ir.getInt64(sizeof(io_uring_sqe)), llvm::MaybeAlign(8));
  // The true alignment of sqe + offset (sqe itself is 64-byte aligned), capped at 8: a store
  // with less than that (e.g. align 1 for the opcode at offset 0) gets merged into the memset
  // and degrades all of it to byte stores.
  auto align_of = [](size_t offset) -> uint32_t {
    return offset % 8 == 0 ? 8 : static_cast<uint32_t>(offset & (~offset + 1));
  };
  auto store = [&](ScalarType type, size_t offset, llvm::Value* v) {
    if (v != nullptr) sb.Store(type, sqe, offset, v, align_of(offset));
  };
  store(ScalarType::kU8, offsetof(io_uring_sqe, opcode),
        f.opcode_v != nullptr ? f.opcode_v : ir.getInt8(f.opcode));
  if (f.flags != 0) store(ScalarType::kU8, offsetof(io_uring_sqe, flags), ir.getInt8(f.flags));
  if (f.ioprio != 0) store(ScalarType::kU16, offsetof(io_uring_sqe, ioprio), ir.getInt16(f.ioprio));
  store(ScalarType::kS32, offsetof(io_uring_sqe, fd), f.fd);
  store(ScalarType::kU64, offsetof(io_uring_sqe, off), f.off);
  store(ScalarType::kU64, offsetof(io_uring_sqe, addr), f.addr);
  if (f.len != nullptr) {
    store(ScalarType::kU32, offsetof(io_uring_sqe, len), f.len);
  } else if (f.len_imm != 0) {
    store(ScalarType::kU32, offsetof(io_uring_sqe, len), ir.getInt32(f.len_imm));
  }
  store(ScalarType::kU32, offsetof(io_uring_sqe, rw_flags), f.op_flags);
  store(ScalarType::kU64, offsetof(io_uring_sqe, user_data), f.user_data);
  if (f.buf_group != 0) {
    store(ScalarType::kU16, offsetof(io_uring_sqe, buf_group), ir.getInt16(f.buf_group));
  }
  store(ScalarType::kU16, offsetof(io_uring_sqe, buf_index), f.buf_index);
  store(ScalarType::kS32, offsetof(io_uring_sqe, splice_fd_in), f.splice_fd_in);
  store(ScalarType::kU64, offsetof(io_uring_sqe, cmd), f.cmd0);
  store(ScalarType::kU64, offsetof(io_uring_sqe, cmd) + 8, f.cmd1);
  StorePending(sb, ir.CreateAdd(pending, ir.getInt32(1)));
  return full;
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
  llvm::Value* n = Pending(sb);
  EmitIf(sb, ir.CreateICmpNE(n, ir.getInt32(0)), [&](StepBuilder& b) {
    llvm::IRBuilder<>& ir = b.ir();
    EmitIf(b, ir.CreateNot(rewind_), [&](StepBuilder& b) {
      b.Store(ScalarType::kU32, sq_tail_ptr_, 0, b.ir().CreateAdd(Tail(b), n), 4,
              /*is_volatile=*/true);
    });
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

}  // namespace uringc
