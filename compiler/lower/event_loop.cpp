// The step of a graph with several tasks: one loop over events. An event is a CQE or, when no
// CQE waits, the ready queue's first slot. A CQE that completes what its slot awaits branches
// straight into that task's run block, with the slot index it already checked: the common case
// (a task awaits one request after another) costs no push onto the ready queue, no pop, no
// second switch over the tasks and no second bounds check. Forks, deadlines, drained
// cancellations and slots that yield still go through the queue, which runs when no CQE waits;
// an accept hub, which hands its CQE to one of several waiting slots in a loop, names the slot
// it woke and the run follows the hub's handler, through the same switch as the queue's.
#include <algorithm>
#include <cstdint>

#include "bpf_ir/control.h"
#include "llvm/IR/InstrTypes.h"
#include "lower/graph_lowerer.h"

namespace uringc::lower {

void GraphLowerer::Wake(StepBuilder& b, rgir::TaskId t, llvm::Value* idx, llvm::Value* res) {
  WakeFrom(b, t, idx, /*at_once=*/true, res);
}

void GraphLowerer::WakeAfterHandler(StepBuilder& b, rgir::TaskId t, llvm::Value* idx) {
  WakeFrom(b, t, idx, /*at_once=*/false);
}

void GraphLowerer::WakeFrom(StepBuilder& b, rgir::TaskId t, llvm::Value* idx, bool at_once,
                            llvm::Value* res) {
  llvm::IRBuilder<>& ir = b.ir();
  const bool straight = direct_.active && at_once && WakesStraightIn(t);
  // The result goes into the slot unless a straight wake carries it in a register.
  auto store_res = [&](StepBuilder& b) {
    if (res != nullptr) {
      Table(t).StoreVar(b, idx, kWordRes, b.ir().CreateSExt(res, b.ir().getInt64Ty()));
    }
  };
  if (!straight) store_res(b);
  if (!direct_.active) {
    Enqueue(b, t, idx);
    return;
  }
  llvm::Value* idle =
      straight ? ir.getTrue()
               : ir.CreateICmpEQ(Table(t).LoadVar(b, idx, kWordQueued), ir.getInt64(0));
  EmitIf(
      b, ir.CreateAnd(idle, RoomForARun(b)),
      [&](StepBuilder& b) {
        llvm::IRBuilder<>& ir = b.ir();
        if (straight) {
          EndCqeBuffer(b, *direct_.cqe);
          BranchToWoken(b, t, idx, res != nullptr ? res : Table(t).LoadVarLow32(b, idx, kWordRes));
          return;
        }
        if (at_once) {
          EndCqeBuffer(b, *direct_.cqe);  // what the handler would have done after this
          EnterRunBlock(b, t, idx);
          return;
        }
        ir.CreateStore(ir.getInt32(1), direct_.go);
        ir.CreateStore(ir.getInt32(t), direct_.task);
        ir.CreateStore(ir.CreateTrunc(idx, ir.getInt32Ty()), direct_.slot);
      },
      [&](StepBuilder& b) {
        if (straight) store_res(b);
        Enqueue(b, t, idx);
      });
}

// A slot whose awaited CQE came (its sequence number matched) is not on the ready queue, not
// finished, and has no cancelled request draining below it: Enqueue's other callers make a slot
// runnable only when it awaits no request (a fork, a join or race, a drain, a yield), finishing or
// cancelling a slot marks its sequence number cancelled, and a task that cancelled runs on only
// once drained, so it cannot await a request meanwhile. The exception is a deadline (or a
// stream) scope: a fired deadline queues the slot with the request still awaited (the run
// cancels it), so a task with scopes takes the run block's checks.
bool GraphLowerer::WakesStraightIn(rgir::TaskId t) const { return tasks_[t].scopes.empty(); }

void GraphLowerer::OpenRunBlocks(StepBuilder& b) {
  llvm::IRBuilder<>& ir = b.ir();
  llvm::BasicBlock* at = ir.GetInsertBlock();
  direct_.run.clear();
  direct_.run_idx.clear();
  direct_.woken.clear();
  direct_.woken_idx.clear();
  direct_.woken_res.clear();
  for (rgir::TaskId t = 0; t < g_.tasks.size(); ++t) {
    llvm::BasicBlock* bb = b.NewBlock("run.task");
    b.SetBlock(bb);
    llvm::PHINode* idx = ir.CreatePHI(ir.getInt64Ty(), 2, "run.idx");
    direct_.run.push_back(bb);
    direct_.run_idx.push_back(idx);
    llvm::BasicBlock* woken = nullptr;
    llvm::PHINode* woken_idx = nullptr;
    llvm::PHINode* woken_res = nullptr;
    if (WakesStraightIn(t)) {  // also where the run block goes on after its checks
      woken = b.NewBlock("run.woken");
      b.SetBlock(woken);
      woken_idx = ir.CreatePHI(ir.getInt64Ty(), 2, "woken.idx");
      woken_res = ir.CreatePHI(ir.getInt32Ty(), 2, "woken.res");
    }
    direct_.woken.push_back(woken);
    direct_.woken_idx.push_back(woken_idx);
    direct_.woken_res.push_back(woken_res);
  }
  b.SetBlock(at);
}

void GraphLowerer::EnterRunBlock(StepBuilder& b, rgir::TaskId t, llvm::Value* idx) {
  BranchWithIndex(b, direct_.run[t], direct_.run_idx[t], idx);
}

void GraphLowerer::BranchWithIndex(StepBuilder& b, llvm::BasicBlock* to, llvm::PHINode* idx_phi,
                                   llvm::Value* idx) {
  idx_phi->addIncoming(idx, b.ir().GetInsertBlock());
  b.ir().CreateBr(to);
  b.SetBlock(b.NewBlock("run.entered"));  // unreachable: what the caller emits next is dropped
}

void GraphLowerer::BranchToWoken(StepBuilder& b, rgir::TaskId t, llvm::Value* idx,
                                 llvm::Value* res) {
  direct_.woken_res[t]->addIncoming(res, b.ir().GetInsertBlock());
  BranchWithIndex(b, direct_.woken[t], direct_.woken_idx[t], idx);
}

void GraphLowerer::EmitRunBlocks(StepBuilder& b, llvm::BasicBlock* next) {
  llvm::IRBuilder<>& ir = b.ir();
  llvm::BasicBlock* ran = b.NewBlock("run.end");
  in_run_code_ = true;
  for (rgir::TaskId t = 0; t < g_.tasks.size(); ++t) {
    run_entries_.insert(direct_.run[t]);
    if (direct_.woken[t] != nullptr) run_entries_.insert(direct_.woken[t]);
  }
  for (rgir::TaskId t = 0; t < g_.tasks.size(); ++t) {
    b.SetBlock(direct_.run[t]);
    b.SetLocation(g_.tasks[t].range);
    direct_.run_idx[t]->setDebugLoc(ir.getCurrentDebugLocation());
    llvm::Value* idx = direct_.run_idx[t];
    Table(t).StoreVar(b, idx, kWordQueued, ir.getInt64(0));
    if (direct_.woken[t] == nullptr) {
      EmitTaskRun(b, Here{t, idx});
      ir.CreateBr(ran);
      continue;
    }
    // Both ways in meet at the state switch in `woken`: after the run block's checks, or
    // straight from a CQE.
    EmitTaskRun(b, Here{t, idx}, [&](StepBuilder& b, Here h) {
      BranchToWoken(b, t, h.idx, Table(t).LoadVarLow32(b, h.idx, kWordRes));
    });
    ir.CreateBr(ran);
    b.SetBlock(direct_.woken[t]);
    b.SetLocation(g_.tasks[t].range);
    direct_.woken_idx[t]->setDebugLoc(ir.getCurrentDebugLocation());
    direct_.woken_res[t]->setDebugLoc(ir.getCurrentDebugLocation());
    direct_.resume_res = direct_.woken_res[t];
    EmitTaskResume(b, Here{t, direct_.woken_idx[t]});
    direct_.resume_res = nullptr;
    ir.CreateBr(ran);
  }
  b.SetBlock(ran);
  EmitForkEnds(b);  // a child that ended its fork: its siblings are cancelled here
  in_run_code_ = false;
  ir.CreateBr(next);
}

ReapResult GraphLowerer::EmitEventLoop(StepBuilder& sb, const RingRegions& regions) {
  llvm::IRBuilder<>& ir = sb.ir();
  const bool hub_wakes = !hubs_.empty();
  {
    llvm::Function* f = ir.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
    entry.SetCurrentDebugLocation(ir.getCurrentDebugLocation());  // mem2reg's phis inherit it
    if (hub_wakes) direct_.go = entry.CreateAlloca(entry.getInt32Ty(), nullptr, "run.go");
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
        // All stored first thing: nothing carried around the loop, nothing undef.
        for (llvm::AllocaInst* a : {direct_.go, direct_.task, direct_.slot})
          if (a != nullptr) ir.CreateStore(ir.getInt32(0), a);
        OpenRunBlocks(b);
        llvm::BasicBlock* reap = b.NewBlock("event.cqe");
        llvm::BasicBlock* pop = b.NewBlock("event.ready");
        llvm::BasicBlock* dispatch = b.NewBlock("event.dispatch");
        llvm::BasicBlock* next = b.NewBlock("event.next");
        ir.CreateCondBr(has_cqe, reap, pop);

        b.SetBlock(reap);
        const Cqe cqe = TakeCqe(b, cq, head);
        direct_.active = true;
        direct_.cqe = &cqe;
        EmitReapHandler(b, cqe, Running(b));
        direct_.active = false;
        direct_.cqe = nullptr;
        if (hub_wakes) {
          llvm::Value* go = ir.CreateLoad(ir.getInt32Ty(), direct_.go);
          ir.CreateCondBr(ir.CreateICmpNE(go, ir.getInt32(0)), dispatch, next);
        } else {
          ir.CreateBr(next);
        }

        b.SetBlock(pop);  // no CQE: the loop's condition found a slot ready, and room to run it
        llvm::Value* entry = PopReady(b);
        ir.CreateStore(ir.CreateLShr(entry, 16), direct_.task);
        ir.CreateStore(ir.CreateAnd(entry, ir.getInt32(0xffff)), direct_.slot);
        ir.CreateBr(dispatch);

        b.SetBlock(dispatch);
        EmitForSlot(b, ir.CreateLoad(ir.getInt32Ty(), direct_.task),
                    ir.CreateLoad(ir.getInt32Ty(), direct_.slot),
                    [&](StepBuilder& b, rgir::TaskId t, llvm::Value* idx) {
                      EnterRunBlock(b, t, idx);
                    });
        ir.CreateBr(next);

        EmitRunBlocks(b, next);
        b.SetBlock(next);
      });
  SettleRoomForARun(sb);

  // The in-flight count drops once, by the CQEs taken (several tasks always drain, layout.cpp).
  llvm::Value* new_head = CqHead(sb, cq);
  llvm::Value* taken = ir.CreateSub(new_head, cq.first);
  DropInflight(sb, ir.CreateSub(taken, TakeMoreCqes(sb)));
  return ReapResult{new_head, taken, cq.tail_ptr};
}

}  // namespace uringc::lower
