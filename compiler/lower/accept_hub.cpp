// Multishot accept. In a graph of several tasks, every `accept(P)` on the same fd parameter P
// (with constant flags and no `within` of its own) takes its socket from one IORING_OP_ACCEPT
// with IORING_ACCEPT_MULTISHOT, P's hub, instead of a request of its own: the kernel accepts
// each connection as it comes, and the controller hands it to a slot that waits (the first
// found) or queues it for the next accept. The program means the same as with one accept per
// call; a server of N lanes stops submitting an accept per connection.
//
// A waiting slot has kSeqHub | hub in kWordSeq (no CQE can match it); cancelling it (a deadline,
// a lost race) clears the word and counts one waiter fewer. The multishot is armed when a slot
// waits and none is armed, and again when it ends (a CQE without IORING_CQE_F_MORE) while slots
// wait or after a socket; an error goes to one waiting slot, as a lone accept's would. With
// kHubStopAt sockets queued the hub stops accepting (ASYNC_CANCEL: the listener's backlog holds
// the rest, as for lone accepts) until a slot waits again. A socket that comes after the graph
// ended, or finds the queue full (past the backlog's worth), is closed; at the end, so are those
// still queued.
#include <linux/io_uring.h>

#include <functional>

#include "bpf_ir/control.h"
#include "lower/graph_lowerer.h"

