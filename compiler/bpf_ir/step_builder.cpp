// The per-program lowering context; see step_builder.h.
#include "bpf_ir/step_builder.h"

namespace uringc {

StepBuilder::StepBuilder(BpfModule& module, const BpfProgram& program,
                         StatusConvention convention)
    : module_(module), program_(program), convention_(convention), ir_(module.context()) {
  const bool runtime = convention == StatusConvention::kRuntime;
  status_ = module.AddBss(runtime ? "uringc_status" : program.name + "_status", ScalarType::kU32,
                          program.decl);
  detail_ = module.AddBss(runtime ? "uringc_error" : program.name + "_detail", ScalarType::kS32,
                          program.decl);
  ir_.SetInsertPoint(llvm::BasicBlock::Create(context(), "entry", program.function));
  SetLocation(program.decl);
  // struct_ops programs receive `u64 *ctx`; argument k is ctx[k].
  llvm::Value* ctx = program.function->getArg(0);
  llvm::Type* ptr = llvm::PointerType::get(context(), 0);
  ring_ = ir_.CreateIntToPtr(Load(ScalarType::kU64, ctx, 0, 8), ptr, "ring");
  loop_params_ = ir_.CreateIntToPtr(Load(ScalarType::kU64, ctx, 8, 8), ptr, "lp");
}

std::string StepBuilder::InternalName(std::string_view suffix) const {
  std::string prefix = convention_ == StatusConvention::kRuntime ? "uringc_" : "";
  return prefix + program_.name + "_" + std::string(suffix);
}

void StepBuilder::SetLocation(SourceRange range) {
  location_ = range;
  ir_.SetCurrentDebugLocation(llvm::DebugLoc(module_.Location(range, program_)));
}

llvm::ConstantInt* StepBuilder::Const(ScalarType type, uint64_t value) {
  return llvm::ConstantInt::get(module_.IrType(type), value);
}

llvm::Value* StepBuilder::At(llvm::Value* base, uint64_t offset) {
  if (offset == 0) return base;
  return ir_.CreateConstInBoundsGEP1_64(ir_.getInt8Ty(), base, offset);
}

llvm::Value* StepBuilder::At(llvm::Value* base, llvm::Value* offset) {
  return ir_.CreateInBoundsGEP(ir_.getInt8Ty(), base, {offset});
}

llvm::Value* StepBuilder::Load(ScalarType type, llvm::Value* base, uint64_t offset,
                               uint32_t align, bool is_volatile) {
  return ir_.CreateAlignedLoad(module_.IrType(type), At(base, offset), llvm::Align(align),
                               is_volatile);
}

void StepBuilder::Store(ScalarType type, llvm::Value* base, uint64_t offset, llvm::Value* value,
                        uint32_t align, bool is_volatile) {
  value = ir_.CreateZExtOrTrunc(value, module_.IrType(type));
  ir_.CreateAlignedStore(value, At(base, offset), llvm::Align(align), is_volatile);
}

llvm::Value* StepBuilder::ReadConst(llvm::GlobalVariable* rodata) {
  return ir_.CreateAlignedLoad(rodata->getValueType(), rodata, rodata->getAlign().valueOrOne(),
                               /*isVolatile=*/true, rodata->getName());
}

llvm::Value* StepBuilder::ReadConstField(llvm::IRBuilder<>& ir, llvm::GlobalVariable* rodata,
                                         uint32_t index) {
  llvm::Value* field = ir.CreateConstInBoundsGEP2_32(rodata->getValueType(), rodata, 0, index);
  return ir.CreateAlignedLoad(ir.getInt32Ty(), field, llvm::Align(4), /*isVolatile=*/true);
}

void StepBuilder::Increment(llvm::GlobalVariable* global, ScalarType type, uint64_t delta) {
  uint32_t size = ScalarSize(type);
  llvm::Value* v = Load(type, global, 0, size);
  Store(type, global, 0, ir_.CreateAdd(v, Const(type, delta)), size);
}

llvm::BasicBlock* StepBuilder::NewBlock(const llvm::Twine& name) {
  return llvm::BasicBlock::Create(context(), name, program_.function);
}

void StepBuilder::SetBlock(llvm::BasicBlock* block) { ir_.SetInsertPoint(block); }

void StepBuilder::Return(LoopAction action) {
  ir_.CreateRet(ir_.getInt32(static_cast<uint32_t>(action)));
  SetBlock(NewBlock("after.return"));
}

void StepBuilder::Stop(StopReason reason, llvm::Value* detail) {
  if (convention_ == StatusConvention::kRuntime) {
    if (reason == StopReason::kDone) {
      // 1 done; a detail (none today) would go to the error word.
      Store(ScalarType::kU32, status_, 0, Const(ScalarType::kU32, 1), 4);
      if (detail != nullptr) {
        Store(ScalarType::kS32, detail_, 0, ir_.CreateSExtOrTrunc(detail, ir_.getInt32Ty()), 4);
      }
      Return(LoopAction::kStop);
      return;
    }
    FailWith(detail != nullptr ? ir_.CreateSExtOrTrunc(detail, ir_.getInt32Ty())
                               : ir_.getInt32(static_cast<uint32_t>(-ErrnoFor(reason))));
    return;
  }
  Store(ScalarType::kU32, status_, 0, Const(ScalarType::kU32, static_cast<uint32_t>(reason)), 4);
  if (detail != nullptr) {
    Store(ScalarType::kS32, detail_, 0, ir_.CreateSExtOrTrunc(detail, ir_.getInt32Ty()), 4);
  }
  Return(LoopAction::kStop);
}

int32_t StepBuilder::ErrnoFor(StopReason reason) {
  switch (reason) {
    case StopReason::kNoRegion: return 14;      // EFAULT
    case StopReason::kSubmitFailed: return 11;  // EAGAIN
    case StopReason::kBadCqe: return 71;        // EPROTO
    case StopReason::kSqFull: return 16;        // EBUSY
    default: return 5;                          // EIO
  }
}

void StepBuilder::FailWith(llvm::Value* error) {
  // Every failing path of the program joins one block: status 2, error word from a phi, STOP.
  // A block per failure site (two global stores and a return) cost ~5 BPF instructions each,
  // a fifth of a multi-task graph's code; the joined path costs one move and a jump.
  if (fail_block_ == nullptr) {
    llvm::IRBuilderBase::InsertPointGuard guard(ir_);
    fail_block_ = NewBlock("failed");
    ir_.SetInsertPoint(fail_block_);
    ir_.SetCurrentDebugLocation(llvm::DebugLoc(module_.Location(program_.decl, program_)));
    fail_error_ = ir_.CreatePHI(ir_.getInt32Ty(), 4, "error");
    Store(ScalarType::kU32, status_, 0, Const(ScalarType::kU32, 2), 4);
    Store(ScalarType::kS32, detail_, 0, fail_error_, 4);
    ir_.CreateRet(ir_.getInt32(static_cast<uint32_t>(LoopAction::kStop)));
  }
  fail_error_->addIncoming(error, ir_.GetInsertBlock());
  ir_.CreateBr(fail_block_);
  SetBlock(NewBlock("after.fail"));
}

void StepBuilder::StopIf(llvm::Value* cond, StopReason reason, llvm::Value* detail) {
  llvm::BasicBlock* stop = NewBlock("stop");
  llvm::BasicBlock* cont = NewBlock("cont");
  ir_.CreateCondBr(cond, stop, cont);
  SetBlock(stop);
  Stop(reason, detail);
  SetBlock(cont);
}

void StepBuilder::ReturnIfStopped() {
  llvm::Value* status = Load(ScalarType::kU32, status_, 0, 4);
  llvm::BasicBlock* stopped = NewBlock("stopped");
  llvm::BasicBlock* cont = NewBlock("running");
  ir_.CreateCondBr(ir_.CreateICmpNE(status, Const(ScalarType::kU32, 0)), stopped, cont);
  SetBlock(stopped);
  Return(LoopAction::kStop);
  SetBlock(cont);
}

}  // namespace uringc
