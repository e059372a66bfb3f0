// The step of a graph with several tasks: one loop over events. An event is a CQE or, when no
// CQE waits, the ready queue's first slot. A CQE that completes what its slot awaits runs that
// slot at once, in the same iteration: the common case (a task awaits one request after another)
// costs no push onto the ready queue, no pop and no second loop. Forks, deadlines, drained
// cancellations and slots that yield still go through the queue, which runs when no CQE waits.
#include <algorithm>
#include <cstdint>

#include "bpf_ir/control.h"
#include "llvm/IR/InstrTypes.h"
#include "lower/graph_lowerer.h"

namespace uringc::lower {

void GraphLowerer::Wake(StepBuilder& b, rgir::TaskId t, llvm::Value* idx) {
  if (!direct_.active) {
    Enqueue(b, t, idx);
    return;
  }
  llvm::IRBuilder<>& ir = b.ir();
  llvm::Value* idle = ir.CreateICmpEQ(Table(t).LoadVar(b, idx, kWordQueued), ir.getInt64(0));
  EmitIf(
      b, ir.CreateAnd(idle, RoomForARun(b)),
      [&](StepBuilder& b) {
        llvm::IRBuilder<>& ir = b.ir();
        ir.CreateStore(ir.getInt32(1), direct_.go);
        ir.CreateStore(ir.getInt32(t), direct_.task);
        ir.CreateStore(ir.CreateTrunc(idx, ir.getInt32Ty()), direct_.slot);
      },
      [&](StepBuilder& b) { Enqueue(b, t, idx); });
}

ReapResult GraphLowerer::EmitEventLoop(StepBuilder& sb, const RingRegions& regions) {
  llvm::IRBuilder<>& ir = sb.ir();
  {
    llvm::Function* f = ir.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
    entry.SetCurrentDebugLocation(ir.getCurrentDebugLocation());  // mem2reg's phis inherit it
    direct_.go = entry.CreateAlloca(entry.getInt32Ty(), nullptr, "run.go");
    direct_.task = entry.CreateAlloca(entry.getInt32Ty(), nullptr, "run.task");
    direct_.slot = entry.CreateAlloca(entry.getInt32Ty(), nullptr, "run.slot");
  }
  CqCursor cq = OpenCq(sb, regions, rc_);

  // A CQE is taken whatever the SQ's room (a woken slot that cannot run at once goes onto the
  // ready queue); with none waiting, a ready slot runs while the SQ has room for what one run
  // can push (RoomForARun), which is only then worked out.
  llvm::Value* head = nullptr;
  llvm::Value* has_cqe = nullptr;
  EmitStepLoop(
      sb, reap_budget_ + run_budget_,
      [&](StepBuilder& b, llvm::Value*) {
        llvm::IRBuilder<>& ir = b.ir();
        head = CqHead(b, cq);
        has_cqe = ir.CreateICmpNE(head, cq.tail);
        return EmitLazyOr(b, has_cqe, [&](StepBuilder& b) {
          llvm::IRBuilder<>& ir = b.ir();
          return ir.CreateAnd(ir.CreateAnd(Running(b), AnyReady(b)), RoomForARun(b));
        });
      },
      [&](StepBuilder& b, llvm::Value*) {
        llvm::IRBuilder<>& ir = b.ir();
        BeginRun(b);
        // All three stored first thing: nothing carried around the loop, nothing undef.
        for (llvm::AllocaInst* a : {direct_.go, direct_.task, direct_.slot})
          ir.CreateStore(ir.getInt32(0), a);
        llvm::BasicBlock* reap = b.NewBlock("event.cqe");
        llvm::BasicBlock* pop = b.NewBlock("event.ready");
        llvm::BasicBlock* run = b.NewBlock("event.run");
        ir.CreateCondBr(has_cqe, reap, pop);

        b.SetBlock(reap);
        direct_.active = true;
        EmitReapHandler(b, TakeCqe(b, cq, head), Running(b));
        direct_.active = false;
        ir.CreateBr(run);

        b.SetBlock(pop);  // no CQE: the loop's condition found a slot ready, and room to run it
        llvm::Value* entry = PopReady(b);
        ir.CreateStore(ir.getInt32(1), direct_.go);
        ir.CreateStore(ir.CreateLShr(entry, 16), direct_.task);
        ir.CreateStore(ir.CreateAnd(entry, ir.getInt32(0xffff)), direct_.slot);
        ir.CreateBr(run);

        b.SetBlock(run);
        llvm::Value* go = ir.CreateLoad(ir.getInt32Ty(), direct_.go);
        EmitIf(b, ir.CreateICmpNE(go, ir.getInt32(0)), [&](StepBuilder& b) {
          llvm::IRBuilder<>& ir = b.ir();
          RunSlot(b, ir.CreateLoad(ir.getInt32Ty(), direct_.task),
                  ir.CreateLoad(ir.getInt32Ty(), direct_.slot));
        });
      });
  SettleRoomForARun();

  // The in-flight count drops once, by the CQEs taken (several tasks always drain, layout.cpp).
  llvm::Value* new_head = CqHead(sb, cq);
  llvm::Value* taken = ir.CreateSub(new_head, cq.first);
  DropInflight(sb, ir.CreateSub(taken, TakeMoreCqes(sb)));
  return ReapResult{new_head, taken, cq.tail_ptr};
}

}  // namespace uringc::lower