namespace uringc::lower {
namespace {

// The hub's CQEs carry this task number minus the hub's index (no graph has that many tasks).
constexpr uint32_t kHubTaskTop = 0xffff;

const rgir::Expr& Uncast(const rgir::Expr& e) {
  return e.op == rgir::Expr::Op::kCast && !e.operands.empty() ? Uncast(e.operands[0]) : e;
}

}  // namespace

void GraphLowerer::PlanHubs() {
  if (single_ || g_.tasks.size() >= kHubTaskTop - 16) return;
  // Which task each node runs in: the nodes reachable from its entry without crossing a fork.
  std::vector<rgir::TaskId> task_of(g_.nodes.size(), rgir::kNone);
  for (rgir::TaskId t = 0; t < g_.tasks.size(); ++t) {
    std::vector<rgir::NodeId> work = {g_.tasks[t].entry};
    while (!work.empty()) {
      const rgir::NodeId id = work.back();
      work.pop_back();
      if (id == rgir::kNone || id >= g_.nodes.size() || task_of[id] != rgir::kNone) continue;
      task_of[id] = t;
      for (rgir::NodeId s : Successors(g_.nodes[id])) work.push_back(s);
    }
  }
  for (rgir::NodeId id = 0; id < g_.nodes.size(); ++id) {
    const rgir::Node& n = g_.nodes[id];
    if (n.kind != rgir::Node::Kind::kRequest || n.request != sema::RequestKind::kAccept ||
        n.timeout || n.args.size() < 2 || task_of[id] == rgir::kNone)
      continue;
    const rgir::Expr& fd = Uncast(n.args[0]);
    const rgir::Expr& flags = Uncast(n.args[1]);
    if (fd.op != rgir::Expr::Op::kParam || flags.op != rgir::Expr::Op::kConst) continue;
    size_t h = 0;
    while (h < hubs_.size() && !(hubs_[h].param == fd.id && hubs_[h].flags == flags.value)) ++h;
    if (h == hubs_.size()) {
      if (hubs_.size() >= 16) continue;  // plenty: more listeners keep their own accepts
      hubs_.push_back(Hub{fd.id, static_cast<uint32_t>(flags.value), {}});
    }
    hub_of_[id] = static_cast<uint32_t>(h);
    hubs_[h].tasks.insert(task_of[id]);
  }
}

void GraphLowerer::DeclareHubGlobals() {
  DebugTypes& types = m_.types();
  for (size_t h = 0; h < hubs_.size(); ++h) {
    const std::string p = "uringc_" + g_.name + "_hub" + std::to_string(h) + "_";
    Hub& hub = hubs_[h];
    hub.armed = m_.AddBss(p + "armed", ScalarType::kU32, g_.range);
    hub.waiting = m_.AddBss(p + "waiting", ScalarType::kU32, g_.range);
    hub.head = m_.AddBss(p + "head", ScalarType::kU32, g_.range);
    hub.tail = m_.AddBss(p + "tail", ScalarType::kU32, g_.range);
    hub.queue = m_.AddBss(p + "queue",
                          llvm::ArrayType::get(llvm::Type::getInt32Ty(m_.context()), kHubQueue),
                          types.Array(types.Scalar(ScalarType::kS32), 32, 32, kHubQueue), 4,
                          g_.range);
  }
}

std::optional<uint32_t> GraphLowerer::HubOf(const rgir::Node& n) const {
  auto it = hub_of_.find(static_cast<rgir::NodeId>(&n - g_.nodes.data()));
  if (it == hub_of_.end()) return std::nullopt;
  return it->second;
}

void GraphLowerer::RoomFromAnywhere(StepBuilder& b) {
  // Outside a run (a CQE's handler, the graph's end) nothing kept room for it: submit a full SQ.
  llvm::Value* full = b.ir().CreateICmpUGE(queue_->Pending(b), rc_.sq_entries.Read(b));
  EmitIf(b, full, [&](StepBuilder& b) { queue_->Flush(b); });
  push_has_room_ = true;
}

void GraphLowerer::PushFromAnywhere(StepBuilder& b, const SqeFields& f) {
  RoomFromAnywhere(b);
  Push(b, f);
}

void GraphLowerer::ArmHub(StepBuilder& b, uint32_t h) {
  llvm::IRBuilder<>& ir = b.ir();
  const Hub& hub = hubs_[h];
  const rgir::Param& p = g_.params[hub.param];
  llvm::Value* listener = Convert(b, b.ReadConst(params_[hub.param]), p.type, Type::Int(32, true));
  llvm::Value* seq = NextSeq(b);
  SqeFields f = sqe::Accept(listener, nullptr, nullptr, ir.getInt32(hub.flags));
  f.ioprio = IORING_ACCEPT_MULTISHOT;
  f.user_data = ir.CreateOr(ir.getInt64(uint64_t{kHubTaskTop - h} << 48),
                            ir.CreateZExt(seq, ir.getInt64Ty()), "hub_ud");
  PushFromAnywhere(b, f);
  b.Store(ScalarType::kU32, hub.armed, 0, seq, 4, true);
}

void GraphLowerer::EmitHubTake(StepBuilder& b, Here h, uint32_t hub_index) {
  llvm::IRBuilder<>& ir = b.ir();
  const Hub& hub = hubs_[hub_index];
  TaskTable& t = Table(h.task);
  llvm::Value* head = b.Load(ScalarType::kU32, hub.head, 0, 4, true);
  llvm::Value* tail = b.Load(ScalarType::kU32, hub.tail, 0, 4, true);
  EmitIf(
      b, ir.CreateICmpNE(head, tail),
      [&](StepBuilder& b) {  // a socket accepted already: the slot resumes with it at once
        llvm::IRBuilder<>& ir = b.ir();
        llvm::Value* at = ir.CreateZExt(ir.CreateAnd(head, ir.getInt32(kHubQueue - 1)),
                                        ir.getInt64Ty());
        llvm::Value* fd = b.Load(ScalarType::kS32, b.At(hub.queue, ir.CreateShl(at, 2)), 0, 4);
        b.Store(ScalarType::kU32, hub.head, 0, ir.CreateAdd(head, ir.getInt32(1)), 4, true);
        t.StoreVar(b, h.idx, kWordRes, ir.CreateSExt(fd, ir.getInt64Ty()));
        t.StoreVar(b, h.idx, kWordSeq, ir.getInt64(0));
        Enqueue(b, h.task, h.idx);
      },
      [&](StepBuilder& b) {  // wait for the next one, arming the hub if it is not
        llvm::IRBuilder<>& ir = b.ir();
        t.StoreVar(b, h.idx, kWordSeq, ir.getInt64(kSeqHub | hub_index));
        llvm::Value* n = b.Load(ScalarType::kU32, hub.waiting, 0, 4, true);
        b.Store(ScalarType::kU32, hub.waiting, 0, ir.CreateAdd(n, ir.getInt32(1)), 4, true);
        llvm::Value* armed = b.Load(ScalarType::kU32, hub.armed, 0, 4, true);
        EmitIf(b, ir.CreateICmpEQ(armed, ir.getInt32(0)),
               [&](StepBuilder& b) { ArmHub(b, hub_index); });
      });
}

bool GraphLowerer::TakesFromHub(rgir::TaskId task) const {
  for (const Hub& hub : hubs_)
    if (hub.tasks.count(task)) return true;
  return false;
}

void GraphLowerer::StopHubWait(StepBuilder& b, rgir::TaskId task, llvm::Value* idx,
                               llvm::Value* seq) {
  llvm::IRBuilder<>& ir = b.ir();
  Table(task).StoreVar(b, idx, kWordSeq, ir.getInt64(0));
  for (uint32_t h = 0; h < hubs_.size(); ++h) {  // one waiter fewer on the hub it waited on
    if (!hubs_[h].tasks.count(task)) continue;
    EmitIf(b, ir.CreateICmpEQ(seq, ir.getInt64(kSeqHub | h)), [&](StepBuilder& b) {
      llvm::IRBuilder<>& ir = b.ir();
      llvm::Value* n = b.Load(ScalarType::kU32, hubs_[h].waiting, 0, 4, true);
      b.Store(ScalarType::kU32, hubs_[h].waiting, 0,
              ir.CreateSelect(ir.CreateICmpEQ(n, ir.getInt32(0)), n,
                              ir.CreateSub(n, ir.getInt32(1))),
              4, true);
    });
  }
}

// Hands `res` (i32) to the first slot of the hub's tasks that waits on it; i1: one took it.
llvm::Value* GraphLowerer::DeliverFromHub(StepBuilder& b, uint32_t h, llvm::Value* res) {
  llvm::IRBuilder<>& ir = b.ir();
  const Hub& hub = hubs_[h];
  llvm::AllocaInst* taken;
  {
    llvm::Function* f = ir.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
    entry.SetCurrentDebugLocation(ir.getCurrentDebugLocation());
    taken = entry.CreateAlloca(ir.getInt1Ty(), nullptr, "hub.taken");
  }
  ir.CreateStore(ir.getFalse(), taken);
  for (rgir::TaskId t : hub.tasks) {
    auto visit = [&, t](StepBuilder& b, llvm::Value* k) {
      llvm::IRBuilder<>& ir = b.ir();
      EmitIf(b, ir.CreateNot(ir.CreateLoad(ir.getInt1Ty(), taken)), [&](StepBuilder& b) {
        llvm::IRBuilder<>& ir = b.ir();
        llvm::Value* idx = Table(t).CheckedIndex(b, k);
        llvm::Value* seq = Table(t).LoadVar(b, idx, kWordSeq);
        llvm::Value* waits = ir.CreateICmpEQ(seq, ir.getInt64(kSeqHub | h));
        EmitIf(b, waits, [&](StepBuilder& b) {
          llvm::IRBuilder<>& ir = b.ir();
          Table(t).StoreVar(b, idx, kWordRes, ir.CreateSExt(res, ir.getInt64Ty()));
          Table(t).StoreVar(b, idx, kWordSeq, ir.getInt64(0));
          ir.CreateStore(ir.getTrue(), taken);
          WakeAfterHandler(b, t, idx);
        });
      });
    };
    if (tasks_[t].slots <= kMostCountedIterations) {
      EmitBoundedLoop(b, tasks_[t].slots, {}, visit);
    } else {
      EmitIterLoop(b, tasks_[t].slots, visit);
    }
  }
  llvm::Value* got = ir.CreateLoad(ir.getInt1Ty(), taken);
  llvm::Value* n = b.Load(ScalarType::kU32, hub.waiting, 0, 4, true);
  // Taken: one waiter fewer. Not taken: nobody waits, whatever the count said.
  b.Store(ScalarType::kU32, hub.waiting, 0,
          ir.CreateSelect(got,
                          ir.CreateSelect(ir.CreateICmpEQ(n, ir.getInt32(0)), n,
                                          ir.CreateSub(n, ir.getInt32(1))),
                          ir.getInt32(0)),
          4, true);
  return got;
}

void GraphLowerer::CloseFromHub(StepBuilder& b, llvm::Value* fd) {
  SqeFields f = sqe::Close(fd);
  f.user_data = b.ir().getInt64(0);
  PushFromAnywhere(b, f);
}

bool GraphLowerer::EmitHubCqe(StepBuilder& b, const Cqe& cqe, llvm::Value* running,
                              llvm::BasicBlock* not_hub) {
  if (hubs_.empty()) return false;
  llvm::IRBuilder<>& ir = b.ir();
  llvm::Value* task = ir.CreateTrunc(ir.CreateLShr(cqe.user_data, 48), ir.getInt32Ty());
  llvm::BasicBlock* done = b.NewBlock("hub.done");
  llvm::SwitchInst* sw = ir.CreateSwitch(task, not_hub, static_cast<unsigned>(hubs_.size()));
  for (uint32_t h = 0; h < hubs_.size(); ++h) {
    llvm::BasicBlock* bb = b.NewBlock("hub.cqe");
    sw->addCase(ir.getInt32(kHubTaskTop - h), bb);
    b.SetBlock(bb);
    const Hub& hub = hubs_[h];
    llvm::Value* more =
        ir.CreateICmpNE(ir.CreateAnd(cqe.flags, ir.getInt32(IORING_CQE_F_MORE)), ir.getInt32(0));
    // The armed multishot ended (a multishot cancelled earlier ends with its own sequence).
    llvm::Value* cqe_seq = ir.CreateTrunc(cqe.user_data, ir.getInt32Ty());
    llvm::Value* armed = b.Load(ScalarType::kU32, hub.armed, 0, 4, true);
    llvm::Value* current = ir.CreateICmpEQ(armed, cqe_seq);
    EmitIf(b, ir.CreateAnd(ir.CreateNot(more), current), [&](StepBuilder& b) {
      b.Store(ScalarType::kU32, hub.armed, 0, b.ir().getInt32(0), 4, true);
    });
    llvm::Value* is_fd = ir.CreateICmpSGE(cqe.res, ir.getInt32(0));
    // A socket, whichever multishot accepted it; an error only from the armed one (the end of
    // one the hub cancelled, -ECANCELED, is nobody's error).
    llvm::Value* for_a_slot = ir.CreateOr(is_fd, current);
    EmitIf(
        b, running,
        [&](StepBuilder& b) {
          llvm::IRBuilder<>& ir = b.ir();
          // Armed again first, while slots will still wait after this CQE (pushed before any
          // slot is woken, so a slot run at once keeps the room its run was given).
          llvm::Value* waiting = b.Load(ScalarType::kU32, hub.waiting, 0, 4, true);
          llvm::Value* takes = ir.CreateAnd(for_a_slot, ir.CreateICmpNE(waiting, ir.getInt32(0)));
          llvm::Value* after = ir.CreateSub(waiting, ir.CreateZExt(takes, ir.getInt32Ty()));
          // Also when the kernel ended the multishot after a socket (it does, e.g. with the CQ
          // full) while the queue has room: lanes busy with open connections would otherwise
          // leave new ones to the listener's backlog until one of them waits.
          llvm::Value* unarmed =
              ir.CreateICmpEQ(b.Load(ScalarType::kU32, hub.armed, 0, 4, true), ir.getInt32(0));
          llvm::Value* room = ir.CreateICmpULT(
              ir.CreateSub(b.Load(ScalarType::kU32, hub.tail, 0, 4, true),
                           b.Load(ScalarType::kU32, hub.head, 0, 4, true)),
              ir.getInt32(kHubStopAt));
          llvm::Value* ended_well = ir.CreateAnd(ir.CreateAnd(ir.CreateNot(more), current), is_fd);
          EmitIf(b,
                 ir.CreateAnd(unarmed, ir.CreateOr(ir.CreateICmpNE(after, ir.getInt32(0)),
                                                   ir.CreateAnd(ended_well, room))),
                 [&](StepBuilder& b) { ArmHub(b, h); });
          llvm::AllocaInst* got_slot = nullptr;
          {
            llvm::Function* f = ir.GetInsertBlock()->getParent();
            llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
            got_slot = entry.CreateAlloca(ir.getInt1Ty(), nullptr, "hub.delivered");
          }
          ir.CreateStore(ir.getFalse(), got_slot);
          EmitIf(b, for_a_slot, [&](StepBuilder& b) {
            b.ir().CreateStore(DeliverFromHub(b, h, cqe.res), got_slot);
          });
          llvm::Value* got = ir.CreateLoad(ir.getInt1Ty(), got_slot);
          // A socket nobody took waits in the queue, or is closed when the queue is full; an
          // error nobody waits for is dropped (the next accept arms the hub again).
          EmitIf(b, ir.CreateAnd(is_fd, ir.CreateNot(got)), [&](StepBuilder& b) {
            llvm::IRBuilder<>& ir = b.ir();
            llvm::Value* head = b.Load(ScalarType::kU32, hub.head, 0, 4, true);
            llvm::Value* tail = b.Load(ScalarType::kU32, hub.tail, 0, 4, true);
            EmitIf(
                b, ir.CreateICmpULT(ir.CreateSub(tail, head), ir.getInt32(kHubQueue)),
                [&](StepBuilder& b) {
                  llvm::IRBuilder<>& ir = b.ir();
                  llvm::Value* at = ir.CreateZExt(ir.CreateAnd(tail, ir.getInt32(kHubQueue - 1)),
                                                  ir.getInt64Ty());
                  b.Store(ScalarType::kS32, b.At(hub.queue, ir.CreateShl(at, 2)), 0, cqe.res, 4);
                  llvm::Value* queued = ir.CreateAdd(tail, ir.getInt32(1));
                  b.Store(ScalarType::kU32, hub.tail, 0, queued, 4, true);
                  // kHubStopAt queued: stop accepting, so that further connections wait in the
                  // listener's backlog as they would for lone accepts; armed again when a slot
                  // waits. The rest of the queue holds what comes before the cancel is done.
                  llvm::Value* armed = b.Load(ScalarType::kU32, hub.armed, 0, 4, true);
                  EmitIf(b,
                         ir.CreateAnd(ir.CreateICmpUGE(ir.CreateSub(queued, head),
                                                       ir.getInt32(kHubStopAt)),
                                      ir.CreateICmpNE(armed, ir.getInt32(0))),
                         [&](StepBuilder& b) {
                           llvm::IRBuilder<>& ir = b.ir();
                           SqeFields f = sqe::AsyncCancel(
                               ir.CreateOr(ir.getInt64(uint64_t{kHubTaskTop - h} << 48),
                                           ir.CreateZExt(armed, ir.getInt64Ty())),
                               nullptr);
                           f.user_data = ir.getInt64(0);
                           PushFromAnywhere(b, f);
                           b.Store(ScalarType::kU32, hub.armed, 0, ir.getInt32(0), 4, true);
                         });
                },
                [&](StepBuilder& b) { CloseFromHub(b, cqe.res); });
          });
        },
        [&](StepBuilder& b) {  // the graph ended: nobody will take it
          EmitIf(b, is_fd, [&](StepBuilder& b) { CloseFromHub(b, cqe.res); });
        });
    ir.CreateBr(done);
  }
  b.SetBlock(done);
  return true;
}

void GraphLowerer::EmitHubsCloseQueued(StepBuilder& b) {
  for (const Hub& hub : hubs_) {
    auto queued = [&](StepBuilder& b, llvm::Value*) {
      return b.ir().CreateICmpNE(b.Load(ScalarType::kU32, hub.head, 0, 4, true),
                                 b.Load(ScalarType::kU32, hub.tail, 0, 4, true));
    };
    auto close_one = [&](StepBuilder& b, llvm::Value*) {
      llvm::IRBuilder<>& ir = b.ir();
      llvm::Value* head = b.Load(ScalarType::kU32, hub.head, 0, 4, true);
      llvm::Value* at =
          ir.CreateZExt(ir.CreateAnd(head, ir.getInt32(kHubQueue - 1)), ir.getInt64Ty());
      llvm::Value* fd = b.Load(ScalarType::kS32, b.At(hub.queue, ir.CreateShl(at, 2)), 0, 4);
      b.Store(ScalarType::kU32, hub.head, 0, ir.CreateAdd(head, ir.getInt32(1)), 4, true);
      CloseFromHub(b, fd);
    };
    EmitIterLoop(b, kHubQueue, queued, close_one);
  }
}

}  // namespace uringc::lower
