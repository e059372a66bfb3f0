// The loop_step of a lowered graph: prologue (status, regions), the first step's start of the
// root task, reaping (CQE -> slot -> ready queue), the run loop (ready slot -> its code up to the
// next await), one submission, the end of the graph (cancel everything in flight, wait for the
// last CQE, then STOP with uringc_status/uringc_error), and the wait index.
#include <linux/io_uring.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "bpf_ir/control.h"
#include "bpf_ir/wait.h"
#include "lower/graph_lowerer.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

namespace uringc::lower {

uint64_t MostSqesOnAPath(llvm::BasicBlock* entry, const std::set<llvm::BasicBlock*>& inside,
                         const std::map<llvm::BasicBlock*, uint64_t>& sqes) {
  std::map<llvm::BasicBlock*, uint64_t> most;  // done: the most from the block on
  std::set<llvm::BasicBlock*> open;            // on the depth-first path
  std::vector<std::pair<llvm::BasicBlock*, bool>> work = {{entry, false}};
  while (!work.empty()) {
    auto [bb, children_done] = work.back();
    work.pop_back();
    if (children_done) {
      uint64_t best = 0;
      for (llvm::BasicBlock* s : llvm::successors(bb)) {
        auto it = most.find(s);
        if (it != most.end() && open.count(s) == 0) best = std::max(best, it->second);
      }
      auto own = sqes.find(bb);
      most[bb] = best + (own == sqes.end() ? 0 : own->second);
      open.erase(bb);
      continue;
    }
    if (most.count(bb) != 0 || open.count(bb) != 0) continue;
    open.insert(bb);
    work.push_back({bb, true});
    for (llvm::BasicBlock* s : llvm::successors(bb)) {
      if (inside.count(s) != 0 && most.count(s) == 0 && open.count(s) == 0) {
        work.push_back({s, false});
      }
    }
  }
  return most[entry];
}

bool GraphLowerer::Run() {
  if (!PlanLayout()) return false;
  DeclareGlobals();
  EmitStep();
  DropUntakenEnds();
  DropUnnamedReapCases();
  PromoteRegisterVars();
  return true;
}

void GraphLowerer::DropUnnamedReapCases() {
  if (reap_switches_.empty()) return;
  for (llvm::SwitchInst* sw : reap_switches_) {
    for (auto it = sw->case_begin(); it != sw->case_end();) {
      const auto task = static_cast<rgir::TaskId>(it->getCaseValue()->getZExtValue());
      it = named_tasks_.count(task) ? std::next(it) : sw->removeCase(it);
    }
  }
  llvm::EliminateUnreachableBlocks(*reap_switches_.front()->getFunction());
}

uint32_t GraphLowerer::Budget(uint32_t asked, uint32_t least) const {
  if (asked != 0) return asked;
  // As many as there are task slots (each awaits one CQE at a time), so K parallel tasks are
  // reaped and resumed in one step, as a hand-written controller refills K at once. Beyond
  // kMostCountedIterations the loops are iterator loops (EmitStepLoop), which the verifier
  // walks a few times whatever their bound; kMostPerStep only bounds how long one step runs.
  constexpr uint32_t kMostPerStep = 4096;
  uint64_t slots = 0;
  for (const TaskInfo& ti : tasks_) slots += ti.slots;
  return static_cast<uint32_t>(std::clamp<uint64_t>(slots, least, kMostPerStep));
}

llvm::Value* GraphLowerer::NextSeq(StepBuilder& b) {
  llvm::IRBuilder<>& ir = b.ir();
  llvm::Value* v = ir.CreateAdd(b.Load(ScalarType::kU32, seq_, 0, 4, true), ir.getInt32(1));
  v = ir.CreateSelect(ir.CreateICmpEQ(v, ir.getInt32(0)), ir.getInt32(1), v, "seq");
  b.Store(ScalarType::kU32, seq_, 0, v, 4, true);
  return v;
}

llvm::Value* GraphLowerer::UserData(StepBuilder& b, rgir::TaskId task, llvm::Value* idx,
                                    llvm::Value* seq) {
  named_tasks_.insert(task);
  llvm::IRBuilder<>& ir = b.ir();
  llvm::Value* hi = ir.getInt64(static_cast<uint64_t>(task) << 48);
  llvm::Value* mid = ir.CreateShl(ir.CreateZExtOrTrunc(idx, ir.getInt64Ty()), 32);
  return ir.CreateOr(ir.CreateOr(hi, mid), ir.CreateZExtOrTrunc(seq, ir.getInt64Ty()), "ud");
}

void GraphLowerer::Push(StepBuilder& b, const SqeFields& f) {
  PushWith(b, [&] { return queue_->Push(b, f); });
}

void GraphLowerer::PushByUserData(StepBuilder& b, uint8_t opcode, llvm::Value* addr) {
  PushWith(b, [&] { return queue_->PushByUserData(b, opcode, addr); });
}

void GraphLowerer::PushWith(StepBuilder& b, const std::function<llvm::Instruction*()>& push) {
  // A push right after FlushIfFull needs no room kept for it.
  const bool counted = !push_has_room_;
  if (counted) block_sqes_[b.ir().GetInsertBlock()] += push_weight_;
  push_has_room_ = false;
  ++pushes_emitted_;
  if (push_weight_ != 1 || b.InIterator()) pushes_in_loops_ = true;
  llvm::BasicBlock* at = b.ir().GetInsertBlock();
  const bool first_in_block = push_blocks_.insert(at).second;
  llvm::Instruction* full = push();
  if (counted && in_run_code_ && first_in_block && push_weight_ == 1) {
    run_full_checks_.push_back(full);
  }
  // In flight from when it is submitted: the queue counts each batch (CountSubmittedIn).
}

llvm::Value* GraphLowerer::Running(StepBuilder& b) {
  if (!drain_) return b.ir().getTrue();  // the graph stops the moment it ends
  return b.ir().CreateICmpEQ(b.Load(ScalarType::kU32, ending_, 0, 4, true), b.ir().getInt32(0));
}

void GraphLowerer::EndGraph(StepBuilder& b, bool failed, llvm::Value* neg_errno) {
  llvm::IRBuilder<>& ir = b.ir();
  if (!drain_) {
    // Nothing in flight and nothing queued (the one task awaits nothing now): stop at once.
    if (failed) {
      b.Stop(StopReason::kFailed, neg_errno);
    } else {
      b.Stop(StopReason::kDone);
    }
    return;
  }
  llvm::Value* ending = b.Load(ScalarType::kU32, ending_, 0, 4, true);
  EmitIf(b, ir.CreateICmpEQ(ending, ir.getInt32(0)), [&](StepBuilder& b) {
    b.Store(ScalarType::kU32, ending_, 0, ir.getInt32(failed ? 2 : 1), 4, true);
    if (failed) b.Store(ScalarType::kS32, end_error_, 0, neg_errno, 4, true);
    ClearReady(b);  // nothing else runs
  });
}

void GraphLowerer::EmitReapHandler(StepBuilder& b, const Cqe& cqe, llvm::Value* running) {
  BeginCqeBuffer(b, cqe);
  EmitReapDispatch(b, cqe, running);
  EndCqeBuffer(b, cqe);
}

void GraphLowerer::EmitReapDispatch(StepBuilder& b, const Cqe& cqe, llvm::Value* running) {
  llvm::IRBuilder<>& ir = b.ir();
  llvm::Value* seq = ir.CreateAnd(cqe.user_data, ir.getInt64(0xffffffffu), "cqe_seq");
  llvm::Value* mine = ir.CreateAnd(running, ir.CreateICmpNE(seq, ir.getInt64(0)));
  if (single_) {
    // One slot: its user_data is the bare sequence number.
    EmitIf(b, mine, [&](StepBuilder& b) {
      EmitReapSlot(b, 0, b.ir().getInt64(0), cqe, cqe.user_data);
    });
    return;
  }
  // An accept hub's CQE is handled whether or not the graph runs (after its end, the socket
  // is closed); every other one only while it runs.
  llvm::BasicBlock* not_hub = b.NewBlock("reap.not_hub");
  if (EmitHubCqe(b, cqe, running, not_hub)) {
    llvm::BasicBlock* after = b.NewBlock("reap.after_hub");
    ir.CreateBr(after);
    b.SetBlock(not_hub);
    EmitIf(b, mine, [&](StepBuilder& b) { EmitReapTask(b, cqe, seq); });
    ir.CreateBr(after);
    b.SetBlock(after);
    return;
  }
  not_hub->eraseFromParent();
  EmitIf(b, mine, [&](StepBuilder& b) { EmitReapTask(b, cqe, seq); });
}

void GraphLowerer::EmitReapTask(StepBuilder& b, const Cqe& cqe, llvm::Value* seq) {
  llvm::IRBuilder<>& ir = b.ir();
  {
    llvm::Value* task = ir.CreateTrunc(ir.CreateLShr(cqe.user_data, 48), ir.getInt32Ty());
    llvm::Value* slot = ir.CreateTrunc(
        ir.CreateAnd(ir.CreateLShr(cqe.user_data, 32), ir.getInt64(0xffff)), ir.getInt32Ty());
    reap_switches_.push_back(
        EmitForSlot(b, task, slot, [&](StepBuilder& b, rgir::TaskId t, llvm::Value* idx) {
          EmitReapSlot(b, t, idx, cqe, seq);
        }));
  }
}

void GraphLowerer::EmitReapSlot(StepBuilder& b, rgir::TaskId t, llvm::Value* idx, const Cqe& cqe,
                                llvm::Value* seq) {
  llvm::IRBuilder<>& ir = b.ir();
  TaskTable& table = Table(t);
  llvm::BasicBlock* end = b.NewBlock("reap.slot.end");
  llvm::BasicBlock* next = b.NewBlock("reap.scopes");
  llvm::BasicBlock* hit = b.NewBlock("reap.request");
  ir.CreateCondBr(ir.CreateICmpEQ(table.LoadVar(b, idx, kWordSeq), seq), hit, next);
  b.SetBlock(hit);
  table.StoreVar(b, idx, kWordSeq, ir.getInt64(0));
  Wake(b, t, idx, cqe.res);
  ir.CreateBr(end);
  b.SetBlock(next);
  if (cancels_) ReapCancelled(b, t, idx, seq, end);
  for (rgir::ScopeId s : tasks_[t].scopes) {
    llvm::BasicBlock* fired = b.NewBlock("reap.deadline");
    llvm::BasicBlock* other = b.NewBlock("reap.next");
    ir.CreateCondBr(ir.CreateICmpEQ(table.LoadVar(b, idx, ScopeWord(s)), seq), fired, other);
    b.SetBlock(fired);
    if (IsStream(s)) {
      EmitStreamCqe(b, t, idx, s, cqe);
      ir.CreateBr(end);
      b.SetBlock(other);
      continue;
    }
    EmitDeadlineFired(b, t, idx, s);
    ir.CreateBr(end);
    b.SetBlock(other);
  }
  ir.CreateBr(end);  // a completion nobody waits for any more (cancelled): dropped
  b.SetBlock(end);
}

void GraphLowerer::EmitStep() {
  BpfProgram prog = m_.CreateProgram(g_.name, g_.range);
  m_.CreateOps(g_.name + "_ops", prog);
  StepBuilder sb(m_, prog, StatusConvention::kRuntime);
  llvm::IRBuilder<>& ir = sb.ir();
  sb.ReturnIfStopped();
  sb.Increment(steps_, ScalarType::kU64);
  if (opt_.break_instruction_selection) {
    // Test only (GraphLoweringOptions::break_instruction_selection): BPF has no atomic NAND.
    ir.CreateAtomicRMW(llvm::AtomicRMWInst::Nand, steps_, ir.getInt64(1), llvm::MaybeAlign(8),
                       llvm::AtomicOrdering::SequentiallyConsistent);
  }
  RingRegions regions = EmitGetRingRegions(sb, rc_);
  // The SQ's size, which every push and every room check of an event loop compares with: read
  // once, here. (A one-task step has few such reads, and the value kept live costs it more.)
  if (!single_) rc_.sq_entries.value = rc_.sq_entries.Read(sb);
  if (!needs_mem_) {
    mem_ = nullptr;  // no timespecs or paths: the region is not mapped
  } else if (opt_.break_region_null_check) {
    // Test only (GraphLoweringOptions::break_region_null_check): no null check.
    mem_ = EmitGetRegion(sb, RegionId::kMem, ir.getInt64(mem_size_));
  } else {
    mem_ = EmitGetRegionChecked(sb, RegionId::kMem, ir.getInt64(mem_size_));
  }
  // Copying openat paths and cancelling wide forks may submit in the middle of a step
  // (GraphLowerer::CopyPath, FlushIfFull).
  queue_ = std::make_unique<SubmitQueue>(sb, regions, rc_,
                                         /*mid_step_flush=*/needs_paths_ || wide_,
                                         /*pending_may_be_register=*/single_);
  if (drain_) queue_->CountSubmittedIn(inflight_);

  if (mem_layout_.pool != rgir::kNone) {
    llvm::Function* f = ir.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
    entry.SetCurrentDebugLocation(ir.getCurrentDebugLocation());
    buffer_kept_ = entry.CreateAlloca(entry.getInt1Ty(), nullptr, "cqe.buffer_kept");
  }
  EmitStartGraph(sb);
  ReapResult reaped = single_ ? EmitReapThenRun(sb, regions) : EmitEventLoop(sb, regions);
  sb.SetLocation(g_.range);
  EmitEnding(sb, reaped);
  // A one-task step whose one run turn is its only place that pushes, outside any loop, keeps
  // the SQ's pending count in a register: each path's count is then a constant.
  pending_alloca_ =
      queue_->SettlePending(sb, single_ && none_ready_after_run_ && !pushes_in_loops_);
  rc_.sq_entries.value = nullptr;
}

ReapResult GraphLowerer::EmitReapThenRun(StepBuilder& sb, const RingRegions& regions) {
  // Reaping neither ends the graph nor submits: whether it runs is read once, and the in-flight
  // count drops once by what was reaped (never below 0).
  llvm::Value* running = Running(sb);
  ReapResult reaped =
      EmitReapLoop(sb, regions, rc_, reap_budget_,
                   [&](StepBuilder& b, const Cqe& c) { EmitReapHandler(b, c, running); });
  if (drain_) DropInflight(sb, sb.ir().CreateSub(reaped.count, TakeMoreCqes(sb)));

  // The step's SQ starts empty, so when reaping pushed nothing the first turn has room for a
  // run; later turns check it. The bound is settled once the run is emitted: a run that cannot
  // wake its own slot (no yield, expiry or drain in it) leaves it parked, so one turn is all the
  // loop can take, and its room is never checked.
  const bool empty_sq_first = pushes_emitted_ == 0;  // nothing so far in the step pushes
  llvm::IRBuilder<>& ir = sb.ir();
  llvm::Instruction* bound =
      ir.Insert(llvm::BinaryOperator::CreateAdd(ir.getInt32(0), ir.getInt32(0)), "run.bound");
  // A budget beyond kMostCountedIterations (GraphLoweringOptions) keeps the iterator loop.
  auto loop = [&](auto&&... args) {
    if (run_budget_ > kMostCountedIterations) return EmitStepLoop(sb, run_budget_, args...);
    return EmitBoundedLoop(sb, bound, args...);
  };
  loop(
      [&](StepBuilder& b, llvm::Value* i) {
        llvm::IRBuilder<>& ir = b.ir();
        llvm::Value* runnable = ir.CreateAnd(Running(b), AnyReady(b));
        if (!empty_sq_first) return ir.CreateAnd(runnable, RoomForARun(b));
        llvm::Value* first = ir.CreateICmpEQ(i, ir.getInt32(0));
        return ir.CreateAnd(runnable, EmitLazyOr(b, first, [&](StepBuilder& b) {
                              return RoomForARun(b);
                            }));
      },
      [&](StepBuilder& b, llvm::Value*) {
        BeginRun(b);
        wakes_in_run_ = 0;
        EmitRunOne(b);
      });
  const bool one_turn = wakes_in_run_ == 0 && opt_.run_budget == 0;
  // Its one turn either ran the slot, which parked it, or found it not runnable.
  none_ready_after_run_ = one_turn && empty_sq_first && run_budget_ <= kMostCountedIterations;
  bound->replaceAllUsesWith(ir.getInt32(one_turn ? 1 : run_budget_));
  bound->eraseFromParent();
  SettleRoomForARun(sb);
  return reaped;
}

void GraphLowerer::DropInflight(StepBuilder& b, llvm::Value* count) {
  llvm::IRBuilder<>& ir = b.ir();
  llvm::Value* n = b.Load(ScalarType::kU32, inflight_, 0, 4, true);
  b.Store(ScalarType::kU32, inflight_, 0,
          ir.CreateSelect(ir.CreateICmpULT(n, count), ir.getInt32(0), ir.CreateSub(n, count)), 4,
          true);
}

llvm::Value* GraphLowerer::RoomForARun(StepBuilder& b) {
  llvm::IRBuilder<>& ir = b.ir();
  llvm::Instruction* room =
      ir.Insert(llvm::BinaryOperator::CreateAnd(ir.getTrue(), ir.getTrue()), "run.room");
  room_needed_.push_back(room);
  return room;
}

llvm::Value* GraphLowerer::RoomFor(StepBuilder& b, uint64_t sqes) {
  llvm::IRBuilder<>& ir = b.ir();
  if (sqes == 0) return ir.getTrue();
  llvm::Value* pending = queue_->Pending(b);
  llvm::Value* fits = ir.CreateICmpULE(
      ir.CreateAdd(pending, ir.getInt32(std::min<uint64_t>(sqes, UINT32_MAX))),
      rc_.sq_entries.Read(b));
  // A run that pushes more than the whole SQ holds still runs on an empty one (its pushes
  // submit as they fill it); with one SQE, an empty SQ always fits.
  if (sqes == 1) return fits;
  return ir.CreateOr(ir.CreateICmpEQ(pending, ir.getInt32(0)), fits);
}

void GraphLowerer::BeginRun(StepBuilder& b) {
  run_full_checks_.clear();
  push_blocks_.clear();
  run_entries_.clear();
  run_entry_ = b.ir().GetInsertBlock();
  run_last_ = &run_entry_->getParent()->back();  // blocks are appended: those after it are new
}

void GraphLowerer::SettleRoomForARun(StepBuilder& b) {
  llvm::Function* f = run_entry_->getParent();
  std::set<llvm::BasicBlock*> run_blocks = {run_entry_};
  for (auto it = std::next(run_last_->getIterator()); it != f->end(); ++it)
    run_blocks.insert(&*it);
  const uint64_t most_sqes = MostSqesOnAPath(run_entry_, run_blocks, block_sqes_);
  for (llvm::Instruction* room : room_needed_) {
    llvm::IRBuilderBase::InsertPointGuard keep(b.ir());
    b.ir().SetInsertPoint(room);
    b.ir().SetCurrentDebugLocation(room->getDebugLoc());
    room->replaceAllUsesWith(RoomFor(b, most_sqes));
    room->eraseFromParent();
  }
  room_needed_.clear();
  for (llvm::Instruction* full : run_full_checks_) {
    if (most_sqes > 1 && !FirstPushOfRun(full->getParent(), run_blocks)) continue;
    full->replaceAllUsesWith(llvm::ConstantInt::getFalse(full->getContext()));
    full->eraseFromParent();
  }
  run_full_checks_.clear();
  push_blocks_.clear();
  run_entries_.clear();
}

bool GraphLowerer::FirstPushOfRun(llvm::BasicBlock* bb,
                                  const std::set<llvm::BasicBlock*>& run_blocks) const {
  // Backwards from the push's block to the run's entries: another push on the way (or the
  // block itself again, around a loop) may have taken the room the entry's check kept.
  std::vector<llvm::BasicBlock*> work(llvm::pred_begin(bb), llvm::pred_end(bb));
  std::set<llvm::BasicBlock*> seen;
  while (!work.empty()) {
    llvm::BasicBlock* x = work.back();
    work.pop_back();
    if (!seen.insert(x).second) continue;
    if (x == bb || push_blocks_.count(x) != 0) return false;
    if (run_entries_.count(x) != 0) continue;
    // Outside the run's blocks: a way in that bypassed its room check.
    if (run_blocks.count(x) == 0) return false;
    work.insert(work.end(), llvm::pred_begin(x), llvm::pred_end(x));
  }
  return true;
}

void GraphLowerer::EmitEnding(StepBuilder& sb, const ReapResult& reaped) {
  llvm::IRBuilder<>& ir = sb.ir();
  if (drain_) EmitCancelAllOnce(sb);
  queue_->Flush(sb);
  if (drain_) EmitStopWhenDrained(sb);
  // Wake at once while slots are ready or CQEs wait beyond the reap bound; else at the next CQE.
  llvm::Value* tail = sb.Load(ScalarType::kU32, reaped.cq_tail_ptr, 0, 4, true);
  llvm::Value* ready =
      none_ready_after_run_ ? ir.getFalse() : ir.CreateAnd(Running(sb), AnyReady(sb));
  llvm::Value* more = ir.CreateOr(ir.CreateICmpNE(tail, reaped.head), ready);
  EmitSetWaitIndex(sb, ir.CreateSelect(more, reaped.head,
                                       ir.CreateAdd(reaped.head, ir.getInt32(1))));
  sb.Return(LoopAction::kContinue);
}

void GraphLowerer::EmitCancelAllOnce(StepBuilder& sb) {
  llvm::IRBuilder<>& ir = sb.ir();
  // The graph ended: cancel everything still in flight (once), then wait for the last CQE. With
  // the SQ full (the run loop filled it), the cancel waits for the next step: the SQEs in it
  // complete, so there is one.
  llvm::Value* ending = sb.Load(ScalarType::kU32, ending_, 0, 4, true);
  llvm::Value* is_ending = ir.CreateICmpNE(ending, ir.getInt32(0));
  EmitIf(sb, is_ending, [&](StepBuilder& b) {
    EmitHubsCloseQueued(b);  // the sockets accepted for accepts that will not come
    // Pending SQEs count too: they are submitted with the cancel, and may never complete.
    llvm::Value* inflight = ir.CreateAdd(b.Load(ScalarType::kU32, inflight_, 0, 4, true),
                                         queue_->Pending(b));
    llvm::Value* sent = b.Load(ScalarType::kU32, cancel_sent_, 0, 4, true);
    llvm::Value* room = ir.CreateICmpULT(queue_->Pending(b), rc_.sq_entries.Read(b));
    EmitIf(b,
           ir.CreateAnd(ir.CreateAnd(ir.CreateICmpNE(inflight, ir.getInt32(0)),
                                     ir.CreateICmpEQ(sent, ir.getInt32(0))),
                        room),
           [&](StepBuilder& b) {
             b.Store(ScalarType::kU32, cancel_sent_, 0, ir.getInt32(1), 4, true);
             SqeFields f = sqe::AsyncCancel(ir.getInt64(0), ir.getInt32(IORING_ASYNC_CANCEL_ALL |
                                                                        IORING_ASYNC_CANCEL_ANY));
             Push(b, f);
           });
  });
}

void GraphLowerer::EmitStopWhenDrained(StepBuilder& sb) {
  llvm::IRBuilder<>& ir = sb.ir();
  llvm::Value* ending = sb.Load(ScalarType::kU32, ending_, 0, 4, true);
  llvm::Value* is_ending = ir.CreateICmpNE(ending, ir.getInt32(0));
  llvm::Value* drained =
      ir.CreateICmpEQ(sb.Load(ScalarType::kU32, inflight_, 0, 4, true), ir.getInt32(0));
  EmitIf(sb, ir.CreateAnd(is_ending, drained), [&](StepBuilder& b) {
    llvm::BasicBlock* failed = b.NewBlock("end.failed");
    llvm::BasicBlock* done = b.NewBlock("end.done");
    ir.CreateCondBr(ir.CreateICmpEQ(ending, ir.getInt32(2)), failed, done);
    b.SetBlock(failed);
    b.Stop(StopReason::kFailed, b.Load(ScalarType::kS32, end_error_, 0, 4, true));
    ir.CreateUnreachable();
    b.SetBlock(done);
    b.Stop(StopReason::kDone);
    ir.CreateUnreachable();
    b.SetBlock(b.NewBlock("end.after"));
  });
}

}  // namespace uringc::lower

namespace uringc {

bool LowerGraphToBpf(const rgir::Graph& graph, BpfModule& module,
                     const GraphLoweringOptions& options, DiagnosticList& diags) {
  lower::GraphLowerer l(graph, module, options, diags);
  return l.Run();
}

}  // namespace uringc
