// Cancellation: ending task instances that lost a race, whose sibling failed, or whose deadline
// expired. For each live slot: IORING_OP_ASYNC_CANCEL of the request it awaits (by user_data),
// IORING_OP_TIMEOUT_REMOVE of its armed deadlines, the same for every instance below it, and its
// state set to finished. Their CQEs still arrive; their sequence numbers no longer match, so the
// reap handler drops them (and counts them, so the graph's end waits for them).
#include <linux/io_uring.h>

#include "lower/control.h"
#include "lower/rgir/graph_lowerer.h"

namespace uringc::lower_rgir {

void GraphLowerer::DisarmScopes(StepBuilder& b, rgir::TaskId task, llvm::Value* idx) {
  for (rgir::ScopeId s : tasks_[task].scopes) EmitDeadlineEnd(b, Here{task, idx}, s, idx);
}

void GraphLowerer::CancelSlot(StepBuilder& b, rgir::TaskId task, llvm::Value* idx, bool finish) {
  llvm::IRBuilder<>& ir = b.ir();
  TaskTable& t = Table(task);
  llvm::Value* state = t.LoadState(b, idx);
  EmitIf(b, ir.CreateICmpUGE(state, ir.getInt32(kFirstResumeState)), [&](StepBuilder& b) {
    llvm::IRBuilder<>& ir = b.ir();
    llvm::Value* seq = t.LoadVar(b, idx, kWordSeq);
    EmitIf(b, ir.CreateICmpNE(seq, ir.getInt64(0)), [&](StepBuilder& b) {
      Push(b, sqe::AsyncCancel(UserData(b, task, idx, seq), nullptr));
      t.StoreVar(b, idx, kWordSeq, b.ir().getInt64(0));
    });
    DisarmScopes(b, task, idx);
    CancelChildren(b, task, idx, tasks_[task].children);
    if (finish) t.StoreState(b, idx, kTaskFinished);
  });
}

void GraphLowerer::CancelChildren(StepBuilder& b, rgir::TaskId /*task*/, llvm::Value* idx,
                                  const std::vector<rgir::TaskId>& which) {
  for (rgir::TaskId c : which) {
    const uint32_t inst = Instances(c);
    auto one = [&](StepBuilder& b, llvm::Value* k) {
      CancelSlot(b, c, ChildSlot(b, c, idx, k), /*finish=*/true);
    };
    if (inst == 1) {
      one(b, b.ir().getInt32(0));
    } else {
      EmitBoundedLoop(b, inst, {}, one);
    }
  }
}

void GraphLowerer::EmitExpiry(StepBuilder& b, Here h, llvm::Value* expired) {
  llvm::IRBuilder<>& ir = b.ir();
  TaskTable& t = Table(h.task);
  llvm::BasicBlock* end = b.NewBlock("expiry.end");
  llvm::SwitchInst* sw = ir.CreateSwitch(expired, end);
  for (rgir::ScopeId s : tasks_[h.task].scopes) {
    const rgir::Deadline& d = g_.deadlines[s];
    llvm::BasicBlock* bb = b.NewBlock("expiry");
    sw->addCase(ir.getInt64(s + 1), bb);
    b.SetBlock(bb);
    b.SetLocation(d.range);
    // The task is inside scope s: whatever it awaits, and all it started, is inside too.
    llvm::Value* seq = t.LoadVar(b, h.idx, kWordSeq);
    EmitIf(b, ir.CreateICmpNE(seq, ir.getInt64(0)), [&](StepBuilder& b) {
      Push(b, sqe::AsyncCancel(UserData(b, h.task, h.idx, seq), nullptr));
      t.StoreVar(b, h.idx, kWordSeq, b.ir().getInt64(0));
    });
    CancelChildren(b, h.task, h.idx, tasks_[h.task].children);
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

}  // namespace uringc::lower_rgir
