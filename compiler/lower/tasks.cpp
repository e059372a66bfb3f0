// A task's code: one SEGMENT per resume state, each the loop-free part of the task's control-flow
// graph reachable from its resume point without crossing an await (request, fork) or a back edge
// (a loop: the task stores the loop head's state, goes back on the ready queue and runs again
// later in the same step). Segments share the blocks of the nodes they both reach, so each node
// is emitted once per task. Also the task life cycle: fork (start children), join and race
// (resume the parent), exit, and failure (fail the join or race, or the graph; the siblings are
// cancelled once per fork, after the slot's run: cancel.cpp).
#include <algorithm>

#include "bpf_ir/control.h"
#include "llvm/IR/MDBuilder.h"
#include "lower/graph_lowerer.h"

namespace uringc::lower {

using rgir::Node;
using rgir::NodeId;

const rgir::Node& GraphLowerer::AwaitOf(rgir::TaskId child) const {
  return g_.nodes[g_.nodes[g_.tasks[child].fork].next];
}

void GraphLowerer::EmitTaskRun(StepBuilder& b, Here h,
                               const std::function<void(StepBuilder&, Here)>& resume_with) {
  llvm::IRBuilder<>& ir = b.ir();
  auto resume = [&](StepBuilder& b, Here h) {
    if (resume_with) return resume_with(b, h);
    EmitTaskResume(b, h);
  };
  TaskTable& t = Table(h.task);
  llvm::Value* state = t.LoadState(b, h.idx);
  // A finished slot does not run. One task: its state 0 is the entry, and it never finishes
  // while the graph runs (its end ends the graph).
  llvm::Value* live = single_ ? ir.getTrue() : ir.CreateICmpUGE(state, ir.getInt32(kFirstResumeState));
  EmitIf(b, live, [&](StepBuilder& b) {
    if (!tasks_[h.task].scopes.empty()) {
      llvm::Value* expired = t.LoadVar(b, h.idx, kWordExpired);
      EmitIf(b, ir.CreateICmpNE(expired, ir.getInt64(0)), [&](StepBuilder& b) {
        t.StoreVar(b, h.idx, kWordExpired, ir.getInt64(0));
        EmitExpiry(b, h, expired);
      });
    }
    // A slot that cancelled requests goes on once they completed (cancel.cpp).
    if (cancels_) {
      EmitIf(b, Drained(b, h), [&](StepBuilder& b) { resume(b, h); });
    } else {
      resume(b, h);
    }
  });
}

void GraphLowerer::EmitTaskResume(StepBuilder& b, Here h) {
  llvm::IRBuilder<>& ir = b.ir();
  TaskTable& t = Table(h.task);
  llvm::Value* now = t.LoadState(b, h.idx);
  llvm::BasicBlock* done = b.NewBlock("task.done");
  llvm::SwitchInst* sw = ir.CreateSwitch(now, done);
  // A node reached from several resume points is emitted once for the task: the segments share
  // its block (emitting it per segment made a chain of `if` + await quadratic in code size).
  node_blocks_.clear();
  // Most resumes are completions: weighted so, the switch tests the states after a request
  // first (one compare for a task with one request) and entries, joins and yields after them.
  std::vector<uint32_t> weights = {1};  // the default: a finished slot (only from the queue)
  auto add = [&](NodeId n, uint32_t st, bool after) {
    if (g_.nodes[n].task != h.task) return;
    llvm::BasicBlock* bb = b.NewBlock(after ? "resume.after" : "resume.at");
    sw->addCase(ir.getInt32(st), bb);
    weights.push_back(after && g_.nodes[n].kind == Node::Kind::kRequest ? 64 : 1);
    b.SetBlock(bb);
    seg_done_ = done;
    seg_entry_ = bb;
    seg_zeroed_.clear();
    EmitSegment(b, h, n, after);
  };
  for (auto [n, st] : start_state_) add(n, st, false);
  for (auto [n, st] : after_state_) add(n, st, true);
  sw->setMetadata(llvm::LLVMContext::MD_prof,
                  llvm::MDBuilder(ir.getContext()).createBranchWeights(weights));
  seg_entry_ = nullptr;
  node_blocks_.clear();
  b.SetBlock(done);
  b.SetLocation(g_.tasks[h.task].range);
  if (EndsInPlace()) return;  // no transient states
  llvm::Value* after = t.LoadState(b, h.idx);
  auto check = [&](bool fail) {
    auto* c = llvm::cast<llvm::Instruction>(
        ir.CreateICmpEQ(after, ir.getInt32(fail ? kStateFail : kStateExit)));
    end_checks_.push_back({h.task, fail, c});
    return c;
  };
  EmitIf(b, check(false), [&](StepBuilder& b) { ExitTask(b, h); });
  EmitIf(b, check(true), [&](StepBuilder& b) {
    FailTask(b, h, b.ir().CreateTrunc(t.LoadVar(b, h.idx, kWordFailErr), b.ir().getInt32Ty()));
  });
}

void GraphLowerer::DropUntakenEnds() {
  for (const EndCheck& e : end_checks_) {
    if ((e.fail ? tasks_failing_ : tasks_exiting_).count(e.task) != 0) continue;
    e.check->replaceAllUsesWith(llvm::ConstantInt::getFalse(e.check->getContext()));
    e.check->eraseFromParent();
  }
  end_checks_.clear();
}

void GraphLowerer::RequestExit(StepBuilder& b, Here h) {
  if (EndsInPlace()) return ExitTask(b, h);
  tasks_exiting_.insert(h.task);
  Table(h.task).StoreState(b, h.idx, kStateExit);
}

void GraphLowerer::RequestFail(StepBuilder& b, Here h, llvm::Value* err) {
  if (EndsInPlace()) return FailTask(b, h, err);
  tasks_failing_.insert(h.task);
  llvm::IRBuilder<>& ir = b.ir();
  Table(h.task).StoreVar(b, h.idx, kWordFailErr,
                         ir.CreateZExt(ir.CreateSExtOrTrunc(err, ir.getInt32Ty()), ir.getInt64Ty()));
  Table(h.task).StoreState(b, h.idx, kStateFail);
}

void GraphLowerer::EmitSegment(StepBuilder& b, Here h, NodeId start, bool after_await) {
  llvm::IRBuilder<>& ir = b.ir();
  llvm::BasicBlock* done = seg_done_;
  std::map<NodeId, llvm::BasicBlock*>& blocks = node_blocks_;  // shared by the task's segments
  std::vector<NodeId> work;
  auto block_for = [&](NodeId n) {
    auto it = blocks.find(n);
    if (it != blocks.end()) return it->second;
    llvm::BasicBlock* bb = b.NewBlock("node");
    blocks[n] = bb;
    work.push_back(n);
    return bb;
  };
  std::function<llvm::BasicBlock*(NodeId, NodeId)> edge = [&](NodeId from,
                                                               NodeId to) -> llvm::BasicBlock* {
    if (to == rgir::kNone) return done;
    const Node& f = g_.nodes[from];
    std::vector<NodeId> s = {f.next, f.alt};
    for (NodeId a : f.arms) s.push_back(a);
    bool back = false;
    for (size_t k = 0; k < s.size(); ++k) back |= s[k] == to && yield_edge_[from][k];
    if (!back) return block_for(to);
    // A loop's back edge: resume at the loop head on a later run of this slot.
    llvm::BasicBlock* saved = ir.GetInsertBlock();
    const SourceRange loc = b.location();
    llvm::BasicBlock* y = b.NewBlock("loop.yield");
    b.SetBlock(y);
    b.SetLocation(g_.nodes[to].range);
    Table(h.task).StoreState(b, h.idx, StartState(to));
    Enqueue(b, h.task, h.idx);
    ir.CreateBr(done);
    b.SetBlock(saved);
    b.SetLocation(loc);
    return y;
  };

  const Node& first = g_.nodes[start];
  b.SetLocation(first.range);
  // A join or race whose child failed (errno `err`, i64 > 0, else 0) continues at its alt edge
  // with the errno in its variable; without an alt edge the failure is the task's own.
  auto child_failed = [&](llvm::Value* err) {
    llvm::BasicBlock* fail_bb = b.NewBlock("child.failed");
    llvm::BasicBlock* ok_bb = b.NewBlock("child.ok");
    ir.CreateCondBr(ir.CreateICmpNE(err, ir.getInt64(0)), fail_bb, ok_bb);
    b.SetBlock(fail_bb);
    if (first.var != rgir::kNone) {
      StoreVar(b, h, first.var, Val{ir.CreateTrunc(err, IrType(g_.vars[first.var].type))});
    }
    if (first.alt != rgir::kNone) {
      ir.CreateBr(edge(start, first.alt));
    } else {
      RequestFail(b, h, ir.CreateTrunc(err, ir.getInt32Ty()));
      ir.CreateBr(done);
    }
    b.SetBlock(ok_bb);
  };
  if (!after_await) {
    ir.CreateBr(block_for(start));
  } else if (first.kind == Node::Kind::kRequest) {
    EmitRequestDone(b, h, start, edge);
  } else if (first.kind == Node::Kind::kStreamWait) {
    EmitStreamTake(b, h, first);
    ir.CreateBr(edge(start, first.next));
  } else if (first.kind == Node::Kind::kJoin) {
    // A child's failure that fails the graph ends it (FailureEndsGraph): none comes here.
    if (ForkCanEndEarly(g_.nodes[first.fork])) {
      child_failed(Table(h.task).LoadVar(b, h.idx, kWordChild));
    }
    ir.CreateBr(edge(start, first.next));
  } else if (first.kind == Node::Kind::kRace) {
    TaskTable& t = Table(h.task);
    child_failed(t.LoadVar(b, h.idx, kWordChildErr));
    llvm::Value* winner = t.LoadVar(b, h.idx, kWordChild);
    llvm::SwitchInst* sw = ir.CreateSwitch(winner, done, first.arms.size());
    for (size_t i = 0; i < first.arms.size(); ++i) {
      sw->addCase(ir.getInt64(i + 1), edge(start, first.arms[i]));
    }
  } else {
    ir.CreateBr(done);
  }
  b.SetBlock(b.NewBlock("segment.dead"));  // where the builder rests; nothing branches here

  while (!work.empty()) {
    const NodeId n = work.back();
    work.pop_back();
    b.SetBlock(blocks[n]);
    b.SetLocation(g_.nodes[n].range);
    EmitNode(b, h, n, done, edge);
  }
  seg_done_ = done;
}

void GraphLowerer::EmitNode(StepBuilder& b, Here h, NodeId id, llvm::BasicBlock* done,
                            const std::function<llvm::BasicBlock*(NodeId, NodeId)>& edge) {
  llvm::IRBuilder<>& ir = b.ir();
  const Node& n = g_.nodes[id];
  seg_done_ = done;
  switch (n.kind) {
    case Node::Kind::kEntry:
    case Node::Kind::kNop:
      ir.CreateBr(edge(id, n.next));
      return;
    case Node::Kind::kAssign:
      if (n.value && n.var == rgir::kNone) {
        Eval(b, h, *n.value);  // a store (put_T): for its effect
      } else if (n.value) {
        StoreVar(b, h, n.var, Eval(b, h, *n.value));
      }
      ir.CreateBr(edge(id, n.next));
      return;
    case Node::Kind::kBranch: {
      llvm::Value* c = n.value ? EvalScalar(b, h, *n.value) : ir.getFalse();
      c = ir.CreateICmpNE(c, llvm::Constant::getNullValue(c->getType()));
      ir.CreateCondBr(c, edge(id, n.next), edge(id, n.alt));
      return;
    }
    case Node::Kind::kRequest:
      EmitRequest(b, h, n);
      Table(h.task).StoreState(b, h.idx, AfterState(id));
      ir.CreateBr(done);
      return;
    case Node::Kind::kFork:
      EmitFork(b, h, n);
      ir.CreateBr(done);
      return;
    case Node::Kind::kJoin:
    case Node::Kind::kRace:
      // Only reached after their fork, which waits for them; kept total.
      Table(h.task).StoreState(b, h.idx, AfterState(id));
      ir.CreateBr(done);
      return;
    case Node::Kind::kDeadlineStart:
      if (IsStream(n.scope)) {
        EmitStreamStart(b, h, n);
      } else {
        EmitDeadlineStart(b, h, n);
      }
      ir.CreateBr(edge(id, n.next));
      return;
    case Node::Kind::kStreamWait:
      EmitStreamWait(b, h, n);
      Table(h.task).StoreState(b, h.idx, AfterState(id));
      ir.CreateBr(done);
      return;
    case Node::Kind::kStreamRelease:
      EmitStreamRelease(b, h, n.scope, h.idx);
      ir.CreateBr(edge(id, n.next));
      return;
    case Node::Kind::kDeadlineEnd:
      EmitDeadlineEnd(b, h, n.scope, h.idx);
      ir.CreateBr(edge(id, n.next));
      return;
    case Node::Kind::kRaise: {
      llvm::Value* err = n.value ? EvalScalar(b, h, *n.value) : ir.getInt32(5);
      err = ir.CreateSExtOrTrunc(err, ir.getInt32Ty());
      if (n.var != rgir::kNone) {
        StoreVar(b, h, n.var, Val{Convert(b, err, Type::Int(32, true), g_.vars[n.var].type)});
        ir.CreateBr(edge(id, n.next));
        return;
      }
      RequestFail(b, h, err);
      ir.CreateBr(done);
      return;
    }
    case Node::Kind::kStop:
      EndGraph(b, false, nullptr);
      ir.CreateBr(done);
      return;
    case Node::Kind::kExit:
      RequestExit(b, h);
      ir.CreateBr(done);
      return;
  }
  ir.CreateBr(done);
}

void GraphLowerer::EmitFork(StepBuilder& b, Here h, const rgir::Node& fork) {
  llvm::IRBuilder<>& ir = b.ir();
  TaskTable& t = Table(h.task);
  const Node& await = g_.nodes[fork.next];
  const bool race = await.kind == Node::Kind::kRace;
  uint64_t total = 0;
  for (rgir::TaskId c : fork.tasks) total += Instances(c);
  t.StoreVar(b, h.idx, kWordCount, ir.getInt64(race ? 1 : total));
  t.StoreVar(b, h.idx, kWordChild, ir.getInt64(0));
  t.StoreVar(b, h.idx, kWordChildErr, ir.getInt64(0));
  t.StoreState(b, h.idx, AfterState(fork.next));
  if (total == 0) {
    Enqueue(b, h.task, h.idx);
    return;
  }
  for (rgir::TaskId c : fork.tasks) {
    const rgir::Task& task = g_.tasks[c];
    TaskTable& ct = Table(c);
    auto start = [&](StepBuilder& b, llvm::Value* k) {
      llvm::IRBuilder<>& ir = b.ir();
      llvm::Value* k64 = ir.CreateZExt(k, ir.getInt64Ty());
      llvm::Value* j = ChildSlot(b, c, h.idx, k);
      ct.StoreState(b, j, StartState(task.entry));
      for (uint32_t w = 0; w < ct.vars(); ++w) {
        if (InStreamQueue(c, w)) continue;
        ct.StoreVar(b, j, w, w == kWordParent ? h.idx : ir.getInt64(0));
      }
      if (task.index_var != rgir::kNone) {
        llvm::Value* v = ir.CreateAdd(k64, ir.getInt64(static_cast<uint64_t>(task.index_base)));
        StoreVar(b, Here{c, j}, task.index_var,
                 Val{Convert(b, v, Type::Int(64, true), g_.vars[task.index_var].type)});
      }
      Enqueue(b, c, j);
    };
    ForEachInstance(b, c, start);
  }
}

bool GraphLowerer::InStreamQueue(rgir::TaskId c, uint32_t word) const {
  // A stream's queue entries are read only between its head and tail (streams.cpp), which the
  // stream's start sets; zeroing them all at every fork was one store per pool buffer (512 in
  // examples/proxy.uring's relay task).
  for (rgir::ScopeId s : tasks_[c].scopes) {
    if (!IsStream(s)) continue;
    const uint32_t first = ScopeWord(s) + kStreamQueue;
    if (word >= first && word < first + g_.params[g_.deadlines[s].pool].type.count) return true;
  }
  return false;
}

void GraphLowerer::ForEachInstance(StepBuilder& b, rgir::TaskId c,
                                   const std::function<void(StepBuilder&, llvm::Value*)>& body) {
  const uint32_t inst = Instances(c);
  if (inst == 1) {
    body(b, b.ir().getInt32(0));
  } else if (IteratesInstances(c)) {
    EmitIterLoop(b, inst, body);
  } else {
    push_weight_ *= inst;  // each push in `body` runs once per instance
    EmitBoundedLoop(b, inst, {}, body);
    push_weight_ /= inst;
  }
}

bool GraphLowerer::IteratesInstances(rgir::TaskId c) const {
  // The event loop's walks (a graph with instances has several tasks, event_loop.cpp): one per
  // iteration while counted, a few when it iterates (EmitStepLoop).
  const uint64_t run_walks =
      std::min<uint64_t>(uint64_t{reap_budget_} + run_budget_, kMostCountedIterations);
  return Instances(c) > 1 && uint64_t{tasks_[c].slots} * run_walks > kUnrolledWalks;
}

uint32_t GraphLowerer::Instances(rgir::TaskId c) const {
  const rgir::Task& task = g_.tasks[c];
  return task.kind == rgir::Task::Kind::kParallel ? task.instances : 1;
}

llvm::Value* GraphLowerer::ChildSlot(StepBuilder& b, rgir::TaskId c, llvm::Value* parent_idx,
                                     llvm::Value* k) {
  llvm::IRBuilder<>& ir = b.ir();
  // parent * instances + k is always below the child table's size; but the verifier cannot see
  // that through LLVM's rewrites (2 * i + 1 becomes (i << 1) | 1, whose range reaches past the
  // table), so the index is checked like every other slot index. Starting and cancelling the
  // children both need it (seed 7 program 48, seed 5 program 29).
  llvm::Value* j = ir.CreateAdd(ir.CreateMul(parent_idx, ir.getInt64(Instances(c)), "", true, true),
                                ir.CreateZExt(k, ir.getInt64Ty()), "child", true, true);
  return Table(c).CheckedIndex(b, j);
}

GraphLowerer::ParentSlot GraphLowerer::FinishChildSlot(StepBuilder& b, Here h) {
  const rgir::Task& task = g_.tasks[h.task];
  TaskTable& t = Table(h.task);
  t.StoreState(b, h.idx, kTaskFinished);
  DisarmScopes(b, h.task, h.idx);
  TaskTable& pt = Table(task.parent);
  const Node& fork = g_.nodes[task.fork];
  return {task.parent, pt.CheckedIndex(b, t.LoadVar(b, h.idx, kWordParent)), &fork,
          g_.nodes[fork.next].kind == Node::Kind::kRace};
}

void GraphLowerer::ExitTask(StepBuilder& b, Here h) {
  llvm::IRBuilder<>& ir = b.ir();
  const rgir::Task& task = g_.tasks[h.task];
  if (task.parent == rgir::kNone) {
    EndGraph(b, false, nullptr);
    return;
  }
  const ParentSlot parent = FinishChildSlot(b, h);
  const rgir::TaskId p = parent.task;
  TaskTable& pt = Table(p);
  llvm::Value* pidx = parent.idx;
  const Node& fork = *parent.fork;
  llvm::Value* count = pt.LoadVar(b, pidx, kWordCount);
  if (parent.race) {
    EmitIf(b, ir.CreateICmpEQ(count, ir.getInt64(1)), [&](StepBuilder& b) {
      llvm::IRBuilder<>& ir = b.ir();
      const size_t arm = std::find(fork.tasks.begin(), fork.tasks.end(), h.task) -
                         fork.tasks.begin();
      pt.StoreVar(b, pidx, kWordCount, ir.getInt64(0));
      pt.StoreVar(b, pidx, kWordChild, ir.getInt64(arm + 1));
      RequestForkEnd(b, task.fork, pidx);  // the losers are cancelled, the parent resumes
    });
    return;
  }
  EmitIf(b, ir.CreateICmpNE(count, ir.getInt64(0)), [&](StepBuilder& b) {
    llvm::IRBuilder<>& ir = b.ir();
    llvm::Value* left = ir.CreateSub(count, ir.getInt64(1));
    pt.StoreVar(b, pidx, kWordCount, left);
    // The last child wakes the parent, unless a failure was recorded (only in a fork that can
    // end early: ForkCanEndEarly).
    llvm::Value* wake = ir.CreateICmpEQ(left, ir.getInt64(0));
    if (ForkCanEndEarly(fork)) {
      wake = ir.CreateAnd(wake,
                          ir.CreateICmpEQ(pt.LoadVar(b, pidx, kWordChild), ir.getInt64(0)));
    }
    EmitIf(b, wake, [&](StepBuilder& b) { Enqueue(b, p, pidx); });
  });
}

bool GraphLowerer::FailureEndsGraph(rgir::TaskId t) const {
  const rgir::Task& task = g_.tasks[t];
  // The root. A graph of several tasks drains (drain_): its end cancels all it has in flight
  // (EmitCancelAllOnce), and no slot runs after it. A graph of one has nothing to cancel.
  if (task.parent == rgir::kNone) return true;
  const Node& fork = g_.nodes[task.fork];
  const Node& join = g_.nodes[fork.next];
  if (join.kind != Node::Kind::kJoin) return false;  // a race may have been won already
  // The join fails its task with the child's errno: it has no error edge, or the edge raises
  // the errno it was given and nothing catches it.
  bool fails_task = join.alt == rgir::kNone;
  if (!fails_task && join.var != rgir::kNone) {
    const Node& raise = g_.nodes[join.alt];
    fails_task = raise.kind == Node::Kind::kRaise && raise.var == rgir::kNone && raise.value &&
                 raise.value->op == rgir::Expr::Op::kVar && raise.value->id == join.var;
  }
  return fails_task && FailureEndsGraph(task.parent);
}

bool GraphLowerer::ForkCanEndEarly(const rgir::Node& fork) const {
  if (fork.tasks.empty()) return false;
  // A race ends when an arm wins; a join only when a child fails (FailTask), which for one
  // child of the fork fails the graph exactly when it does for all of them.
  return g_.nodes[fork.next].kind == Node::Kind::kRace || !FailureEndsGraph(fork.tasks[0]);
}

bool GraphLowerer::AnyForkCanEndEarly() const {
  return std::any_of(g_.nodes.begin(), g_.nodes.end(), [&](const rgir::Node& n) {
    return n.kind == Node::Kind::kFork && ForkCanEndEarly(n);
  });
}

void GraphLowerer::FailTask(StepBuilder& b, Here h, llvm::Value* err) {
  llvm::IRBuilder<>& ir = b.ir();
  const rgir::Task& task = g_.tasks[h.task];
  err = ir.CreateSExtOrTrunc(err, ir.getInt32Ty());
  // An errno of 0 or less would read as success: report EIO instead.
  err = ir.CreateSelect(ir.CreateICmpSGT(err, ir.getInt32(0)), err, ir.getInt32(5));
  if (FailureEndsGraph(h.task)) {  // the root's failure always does
    EndGraph(b, true, ir.CreateNeg(err));
    return;
  }
  CancelChildren(b, h.task, h.idx, tasks_[h.task].children);
  const ParentSlot parent = FinishChildSlot(b, h);
  const rgir::TaskId p = parent.task;
  TaskTable& pt = Table(p);
  llvm::Value* pidx = parent.idx;
  const bool race = parent.race;
  llvm::Value* open = race ? ir.CreateICmpEQ(pt.LoadVar(b, pidx, kWordCount), ir.getInt64(1))
                           : ir.CreateICmpEQ(pt.LoadVar(b, pidx, kWordChild), ir.getInt64(0));
  EmitIf(b, open, [&](StepBuilder& b) {
    llvm::IRBuilder<>& ir = b.ir();
    llvm::Value* e64 = ir.CreateZExt(err, ir.getInt64Ty());
    if (race) {
      pt.StoreVar(b, pidx, kWordCount, ir.getInt64(0));
      pt.StoreVar(b, pidx, kWordChildErr, e64);
    } else {
      pt.StoreVar(b, pidx, kWordChild, e64);
    }
    RequestForkEnd(b, task.fork, pidx);  // the siblings are cancelled, the parent resumes
  });
}

}  // namespace uringc::lower
