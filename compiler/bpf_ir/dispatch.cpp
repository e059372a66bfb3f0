// Dispatch of completions by user_data; see dispatch.h.
#include "bpf_ir/dispatch.h"

namespace uringc {

llvm::Value* EmitUserData(StepBuilder& sb, llvm::Value* task, uint32_t point) {
  llvm::IRBuilder<>& ir = sb.ir();
  llvm::Value* high = ir.CreateShl(ir.CreateZExtOrTrunc(task, ir.getInt64Ty()), 32);
  return ir.CreateOr(high, ir.getInt64(point), "user_data");
}

void EmitDispatch(StepBuilder& sb, const Cqe& cqe, const std::vector<AwaitCase>& cases,
                  const std::function<void(StepBuilder&, const Cqe&)>& unknown) {
  llvm::IRBuilder<>& ir = sb.ir();
  llvm::Value* point = ir.CreateTrunc(cqe.user_data, ir.getInt32Ty(), "await_point");
  llvm::Value* task = ir.CreateTrunc(ir.CreateLShr(cqe.user_data, 32), ir.getInt32Ty(), "task");
  llvm::BasicBlock* unknown_block = sb.NewBlock("dispatch.unknown");
  llvm::BasicBlock* join = sb.NewBlock("dispatch.end");
  llvm::SwitchInst* sw = ir.CreateSwitch(point, unknown_block, cases.size());
  for (const AwaitCase& c : cases) {
    llvm::BasicBlock* block = sb.NewBlock("await");
    sw->addCase(ir.getInt32(c.point), block);
    sb.SetBlock(block);
    c.body(sb, task, cqe);
    ir.CreateBr(join);
  }
  sb.SetBlock(unknown_block);
  if (unknown) {
    unknown(sb, cqe);
  } else {
    sb.Stop(StopReason::kBadCqe);
  }
  ir.CreateBr(join);
  sb.SetBlock(join);
}

}  // namespace uringc
