// Cancellation: ending task instances that lost a race, whose sibling failed, or whose deadline
// expired. For each live slot: IORING_OP_ASYNC_CANCEL of the request it awaits (by user_data),
// IORING_OP_TIMEOUT_REMOVE of its armed deadlines, the same for every instance below it, and its
// state set to finished. Their CQEs still arrive and are dropped (and counted, so the graph's end
// waits for them). The construct that cancelled goes on only after the cancelled requests'
// CQEs came (a `cancel(fd)` right after an `any` must not find the loser still in flight): the
// requests one construct cancels are counted (`uringc_<graph>_cancelled`) and added to kWordDrain
// of the slot that cancelled and of its ancestors; a slot with a nonzero count does not run; each
// cancelled CQE takes one off every slot from its own up to the root (saturating at 0 in the
// finished slots in between, which were not counted), and the last one wakes the slot.
// A child that ends its `any` or fails its fork does not cancel its siblings itself: it names the
// fork (`uringc_<graph>_fork_end`), and the code after the slot's run cancels that fork's
// children, once per fork rather than once per child (an `any` of n arms was n x n cancellations).
// A failure that nothing handles on its way up to the root ends the graph at once instead
// (FailureEndsGraph): the graph's end cancels all it has in flight with one SQE.
#include <linux/io_uring.h>

#include "bpf_ir/control.h"
#include "lower/graph_lowerer.h"

