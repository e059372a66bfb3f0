// Per-task state slots in .bss; see task_table.h.
#include "bpf_ir/task_table.h"

#include "llvm/IR/InlineAsm.h"

namespace uringc {

TaskTable::TaskTable(BpfModule& module, const std::string& name, uint32_t tasks, uint32_t vars,
                     SourceRange decl)
    : tasks_(tasks), vars_(vars) {
  llvm::DIBuilder& di = module.di();
  DebugTypes& types = module.types();
  llvm::DIFile* file = module.File(decl.file);
  uint64_t slot_bits = 64 + 64 * uint64_t{vars};
  auto* slot = di.createStructType(file, name + "_slot", file, 0, slot_bits, 64,
                                   llvm::DINode::FlagZero, nullptr, di.getOrCreateArray({}));
  std::vector<llvm::Metadata*> members = {
      di.createMemberType(slot, "state", file, 0, 32, 32, 0, llvm::DINode::FlagZero,
                          types.Scalar(ScalarType::kU32)),
      di.createMemberType(slot, "reserved", file, 0, 32, 32, 32, llvm::DINode::FlagZero,
                          types.Scalar(ScalarType::kU32))};
  if (vars > 0) {
    members.push_back(di.createMemberType(
        slot, "vars", file, 0, 64 * vars, 64, 64, llvm::DINode::FlagZero,
        types.Array(types.Scalar(ScalarType::kU64), 64, 64, vars)));
  }
  di.replaceArrays(slot, di.getOrCreateArray(members));
  llvm::Type* ir = llvm::ArrayType::get(
      llvm::ArrayType::get(llvm::Type::getInt64Ty(module.context()), 1 + vars), tasks);
  global_ = module.AddBss(name, ir, types.Array(slot, slot_bits, 64, tasks), 8, decl);
}

llvm::Value* TaskTable::CheckedIndex(StepBuilder& sb, llvm::Value* task, StopReason reason) {
  llvm::IRBuilder<>& ir = sb.ir();
  task = ir.CreateZExt(ir.CreateZExtOrTrunc(task, ir.getInt32Ty()), ir.getInt64Ty());
  // An empty inline-asm barrier: LLVM may otherwise use what it knows about the index (e.g. that
  // its low 16 bits are 0) to address the slot through another register the verifier never saw
  // checked. Behind the barrier the checked register is the one used.
  auto* barrier_type = llvm::FunctionType::get(ir.getInt64Ty(), {ir.getInt64Ty()}, false);
  task = ir.CreateCall(llvm::InlineAsm::get(barrier_type, "", "=r,0", /*hasSideEffects=*/true),
                       {task});
  sb.StopIf(ir.CreateICmpUGE(task, ir.getInt64(tasks_)), reason);
  return task;
}

llvm::Value* TaskTable::Slot(StepBuilder& sb, llvm::Value* index) {
  llvm::IRBuilder<>& ir = sb.ir();
  index = ir.CreateZExtOrTrunc(index, ir.getInt64Ty());
  return sb.At(global_, ir.CreateMul(index, ir.getInt64(stride()), "slot_off", true, true));
}

llvm::Value* TaskTable::LoadState(StepBuilder& sb, llvm::Value* index) {
  return sb.Load(ScalarType::kU32, Slot(sb, index), 0, 8);
}

void TaskTable::StoreState(StepBuilder& sb, llvm::Value* index, uint32_t state) {
  sb.Store(ScalarType::kU32, Slot(sb, index), 0, sb.Const(ScalarType::kU32, state), 8);
}

llvm::Value* TaskTable::LoadVar(StepBuilder& sb, llvm::Value* index, uint32_t var) {
  return sb.Load(ScalarType::kU64, Slot(sb, index), 8 + 8 * uint64_t{var}, 8);
}

llvm::Value* TaskTable::LoadVarLow32(StepBuilder& sb, llvm::Value* index, uint32_t var) {
  return sb.Load(ScalarType::kS32, Slot(sb, index), 8 + 8 * uint64_t{var}, 4);
}

void TaskTable::StoreVar(StepBuilder& sb, llvm::Value* index, uint32_t var, llvm::Value* value) {
  sb.Store(ScalarType::kU64, Slot(sb, index), 8 + 8 * uint64_t{var}, value, 8);
}

llvm::Value* TaskTable::VarAddress(StepBuilder& sb, llvm::Value* index, uint32_t var) {
  return sb.At(Slot(sb, index), sb.ir().getInt64(8 + 8 * uint64_t{var}));
}

llvm::Value* TaskTable::LoadVarAt(StepBuilder& sb, llvm::Value* index, llvm::Value* var) {
  llvm::IRBuilder<>& ir = sb.ir();
  llvm::Value* off = ir.CreateAdd(ir.CreateShl(var, 3), ir.getInt64(8), "var_off");
  return sb.Load(ScalarType::kU64, sb.At(Slot(sb, index), off), 0, 8);
}

void TaskTable::StoreVarAt(StepBuilder& sb, llvm::Value* index, llvm::Value* var,
                           llvm::Value* value) {
  llvm::IRBuilder<>& ir = sb.ir();
  llvm::Value* off = ir.CreateAdd(ir.CreateShl(var, 3), ir.getInt64(8), "var_off");
  sb.Store(ScalarType::kU64, sb.At(Slot(sb, index), off), 0, value, 8);
}

}  // namespace uringc
