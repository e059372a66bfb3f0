// The bounded CQE reaping loop; see reap.h.
#include "bpf_ir/reap.h"

#include <linux/io_uring.h>

#include <cstddef>

#include "bpf_ir/control.h"

namespace uringc {

static_assert(sizeof(io_uring_cqe) == 16 && offsetof(io_uring_cqe, user_data) == 0 &&
              offsetof(io_uring_cqe, res) == 8 && offsetof(io_uring_cqe, flags) == 12);

namespace {

Cqe LoadCqe(StepBuilder& b, llvm::Value* cqes, llvm::Value* head, llvm::Value* mask) {
  llvm::IRBuilder<>& ir = b.ir();
  llvm::Value* index = ir.CreateAnd(head, mask);
  llvm::Value* offset = ir.CreateShl(ir.CreateZExt(index, ir.getInt64Ty()), 4, "cqe_off");  // * 16
  llvm::Value* cqe = b.At(cqes, offset);
  Cqe c;
  c.user_data = b.Load(ScalarType::kU64, cqe, offsetof(io_uring_cqe, user_data), 8);
  c.res = b.Load(ScalarType::kS32, cqe, offsetof(io_uring_cqe, res), 4);
  c.flags = b.Load(ScalarType::kU32, cqe, offsetof(io_uring_cqe, flags), 4);
  return c;
}

}  // namespace

CqCursor OpenCq(StepBuilder& sb, const RingRegions& regions, const RingConstants& rc) {
  llvm::IRBuilder<>& ir = sb.ir();
  CqCursor cq;
  cq.head_ptr = sb.At(regions.rings, ir.CreateZExt(rc.cq_head_off.Read(sb), ir.getInt64Ty()));
  cq.tail_ptr = sb.At(regions.rings, ir.CreateZExt(rc.cq_tail_off.Read(sb), ir.getInt64Ty()));
  cq.cqes = sb.At(regions.rings, ir.CreateZExt(rc.cqes_off.Read(sb), ir.getInt64Ty()));
  cq.mask = ir.CreateSub(rc.cq_entries.Read(sb), ir.getInt32(1), "cq_mask");
  cq.first = CqHead(sb, cq);
  cq.tail = sb.Load(ScalarType::kU32, cq.tail_ptr, 0, 4, /*is_volatile=*/true);
  return cq;
}

llvm::Value* CqHead(StepBuilder& b, const CqCursor& cq) {
  return b.Load(ScalarType::kU32, cq.head_ptr, 0, 4, /*is_volatile=*/true);
}

Cqe TakeCqe(StepBuilder& b, const CqCursor& cq, llvm::Value* head) {
  Cqe c = LoadCqe(b, cq.cqes, head, cq.mask);
  b.Store(ScalarType::kU32, cq.head_ptr, 0, b.ir().CreateAdd(head, b.ir().getInt32(1)), 4,
          /*is_volatile=*/true);
  return c;
}

ReapResult EmitReapLoop(StepBuilder& sb, const RingRegions& regions, const RingConstants& rc,
                        uint32_t max_cqes, const CqeHandler& handler) {
  llvm::IRBuilder<>& ir = sb.ir();
  llvm::Value* cq_head_ptr =
      sb.At(regions.rings, ir.CreateZExt(rc.cq_head_off.Read(sb), ir.getInt64Ty()));
  llvm::Value* cq_tail_ptr =
      sb.At(regions.rings, ir.CreateZExt(rc.cq_tail_off.Read(sb), ir.getInt64Ty()));
  llvm::Value* cqes = sb.At(regions.rings, ir.CreateZExt(rc.cqes_off.Read(sb), ir.getInt64Ty()));
  llvm::Value* cq_mask = ir.CreateSub(rc.cq_entries.Read(sb), ir.getInt32(1), "cq_mask");
  // We own the head; the kernel publishes the tail.
  llvm::Value* head = sb.Load(ScalarType::kU32, cq_head_ptr, 0, 4);
  llvm::Value* tail = sb.Load(ScalarType::kU32, cq_tail_ptr, 0, 4, /*is_volatile=*/true);

  llvm::Value* reaped = EmitStepLoop(
      sb, max_cqes,
      [&](StepBuilder& b, llvm::Value* i) {
        return b.ir().CreateICmpNE(b.ir().CreateAdd(head, i), tail);
      },
      [&](StepBuilder& b, llvm::Value* i) {
        handler(b, LoadCqe(b, cqes, b.ir().CreateAdd(head, i), cq_mask));
      });
  llvm::Value* new_head = ir.CreateAdd(head, reaped, "cq_head");
  sb.Store(ScalarType::kU32, cq_head_ptr, 0, new_head, 4, /*is_volatile=*/true);
  return ReapResult{new_head, reaped, cq_tail_ptr};
}

}  // namespace uringc
