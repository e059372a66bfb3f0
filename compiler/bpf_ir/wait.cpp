// cq_wait_idx and the CONTINUE return; see wait.h.
#include "bpf_ir/wait.h"

namespace uringc {

void EmitSetWaitIndex(StepBuilder& sb, llvm::Value* index) {
  // struct iou_loop_params { __u32 cq_wait_idx; }: one field at offset 0.
  sb.Store(ScalarType::kU32, sb.loop_params(), 0, index, 4);
}

void EmitContinueAtNextCqe(StepBuilder& sb, const ReapResult& reaped) {
  llvm::IRBuilder<>& ir = sb.ir();
  llvm::Value* head = reaped.head;
  llvm::Value* tail = sb.Load(ScalarType::kU32, reaped.cq_tail_ptr, 0, 4, /*is_volatile=*/true);
  llvm::Value* waiting = ir.CreateICmpNE(tail, head);
  EmitSetWaitIndex(sb, ir.CreateSelect(waiting, head, ir.CreateAdd(head, ir.getInt32(1))));
  sb.Return(LoopAction::kContinue);
}

}  // namespace uringc