namespace uringc::lower {

void GraphLowerer::DisarmScopes(StepBuilder& b, rgir::TaskId task, llvm::Value* idx) {
  for (rgir::ScopeId s : tasks_[task].scopes) {
    FlushIfFull(b);
    EmitDeadlineDisarm(b, Here{task, idx}, s, idx);
    push_has_room_ = false;  // its first push, if any, had the room
  }
}

void GraphLowerer::FlushIfFull(StepBuilder& b) {
  if (!wide_) return;
  // The instances of a wide fork are cancelled in one step, one SQE or more each: a full SQ is
  // submitted (the kernel takes its SQEs at once) rather than stopping the graph with kSqFull.
  llvm::Value* full = b.ir().CreateICmpUGE(queue_->Pending(b), rc_.sq_entries.Read(b));
  EmitIf(b, full, [&](StepBuilder& b) { queue_->Flush(b); });
  push_has_room_ = true;
}

void GraphLowerer::CancelAwaited(StepBuilder& b, rgir::TaskId task, llvm::Value* idx) {
  llvm::IRBuilder<>& ir = b.ir();
  TaskTable& t = Table(task);
  llvm::Value* seq = t.LoadVar(b, idx, kWordSeq);
  // 0: nothing awaited; kSeqCancelled set: cancelled already, still counted.
  llvm::Value* awaiting = ir.CreateAnd(
      ir.CreateICmpNE(seq, ir.getInt64(0)),
      ir.CreateICmpEQ(ir.CreateAnd(seq, ir.getInt64(kSeqCancelled)), ir.getInt64(0)));
  auto cancel_request = [&](StepBuilder& b) {
    FlushIfFull(b);
    PushByUserData(b, IORING_OP_ASYNC_CANCEL, UserData(b, task, idx, seq));
    t.StoreVar(b, idx, kWordSeq, b.ir().CreateOr(seq, b.ir().getInt64(kSeqCancelled)));
    llvm::Value* n = b.Load(ScalarType::kU32, cancelled_, 0, 4);
    b.Store(ScalarType::kU32, cancelled_, 0, b.ir().CreateAdd(n, b.ir().getInt32(1)), 4);
  };
  EmitIf(b, awaiting, [&](StepBuilder& b) {
    if (!TakesFromHub(task)) return cancel_request(b);
    // A slot waiting on an accept hub has no request of its own in flight (accept_hub.cpp).
    llvm::IRBuilder<>& ir = b.ir();
    llvm::Value* on_hub =
        ir.CreateICmpNE(ir.CreateAnd(seq, ir.getInt64(kSeqHub)), ir.getInt64(0));
    EmitIf(b, on_hub, [&](StepBuilder& b) { StopHubWait(b, task, idx, seq); }, cancel_request);
  });
}

void GraphLowerer::CountCancelled(StepBuilder& b, rgir::TaskId task, llvm::Value* idx) {
  llvm::IRBuilder<>& ir = b.ir();
  llvm::Value* n = b.Load(ScalarType::kU32, cancelled_, 0, 4);
  EmitIf(b, ir.CreateICmpNE(n, ir.getInt32(0)), [&](StepBuilder& b) {
    b.Store(ScalarType::kU32, cancelled_, 0, b.ir().getInt32(0), 4);
    llvm::Value* n64 = b.ir().CreateZExt(n, b.ir().getInt64Ty());
    for (rgir::TaskId cur = task;;) {
      TaskTable& t = Table(cur);
      t.StoreVar(b, idx, kWordDrain, b.ir().CreateAdd(t.LoadVar(b, idx, kWordDrain), n64));
      const rgir::TaskId p = g_.tasks[cur].parent;
      if (p == rgir::kNone) return;
      idx = Table(p).CheckedIndex(b, t.LoadVar(b, idx, kWordParent));
      cur = p;
    }
  });
}

void GraphLowerer::ReapCancelled(StepBuilder& b, rgir::TaskId task, llvm::Value* idx,
                                 llvm::Value* seq, llvm::BasicBlock* done) {
  llvm::IRBuilder<>& ir = b.ir();
  TaskTable& t = Table(task);
  llvm::BasicBlock* hit = b.NewBlock("reap.cancelled");
  llvm::BasicBlock* other = b.NewBlock("reap.not_cancelled");
  llvm::Value* marked = ir.CreateOr(seq, ir.getInt64(kSeqCancelled));
  ir.CreateCondBr(ir.CreateICmpEQ(t.LoadVar(b, idx, kWordSeq), marked), hit, other);
  b.SetBlock(hit);
  t.StoreVar(b, idx, kWordSeq, ir.getInt64(0));
  UncountCancelled(b, task, idx);
  ir.CreateBr(done);
  b.SetBlock(other);
}

void GraphLowerer::UncountCancelled(StepBuilder& b, rgir::TaskId task, llvm::Value* idx) {
  for (rgir::TaskId cur = task;;) {
    llvm::IRBuilder<>& ir = b.ir();
    TaskTable& t = Table(cur);
    llvm::Value* w = t.LoadVar(b, idx, kWordDrain);
    llvm::Value* count = ir.CreateAnd(w, ir.getInt64(0xffffffffu));
    llvm::Value* next = ir.CreateSelect(ir.CreateICmpEQ(count, ir.getInt64(0)), w,
                                        ir.CreateSub(w, ir.getInt64(1)));
    t.StoreVar(b, idx, kWordDrain, next);
    EmitIf(b, ir.CreateICmpEQ(next, ir.getInt64(kDrainWaiting)), [&](StepBuilder& b) {
      t.StoreVar(b, idx, kWordDrain, b.ir().getInt64(0));
      Enqueue(b, cur, idx);
    });
    const rgir::TaskId p = g_.tasks[cur].parent;
    if (p == rgir::kNone) return;
    idx = Table(p).CheckedIndex(b, t.LoadVar(b, idx, kWordParent));
    cur = p;
  }
}

llvm::Value* GraphLowerer::Drained(StepBuilder& b, Here h) {
  llvm::IRBuilder<>& ir = b.ir();
  TaskTable& t = Table(h.task);
  llvm::Value* w = t.LoadVar(b, h.idx, kWordDrain);
  llvm::Value* drained = ir.CreateICmpEQ(ir.CreateAnd(w, ir.getInt64(0xffffffffu)), ir.getInt64(0));
  EmitIf(b, ir.CreateNot(drained), [&](StepBuilder& b) {
    t.StoreVar(b, h.idx, kWordDrain, b.ir().CreateOr(w, b.ir().getInt64(kDrainWaiting)));
  });
  return drained;
}

void GraphLowerer::CancelSlot(StepBuilder& b, rgir::TaskId task, llvm::Value* idx, bool finish) {
  llvm::IRBuilder<>& ir = b.ir();
  TaskTable& t = Table(task);
  llvm::Value* state = t.LoadState(b, idx);
  EmitIf(b, ir.CreateICmpUGE(state, ir.getInt32(kFirstResumeState)), [&](StepBuilder& b) {
    CancelAwaited(b, task, idx);
    DisarmScopes(b, task, idx);
    CancelChildSlots(b, idx, tasks_[task].children);
    if (finish) t.StoreState(b, idx, kTaskFinished);
  });
}

void GraphLowerer::CancelChildren(StepBuilder& b, rgir::TaskId task, llvm::Value* idx,
                                  const std::vector<rgir::TaskId>& which) {
  if (which.empty()) return;
  CancelChildSlots(b, idx, which);
  CountCancelled(b, task, idx);
}

void GraphLowerer::CancelChildSlots(StepBuilder& b, llvm::Value* idx,
                                    const std::vector<rgir::TaskId>& which) {
  for (rgir::TaskId c : which) {
    ForEachInstance(b, c, [&](StepBuilder& b, llvm::Value* k) {
      CancelSlot(b, c, ChildSlot(b, c, idx, k), /*finish=*/true);
    });
  }
}

void GraphLowerer::RequestForkEnd(StepBuilder& b, rgir::NodeId fork, llvm::Value* parent_idx) {
  b.Store(ScalarType::kU32, fork_end_, 0, b.ir().getInt32(fork + 1), 4);
  b.Store(ScalarType::kU64, fork_end_slot_, 0, parent_idx, 8);
}

void GraphLowerer::EmitForkEnds(StepBuilder& b) {
  if (!fork_end_) return;  // no fork can be ended by its children (layout.cpp)
  llvm::IRBuilder<>& ir = b.ir();
  llvm::Value* which = b.Load(ScalarType::kU32, fork_end_, 0, 4);
  llvm::BasicBlock* end = b.NewBlock("fork.end.done");
  llvm::BasicBlock* some = b.NewBlock("fork.end");
  ir.CreateCondBr(ir.CreateICmpEQ(which, ir.getInt32(0)), end, some);
  b.SetBlock(some);
  b.Store(ScalarType::kU32, fork_end_, 0, ir.getInt32(0), 4);
  llvm::Value* slot = b.Load(ScalarType::kU64, fork_end_slot_, 0, 8);
  llvm::SwitchInst* sw = ir.CreateSwitch(which, end);
  for (rgir::NodeId f = 0; f < g_.nodes.size(); ++f) {
    const rgir::Node& fork = g_.nodes[f];
    if (fork.kind != rgir::Node::Kind::kFork || !ForkCanEndEarly(fork)) continue;
    llvm::BasicBlock* bb = b.NewBlock("fork.end.case");
    sw->addCase(ir.getInt32(f + 1), bb);
    b.SetBlock(bb);
    b.SetLocation(fork.range);
    llvm::Value* idx = Table(fork.task).CheckedIndex(b, slot);
    // The child that ended is finished already; CancelSlot passes over finished slots.
    CancelChildren(b, fork.task, idx, fork.tasks);
    Enqueue(b, fork.task, idx);
    ir.CreateBr(end);
  }
  b.SetBlock(end);
}

void GraphLowerer::EmitExpiry(StepBuilder& b, Here h, llvm::Value* expired) {
  llvm::IRBuilder<>& ir = b.ir();
  TaskTable& t = Table(h.task);
  // Whichever scope expired, the task is inside it: whatever it awaits, and all it started, is
  // inside too. Emitted once for all the task's scopes.
  CancelAwaited(b, h.task, h.idx);
  CancelChildSlots(b, h.idx, tasks_[h.task].children);
  CountCancelled(b, h.task, h.idx);
  // A stream's wait is over too (`recv_each(...) within D`): its next completion must not wake
  // the slot wherever the expiry sends it.
  for (rgir::ScopeId s : tasks_[h.task].scopes) {
    if (IsStream(s)) t.StoreVar(b, h.idx, ScopeWord(s) + kStreamWaiting, ir.getInt64(0));
  }
  llvm::BasicBlock* end = b.NewBlock("expiry.end");
  llvm::SwitchInst* sw = ir.CreateSwitch(expired, end);
  for (rgir::ScopeId s : tasks_[h.task].scopes) {
    const rgir::Deadline& d = g_.deadlines[s];
    if (IsStream(s)) continue;  // never expires
    llvm::BasicBlock* bb = b.NewBlock("expiry");
    sw->addCase(ir.getInt64(s + 1), bb);
    b.SetBlock(bb);
    b.SetLocation(d.range);
    // Scopes nested in s end with it.
    for (rgir::ScopeId inner : tasks_[h.task].scopes) {
      for (rgir::ScopeId p = g_.deadlines[inner].parent; p != rgir::kNone;
           p = g_.deadlines[p].parent) {
        if (p == s) {
          EmitDeadlineEnd(b, h, inner, h.idx);
          break;
        }
      }
    }
    t.StoreState(b, h.idx, StartState(d.on_expire));
    ir.CreateBr(end);
  }
  b.SetBlock(end);
}

}  // namespace uringc::lower
