// If/else, bounded loops and run-once blocks; see control.h.
#include "bpf_ir/control.h"

#include <string>

#include "llvm/IR/InlineAsm.h"

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

llvm::Value* EmitLazySelect(StepBuilder& sb, llvm::Value* cond, llvm::Value* if_true,
                            const std::function<llvm::Value*(StepBuilder&)>& rest,
                            const char* name) {
  llvm::IRBuilder<>& ir = sb.ir();
  llvm::BasicBlock* from = ir.GetInsertBlock();
  llvm::BasicBlock* rest_block = sb.NewBlock(llvm::Twine(name) + ".rest");
  llvm::BasicBlock* join = sb.NewBlock(llvm::Twine(name) + ".end");
  ir.CreateCondBr(cond, join, rest_block);
  sb.SetBlock(rest_block);
  llvm::Value* value = rest(sb);
  llvm::BasicBlock* rest_end = ir.GetInsertBlock();
  ir.CreateBr(join);
  sb.SetBlock(join);
  llvm::PHINode* result = ir.CreatePHI(value->getType(), 2, name);
  result->addIncoming(if_true, from);
  result->addIncoming(value, rest_end);
  return result;
}

llvm::Value* EmitLazyOr(StepBuilder& sb, llvm::Value* cond,
                        const std::function<llvm::Value*(StepBuilder&)>& rest) {
  return EmitLazySelect(sb, cond, sb.ir().getTrue(), rest, "or");
}

void EmitIterLoop(StepBuilder& sb, uint32_t count,
                  const std::function<void(StepBuilder&, llvm::Value*)>& body) {
  EmitIterLoop(sb, count, {}, body);
}

namespace {

// `.bss __u32 uringc_<program>_loop<N>`: the loop's counter, a map value the verifier reads as
// any number, so its states at the loop head repeat whatever the iteration.
llvm::GlobalVariable* LoopCounter(StepBuilder& sb) {
  llvm::Module& m = sb.module().module();
  const std::string base =
      "uringc_" + sb.ir().GetInsertBlock()->getParent()->getName().str() + "_loop";
  std::string name;
  for (int n = 0; name.empty() || m.getGlobalVariable(name, true) != nullptr; ++n)
    name = base + std::to_string(n);
  return sb.module().AddBss(name, ScalarType::kU32, sb.location());
}

}  // namespace

llvm::Value* EmitIterLoop(StepBuilder& sb, uint32_t count,
                          const std::function<llvm::Value*(StepBuilder&, llvm::Value*)>& cond,
                          const std::function<void(StepBuilder&, llvm::Value*)>& body) {
  llvm::IRBuilder<>& ir = sb.ir();
  llvm::GlobalVariable* counter = LoopCounter(sb);
  sb.Store(ScalarType::kU32, counter, 0, ir.getInt32(0), 4, /*is_volatile=*/true);
  llvm::BasicBlock* header = sb.NewBlock("iter.next");
  llvm::BasicBlock* check = sb.NewBlock("iter.check");
  llvm::BasicBlock* body_block = sb.NewBlock("iter.body");
  llvm::BasicBlock* spent = sb.NewBlock("iter.spent");
  llvm::BasicBlock* exit = sb.NewBlock("iter.exit");
  ir.CreateBr(header);
  // may_goto (Linux 6.9+): goes on while the program's loop budget lasts, else jumps out. The
  // verifier walks the body until its states at this instruction repeat. Its offset has 16 bits,
  // too few in a large program, so it jumps over the next instruction to a `gotol` (32 bits).
  sb.SetBlock(header);
  auto* may_goto_type = llvm::FunctionType::get(ir.getVoidTy(), false);
  llvm::CallBrInst* may_goto = ir.CreateCallBr(
      llvm::InlineAsm::get(may_goto_type, "may_goto 1f\n\tgoto 2f\n1:\n\tgotol ${0:l}\n2:",
                           "!i", /*hasSideEffects=*/true),
      check, {spent}, {});
  may_goto->setCannotDuplicate();  // one loop head, as the verifier expects
  sb.SetBlock(check);
  llvm::Value* k = sb.Load(ScalarType::kU32, counter, 0, 4, /*is_volatile=*/true);
  llvm::BasicBlock* in_range = ir.GetInsertBlock();
  llvm::BasicBlock* go_on = sb.NewBlock("iter.go");
  ir.CreateCondBr(ir.CreateICmpULT(k, ir.getInt32(count)), go_on, exit);
  sb.SetBlock(go_on);
  sb.Store(ScalarType::kU32, counter, 0, ir.CreateAdd(k, ir.getInt32(1)), 4, /*is_volatile=*/true);
  llvm::BasicBlock* stopped = nullptr;  // where cond(k) failed
  if (cond) {
    ir.CreateCondBr(cond(sb, k), body_block, exit);
    stopped = ir.GetInsertBlock();
  } else {
    ir.CreateBr(body_block);
  }
  sb.SetBlock(body_block);
  sb.OpenIterator();
  body(sb, k);
  sb.CloseIterator();
  ir.CreateBr(header);
  sb.SetBlock(spent);  // the budget ran out: as many iterations as the counter says
  llvm::Value* done = sb.Load(ScalarType::kU32, counter, 0, 4, /*is_volatile=*/true);
  ir.CreateBr(exit);
  sb.SetBlock(exit);
  llvm::PHINode* ran = ir.CreatePHI(ir.getInt32Ty(), 3, "iter.ran");
  ran->addIncoming(ir.getInt32(count), in_range);
  ran->addIncoming(done, spent);
  if (stopped != nullptr) ran->addIncoming(k, stopped);
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
