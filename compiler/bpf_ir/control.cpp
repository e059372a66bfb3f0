// If/else, bounded loops and run-once blocks; see control.h.
#include "bpf_ir/control.h"

namespace uringc {

void EmitIf(StepBuilder& sb, llvm::Value* cond, const EmitFn& then_fn, const EmitFn& else_fn) {
  llvm::IRBuilder<>& ir = sb.ir();
  llvm::BasicBlock* then_block = sb.NewBlock("if.then");
  llvm::BasicBlock* else_block = else_fn ? sb.NewBlock("if.else") : nullptr;
  llvm::BasicBlock* join = sb.NewBlock("if.end");
  ir.CreateCondBr(cond, then_block, else_block ? else_block : join);
  sb.SetBlock(then_block);
  if (then_fn) then_fn(sb);
  ir.CreateBr(join);
  if (else_block != nullptr) {
    sb.SetBlock(else_block);
    else_fn(sb);
    ir.CreateBr(join);
  }
  sb.SetBlock(join);
}

llvm::Value* EmitBoundedLoop(StepBuilder& sb, uint32_t bound,
                             const std::function<llvm::Value*(StepBuilder&, llvm::Value*)>& cond,
                             const std::function<void(StepBuilder&, llvm::Value*)>& body) {
  return EmitBoundedLoop(sb, sb.ir().getInt32(bound), cond, body);
}

llvm::Value* EmitBoundedLoop(StepBuilder& sb, llvm::Value* bound,
                             const std::function<llvm::Value*(StepBuilder&, llvm::Value*)>& cond,
                             const std::function<void(StepBuilder&, llvm::Value*)>& body) {
  llvm::IRBuilder<>& ir = sb.ir();
  llvm::BasicBlock* preheader = ir.GetInsertBlock();
  llvm::BasicBlock* header = sb.NewBlock("loop.header");
  llvm::BasicBlock* check = cond ? sb.NewBlock("loop.cond") : nullptr;
  llvm::BasicBlock* body_block = sb.NewBlock("loop.body");
  llvm::BasicBlock* latch = sb.NewBlock("loop.latch");
  llvm::BasicBlock* exit = sb.NewBlock("loop.exit");
  ir.CreateBr(header);

  sb.SetBlock(header);
  llvm::PHINode* i = ir.CreatePHI(ir.getInt32Ty(), 2, "i");
  i->addIncoming(ir.getInt32(0), preheader);
  ir.CreateCondBr(ir.CreateICmpULT(i, bound), check ? check : body_block, exit);
  if (check != nullptr) {
    sb.SetBlock(check);
    ir.CreateCondBr(cond(sb, i), body_block, exit);
  }

  sb.SetBlock(body_block);
  body(sb, i);
  ir.CreateBr(latch);

  sb.SetBlock(latch);
  i->addIncoming(ir.CreateAdd(i, ir.getInt32(1), "i.next", /*HasNUW=*/true), latch);
  ir.CreateBr(header);
  sb.SetBlock(exit);
  return i;
}

llvm::Value* EmitLazyOr(StepBuilder& sb, llvm::Value* cond,
                        const std::function<llvm::Value*(StepBuilder&)>& rest) {
  llvm::IRBuilder<>& ir = sb.ir();
  llvm::BasicBlock* from = ir.GetInsertBlock();
  llvm::BasicBlock* rest_block = sb.NewBlock("or.rest");
  llvm::BasicBlock* join = sb.NewBlock("or.end");
  ir.CreateCondBr(cond, join, rest_block);
  sb.SetBlock(rest_block);
  llvm::Value* value = rest(sb);
  llvm::BasicBlock* rest_end = ir.GetInsertBlock();
  ir.CreateBr(join);
  sb.SetBlock(join);
  llvm::PHINode* result = ir.CreatePHI(ir.getInt1Ty(), 2, "or");
  result->addIncoming(ir.getTrue(), from);
  result->addIncoming(value, rest_end);
  return result;
}

void EmitIterLoop(StepBuilder& sb, uint32_t count,
                  const std::function<void(StepBuilder&, llvm::Value*)>& body) {
  EmitIterLoop(sb, count, {}, body);
}

llvm::Value* EmitIterLoop(StepBuilder& sb, uint32_t count,
                          const std::function<llvm::Value*(StepBuilder&, llvm::Value*)>& cond,
                          const std::function<void(StepBuilder&, llvm::Value*)>& body) {
  llvm::IRBuilder<>& ir = sb.ir();
  BpfModule& m = sb.module();
  llvm::Function* f = ir.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
  entry.SetCurrentDebugLocation(ir.getCurrentDebugLocation());
  // struct bpf_iter_num: 8 bytes on the stack. Its lifetime lets loops that are not nested
  // share one slot (512 bytes of stack are all a program has).
  llvm::AllocaInst* it = entry.CreateAlloca(ir.getInt64Ty(), nullptr, "iter");
  it->setAlignment(llvm::Align(8));
  ir.CreateLifetimeStart(it);
  ir.CreateCall(m.IterNumKfunc(BpfModule::IterNum::kNew), {it, ir.getInt32(0), ir.getInt32(count)});
  llvm::BasicBlock* header = sb.NewBlock("iter.next");
  llvm::BasicBlock* body_block = sb.NewBlock("iter.body");
  llvm::BasicBlock* exit = sb.NewBlock("iter.exit");
  ir.CreateBr(header);
  sb.SetBlock(header);
  llvm::CallInst* at = ir.CreateCall(m.IterNumKfunc(BpfModule::IterNum::kNext), {it}, "iter.at");
  // One call site: LoopRotate would copy the call and its null check in front of the loop
  // (6 instructions more per loop, and the verifier gains nothing from it).
  at->setCannotDuplicate();
  ir.CreateCondBr(ir.CreateIsNull(at), exit, body_block);
  sb.SetBlock(body_block);
  llvm::Value* k = ir.CreateAlignedLoad(ir.getInt32Ty(), at, llvm::Align(4), "k");
  llvm::BasicBlock* stopped = nullptr;  // where cond(k) failed
  if (cond) {
    llvm::BasicBlock* go_on = sb.NewBlock("iter.cond");
    ir.CreateCondBr(cond(sb, k), go_on, exit);
    stopped = ir.GetInsertBlock();
    sb.SetBlock(go_on);
  }
  sb.OpenIterator(it);
  body(sb, k);
  sb.CloseIterator();
  ir.CreateBr(header);
  sb.SetBlock(exit);
  llvm::PHINode* ran = ir.CreatePHI(ir.getInt32Ty(), 2, "iter.ran");
  ran->addIncoming(ir.getInt32(count), header);
  if (stopped != nullptr) ran->addIncoming(k, stopped);
  ir.CreateCall(m.IterNumKfunc(BpfModule::IterNum::kDestroy), {it});
  ir.CreateLifetimeEnd(it);
  return ran;
}

llvm::Value* EmitStepLoop(StepBuilder& sb, uint32_t bound,
                          const std::function<llvm::Value*(StepBuilder&, llvm::Value*)>& cond,
                          const std::function<void(StepBuilder&, llvm::Value*)>& body) {
  if (bound <= kMostCountedIterations) return EmitBoundedLoop(sb, bound, cond, body);
  return EmitIterLoop(sb, bound, cond, body);
}

void EmitOnce(StepBuilder& sb, const std::string& name, const EmitFn& body) {
  llvm::GlobalVariable* flag = sb.module().AddBss(name, ScalarType::kU8, sb.location());
  llvm::Value* done = sb.Load(ScalarType::kU8, flag, 0, 1);
  EmitIf(sb, sb.ir().CreateICmpEQ(done, sb.Const(ScalarType::kU8, 0)), [&](StepBuilder& b) {
    b.Store(ScalarType::kU8, flag, 0, b.Const(ScalarType::kU8, 1), 1);
    body(b);
  });
}

}  // namespace uringc
