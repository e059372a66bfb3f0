// cq_wait_idx and the CONTINUE return; see wait.h.
#include "bpf_ir/wait.h"

namespace uringc {

void EmitSetWaitIndex(StepBuilder& sb, llvm::Value* index) {
  // struct iou_loop_params { __u32 cq_wait_idx; }: one field at offset 0.
  sb.Store(ScalarType::kU32, sb.loop_params(), 0, index, 4);
}

}  // namespace uringc
