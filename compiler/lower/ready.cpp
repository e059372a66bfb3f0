// The ready set: which task slots run next in this step. A graph with several tasks keeps a FIFO
// queue of (task, slot) entries in .bss, with a `queued` word per slot so a slot is never on it
// twice. A graph with ONE task has one slot at a constant address and needs no queue: the slot's
// `queued` word reads "parked" (0: runnable, 1: waiting for a completion), so the zeroed .bss
// means "runnable", and its state 0 is the task's entry (no run-once start block).
#include "bpf_ir/control.h"
#include "lower/graph_lowerer.h"

namespace uringc::lower {

void GraphLowerer::Enqueue(StepBuilder& b, rgir::TaskId task, llvm::Value* idx) {
  llvm::IRBuilder<>& ir = b.ir();
  TaskTable& t = Table(task);
  ++wakes_in_run_;
  if (single_) {
    t.StoreVar(b, idx, kWordQueued, ir.getInt64(0));  // not parked
    return;
  }
  llvm::Value* entry = ir.CreateOr(ir.getInt32(task << 16), ir.CreateTrunc(idx, ir.getInt32Ty()));
  ir.CreateCall(EnqueueHelper(b), {t.VarAddress(b, idx, kWordQueued), entry});
}

// A slot goes on the queue from many places (a completion, a child's end, a cancelled request's
// drain, a yield, a deadline): the same dozen instructions each time, so they are one BPF
// subprogram, `uringc_<graph>_enqueue(queued, entry)`, which puts `entry` (task << 16 | slot) on
// the queue unless the slot's `queued` word says it is there already (the proxy had some 60
// copies of them, about 800 instructions).
llvm::Function* GraphLowerer::EnqueueHelper(StepBuilder& b) {
  if (enqueue_helper_ != nullptr) return enqueue_helper_;
  llvm::LLVMContext& ctx = m_.context();
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  auto* type = llvm::FunctionType::get(i32, {llvm::PointerType::get(ctx, 0), i32}, false);
  DebugTypes& types = m_.types();
  llvm::Function* fn = m_.CreateHelper(
      "uringc_" + g_.name + "_enqueue", type,
      {types.Int(), types.U64Ptr(), types.Scalar(ScalarType::kU32)}, {"queued", "entry"},
      b.program().decl);
  llvm::IRBuilder<> ir(ctx);
  BpfModule::BeginHelperBody(ir, fn);
  llvm::BasicBlock* put = llvm::BasicBlock::Create(ctx, "put", fn);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx, "done", fn);
  llvm::Value* queued = fn->getArg(0);
  ir.CreateCondBr(ir.CreateICmpEQ(ir.CreateAlignedLoad(i64, queued, llvm::Align(8)),
                                  ir.getInt64(0)),
                  put, done);
  ir.SetInsertPoint(put);
  ir.CreateAlignedStore(ir.getInt64(1), queued, llvm::Align(8));
  llvm::Value* tail = ir.CreateAlignedLoad(i32, ready_tail_, llvm::Align(4), /*isVolatile=*/true);
  llvm::Value* at = ir.CreateZExt(ir.CreateAnd(tail, ir.getInt32(ready_size_ - 1)), i64);
  ir.CreateAlignedStore(fn->getArg(1),
                        ir.CreateInBoundsGEP(ir.getInt8Ty(), ready_, {ir.CreateShl(at, 2)}),
                        llvm::Align(4));
  ir.CreateAlignedStore(ir.CreateAdd(tail, ir.getInt32(1)), ready_tail_, llvm::Align(4),
                        /*isVolatile=*/true);
  ir.CreateBr(done);
  ir.SetInsertPoint(done);
  ir.CreateRet(ir.getInt32(0));  // a subprogram's exit reads r0
  enqueue_helper_ = fn;
  return fn;
}

// The first step writes the literals into the region and, with several tasks, queues task 0
// (one flag for both); a one-task graph needs no start (state 0 is the entry and the slot starts
// runnable), so it has a flag only when it has literals.
void GraphLowerer::EmitStartGraph(StepBuilder& b) {
  if (single_) {
    if (!g_.literals.empty()) {
      EmitOnce(b, "uringc_" + g_.name + "_literals", [&](StepBuilder& b) { EmitWriteLiterals(b); });
    }
    return;
  }
  EmitOnce(b, "uringc_" + g_.name + "_started", [&](StepBuilder& b) {
    EmitWriteLiterals(b);
    llvm::Value* zero = b.ir().getInt64(0);
    Table(0).StoreState(b, zero, StartState(g_.tasks[0].entry));
    Enqueue(b, 0, zero);
  });
}

llvm::Value* GraphLowerer::AnyReady(StepBuilder& b) {
  llvm::IRBuilder<>& ir = b.ir();
  if (single_) {
    return ir.CreateICmpEQ(Table(0).LoadVar(b, ir.getInt64(0), kWordQueued), ir.getInt64(0));
  }
  return ir.CreateICmpNE(b.Load(ScalarType::kU32, ready_head_, 0, 4, true),
                         b.Load(ScalarType::kU32, ready_tail_, 0, 4, true));
}

void GraphLowerer::ClearReady(StepBuilder& b) {
  if (single_) {
    Table(0).StoreVar(b, b.ir().getInt64(0), kWordQueued, b.ir().getInt64(1));
    return;
  }
  b.Store(ScalarType::kU32, ready_head_, 0, b.Load(ScalarType::kU32, ready_tail_, 0, 4, true), 4,
          true);
}

void GraphLowerer::EmitRunOne(StepBuilder& b) {
  llvm::IRBuilder<>& ir = b.ir();
  llvm::Value* idx = ir.getInt64(0);
  b.SetLocation(g_.tasks[0].range);
  Table(0).StoreVar(b, idx, kWordQueued, ir.getInt64(1));  // parked until something wakes it
  in_run_code_ = true;
  run_entries_.insert(ir.GetInsertBlock());
  EmitTaskRun(b, Here{0, idx});
  in_run_code_ = false;
}

llvm::Value* GraphLowerer::PopReady(StepBuilder& b) {
  llvm::IRBuilder<>& ir = b.ir();
  llvm::Value* head = b.Load(ScalarType::kU32, ready_head_, 0, 4, true);
  llvm::Value* at = ir.CreateZExt(ir.CreateAnd(head, ir.getInt32(ready_size_ - 1)), ir.getInt64Ty());
  llvm::Value* entry = b.Load(ScalarType::kU32, b.At(ready_, ir.CreateShl(at, 2)), 0, 4);
  b.Store(ScalarType::kU32, ready_head_, 0, ir.CreateAdd(head, ir.getInt32(1)), 4, true);
  return entry;
}

llvm::SwitchInst* GraphLowerer::EmitForSlot(
    StepBuilder& b, llvm::Value* task, llvm::Value* slot,
    const std::function<void(StepBuilder&, rgir::TaskId, llvm::Value* idx)>& body) {
  llvm::IRBuilder<>& ir = b.ir();
  llvm::BasicBlock* end = b.NewBlock("slot.end");
  llvm::SwitchInst* sw = ir.CreateSwitch(task, end, g_.tasks.size());
  for (rgir::TaskId t = 0; t < g_.tasks.size(); ++t) {
    llvm::BasicBlock* bb = b.NewBlock("slot.task");
    sw->addCase(ir.getInt32(t), bb);
    b.SetBlock(bb);
    body(b, t, Table(t).CheckedIndex(b, slot));
    ir.CreateBr(end);
  }
  b.SetBlock(end);
  return sw;
}

}  // namespace uringc::lower
