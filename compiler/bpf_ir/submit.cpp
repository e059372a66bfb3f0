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
              offsetof(io_uring_sqe, rw_flags) == 28 && offsetof(io_uring_sqe, user_data) == 32);

SubmitQueue::SubmitQueue(StepBuilder& sb, const RingRegions& regions, const RingConstants& rc,
                         bool mid_step_flush)
    : sqes_(regions.sqes), sq_entries_(rc.sq_entries) {
  llvm::IRBuilder<>& ir = sb.ir();
  sq_tail_ptr_ = sb.At(regions.rings, ir.CreateZExt(sb.ReadConst(rc.sq_tail_off),
                                                     ir.getInt64Ty()));
  rewind_ = ir.CreateICmpNE(sb.ReadConst(rc.sq_rewind), ir.getInt32(0), "sq_rewind");
  sq_tail_ = nullptr;
  if (!mid_step_flush) {
    sq_tail_ = ir.CreateSelect(rewind_, ir.getInt32(0),
                               sb.Load(ScalarType::kU32, sq_tail_ptr_, 0, 4), "sq_tail");
  }
  pending_ = sb.module().AddBss(sb.InternalName("pending"), ScalarType::kU32,
                               sb.program().decl);
  sb.Store(ScalarType::kU32, pending_, 0, ir.getInt32(0), 4, /*is_volatile=*/true);
}

llvm::Value* SubmitQueue::Pending(StepBuilder& sb) {
  return sb.Load(ScalarType::kU32, pending_, 0, 4, /*is_volatile=*/true);
}

llvm::Value* SubmitQueue::Tail(StepBuilder& sb) {
  if (sq_tail_ != nullptr) return sq_tail_;
  return sb.ir().CreateSelect(rewind_, sb.ir().getInt32(0),
                              sb.Load(ScalarType::kU32, sq_tail_ptr_, 0, 4, /*is_volatile=*/true),
                              "sq_tail");
}

void SubmitQueue::Push(StepBuilder& sb, const SqeFields& f) {
  llvm::IRBuilder<>& ir = sb.ir();
  llvm::Value* entries = sb.ReadConst(sq_entries_);
  llvm::Value* pending = Pending(sb);
  sb.StopIf(ir.CreateICmpUGE(pending, entries), StopReason::kSqFull);
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
  store(ScalarType::kU8, offsetof(io_uring_sqe, opcode), ir.getInt8(f.opcode));
  if (f.flags != 0) store(ScalarType::kU8, offsetof(io_uring_sqe, flags), ir.getInt8(f.flags));
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
  sb.Store(ScalarType::kU32, pending_, 0, ir.CreateAdd(pending, ir.getInt32(1)), 4,
           /*is_volatile=*/true);
}

// io_submit_sqes stops at the first SQE whose preparation fails (an empty openat path: -ENOENT)
// unless the ring has IORING_SETUP_SUBMIT_ALL: that SQE is consumed and completes with the
// error as its CQE, the ones after it stay in the SQ, and the count returned includes it. So a
// short count is no error: the rest is submitted again, up to kSubmitCalls calls (one more per
// failed preparation in the batch). `pending_` counts what is left, so the loop carries no
// register the verifier would have to tell apart per iteration. A negative result is an errno.
// SQ_REWIND rings cannot resubmit the rest (the kernel starts at sqes[0] again): there a short
// count fails the step, which is why RingMode::kAuto takes SQ_REWIND only with SUBMIT_ALL.
void SubmitQueue::Flush(StepBuilder& sb) {
  llvm::IRBuilder<>& ir = sb.ir();
  llvm::Value* n = Pending(sb);
  EmitIf(sb, ir.CreateICmpNE(n, ir.getInt32(0)), [&](StepBuilder& b) {
    EmitIf(b, ir.CreateNot(rewind_), [&](StepBuilder& b) {
      b.Store(ScalarType::kU32, sq_tail_ptr_, 0, b.ir().CreateAdd(Tail(b), n), 4,
              /*is_volatile=*/true);
    });
    EmitBoundedLoop(
        b, kSubmitCalls,
        [&](StepBuilder& b, llvm::Value*) {
          return b.ir().CreateICmpNE(Pending(b), b.ir().getInt32(0));
        },
        [&](StepBuilder& b, llvm::Value*) {
          llvm::IRBuilder<>& ir = b.ir();
          llvm::Value* left = Pending(b);
          llvm::Value* ret = ir.CreateCall(b.module().SubmitSqesKfunc(), {b.ring(), left},
                                           "submitted");
          b.StopIf(ir.CreateICmpSLT(ret, ir.getInt32(0)), StopReason::kSubmitFailed, ret);
          // 0 (nothing taken) or more than asked: not the kernel's contract; EAGAIN.
          b.StopIf(ir.CreateOr(ir.CreateICmpEQ(ret, ir.getInt32(0)), ir.CreateICmpUGT(ret, left)),
                   StopReason::kSubmitFailed);
          // SQ_REWIND: a resubmission would start at sqes[0] again, so a short count is final.
          b.StopIf(ir.CreateAnd(rewind_, ir.CreateICmpNE(ret, left)), StopReason::kSubmitFailed);
          b.Store(ScalarType::kU32, pending_, 0, ir.CreateSub(left, ret), 4, /*is_volatile=*/true);
        });
    // More failed preparations in one batch than calls allowed: EAGAIN (Ring::Create's rings
    // have IORING_SETUP_SUBMIT_ALL, where the kernel never stops early).
    b.StopIf(b.ir().CreateICmpNE(Pending(b), b.ir().getInt32(0)), StopReason::kSubmitFailed);
  });
}

}  // namespace uringc
