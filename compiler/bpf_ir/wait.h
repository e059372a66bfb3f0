// Ending a step that keeps running: tell the kernel when to call loop_step again through
// `iou_loop_params.cq_wait_idx` (the kernel sleeps until the CQ tail reaches it; early wake-ups
// happen, so every step re-reads the ring). The struct is written at its plain offset 0, not
// through CO-RE (see emit/bpf_module.h for why).
#pragma once

#include "bpf_ir/step_builder.h"

namespace uringc {

/// lp->cq_wait_idx = index (an i32).
void EmitSetWaitIndex(StepBuilder& sb, llvm::Value* index);

}  // namespace uringc
