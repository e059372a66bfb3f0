// Requests and time: a kRequest node becomes its SQE (user_data = task, slot, sequence number),
// followed by an IORING_OP_LINK_TIMEOUT when it has `within`; its completion stores the result
// (-ECANCELED from a fired link timeout reads as -ETIME) and picks the timeout edge. A deadline
// is an IORING_OP_TIMEOUT that outlives its block (kDeadlineSeq...: a block run per request in a
// loop costs no SQE once armed, where arming and removing one per run cost two SQEs and two
// CQEs); it is removed only when its slot ends. Timespecs are written into the
// parameter region (the kernel copies them from user memory while the SQE is submitted), one
// per SQE position of the step, at the host's address of the region; so are openat paths,
// copied out of the path's view so the kernel never reads past it (CopyPath).
#include <linux/io_uring.h>

#include "bpf_ir/control.h"
#include "emit/host_module.h"
#include "lower/graph_lowerer.h"

namespace uringc::lower {
namespace {

constexpr int kEtime = 62;
constexpr int kEcanceled = 125;
constexpr int kEnametoolong = 36;
constexpr int kEinval = 22;

}  // namespace

llvm::Value* GraphLowerer::Timespec(StepBuilder& b, llvm::Value* ns) {
  llvm::IRBuilder<>& ir = b.ir();
  llvm::Value* pos = ir.CreateAnd(queue_->Pending(b), ir.getInt32(kTimespecSlots - 1));
  llvm::Value* off = ir.CreateShl(ir.CreateZExt(pos, ir.getInt64Ty()), 4, "ts_off");
  // A duration is unsigned: one of 2^63 ns or more (a host's value, a subtraction that wrapped)
  // saturates to 2^63-1 ns, the kernel's KTIME_MAX (docs/language.md, section 3).
  ns = ir.CreateZExtOrTrunc(ns, ir.getInt64Ty());
  ns = ir.CreateSelect(ir.CreateICmpSLT(ns, ir.getInt64(0)), ir.getInt64(INT64_MAX), ns);
  llvm::Value* ts = b.At(mem_, off);
  b.Store(ScalarType::kU64, ts, 0, ir.CreateUDiv(ns, ir.getInt64(1000000000)), 8);
  b.Store(ScalarType::kU64, ts, 8, ir.CreateURem(ns, ir.getInt64(1000000000)), 8);
  return ir.CreateAdd(b.ReadConst(mem_addr_), off, "ts_addr");
}

// The kernel reads an openat path from user memory up to its NUL, which the view need not
// contain: the controller copies the view's bytes up to the first NUL (at most kPathMax) into a
// path slot of the parameter region, ends them with a NUL, and gives the SQE the slot's user
// address. io_uring copies the path while the SQE is submitted (io_openat_prep -> getname), so a
// slot only has to live until the next bpf_io_uring_submit_sqes: the slot is the SQE's position
// in the pending batch, and a batch that already holds kPathSlots SQEs is submitted first, so
// every pending openat has a slot of its own.
GraphLowerer::PathCopy GraphLowerer::CopyPath(StepBuilder& b, Val path) {
  llvm::IRBuilder<>& ir = b.ir();
  EmitIf(b, ir.CreateICmpUGE(queue_->Pending(b), ir.getInt32(kPathSlots)),
         [&](StepBuilder& b) { queue_->Flush(b); });
  llvm::Value* pos = ir.CreateAnd(queue_->Pending(b), ir.getInt32(kPathSlots - 1));
  llvm::Value* off = ir.CreateAdd(
      ir.CreateMul(ir.CreateZExt(pos, ir.getInt64Ty()), ir.getInt64(kPathSlotSize)),
      ir.getInt64(kTimespecAreaSize), "path_off");
  llvm::Value* len = ir.CreateZExtOrTrunc(path.len, ir.getInt32Ty());
  llvm::Value* n = ir.CreateSelect(ir.CreateICmpUGT(len, ir.getInt32(kPathMax)),
                                   ir.getInt32(kPathMax), len, "path_n");
  llvm::Value* size = ir.CreateAdd(n, ir.getInt32(1));
  llvm::Value* src = ir.CreateIntToPtr(path.v, ir.getPtrTy());
  // Reads at most n bytes of the view; returns the path's length + 1, or n + 1 when no NUL came
  // first (then the whole of n bytes is the path), or -errno.
  llvm::Value* got = ir.CreateCall(m_.CopyFromUserStrKfunc(),
                                   {b.At(mem_, off), size, src, ir.getInt64(0)}, "path_copied");
  // No NUL in the first kPathMax bytes of a longer view: the path is longer than the kernel
  // takes (PATH_MAX with its NUL).
  llvm::Value* too_long = ir.CreateAnd(ir.CreateICmpUGT(len, ir.getInt32(kPathMax)),
                                       ir.CreateICmpEQ(got, size));
  llvm::Value* err = ir.CreateSelect(
      ir.CreateICmpSLT(got, ir.getInt32(0)), got,
      ir.CreateSelect(too_long, ir.getInt32(-kEnametoolong), ir.getInt32(0)), "path_err");
  return {ir.CreateAdd(b.ReadConst(mem_addr_), off, "path_addr"), err, pos};
}

// A view of a host buffers parameter, written as one (`buf[i]`, `buf[i][a..b]`): the host may
// have registered that parameter's memory as fixed buffer k (uringc_fixed_<p> = kFixedBufferFlag
// | k, a frozen constant, so the verifier walks only the branch that applies; 0 when it did not).
// The fixed opcodes take the same address and length, which lie inside the registered memory,
// and skip the kernel's page walk. The SQE's buf_index is the constant's low 16 bits: k, or 0.
void GraphLowerer::UseFixedBuffer(StepBuilder& b, const rgir::Expr& view, SqeFields& f,
                                  uint8_t fixed_op) {
  const rgir::Expr* e = &view;
  while (e->op == rgir::Expr::Op::kSlice) e = &e->operands[0];
  if (e->op != rgir::Expr::Op::kBuffer) return;
  auto it = fixed_index_.find(e->id);
  if (it == fixed_index_.end()) return;
  llvm::IRBuilder<>& ir = b.ir();
  llvm::Value* k = b.ReadConst(it->second);
  llvm::Value* fixed = ir.CreateICmpNE(k, ir.getInt32(0));
  f.opcode_v = ir.CreateSelect(fixed, ir.getInt8(fixed_op), ir.getInt8(f.opcode), "rw_op");
  f.buf_index = ir.CreateTrunc(k, ir.getInt16Ty(), "buf_index");
}

void GraphLowerer::EmitRequest(StepBuilder& b, Here h, const rgir::Node& n) {
  if (std::optional<uint32_t> hub = HubOf(n)) return EmitHubTake(b, h, *hub);  // accept_hub.cpp
  llvm::IRBuilder<>& ir = b.ir();
  auto arg = [&](size_t i) { return Eval(b, h, n.args.at(i)); };
  auto scalar = [&](size_t i, llvm::Type* to) {
    const rgir::Expr& e = n.args.at(i);
    llvm::Value* v = Eval(b, h, e).v;
    const bool s = e.type.kind == Type::Kind::kFd ||
                   (e.type.kind == Type::Kind::kInt && e.type.is_signed);
    return s ? ir.CreateSExtOrTrunc(v, to) : ir.CreateZExtOrTrunc(v, to);
  };
  llvm::Type* i32 = ir.getInt32Ty();
  llvm::Type* i64 = ir.getInt64Ty();
  SqeFields f;
  llvm::Value* path_err = nullptr;  // openat, statx: the copied path's error (0: none)
  using K = sema::RequestKind;
  switch (n.request) {
    case K::kNop: f = sqe::Nop(); break;
    case K::kRead:
    case K::kWrite: {
      llvm::Value* fd = scalar(0, i32);
      Val buf = arg(1);
      llvm::Value* off = scalar(2, i64);
      f = n.request == K::kRead ? sqe::Read(fd, buf.v, buf.len, off)
                                : sqe::Write(fd, buf.v, buf.len, off);
      UseFixedBuffer(b, n.args[1], f,
                     n.request == K::kRead ? IORING_OP_READ_FIXED : IORING_OP_WRITE_FIXED);
      break;
    }
    case K::kRecv:
    case K::kSend: {
      llvm::Value* fd = scalar(0, i32);
      Val buf = arg(1);
      llvm::Value* flags = scalar(2, i32);
      f = n.request == K::kRecv ? sqe::Recv(fd, buf.v, buf.len, flags)
                                : sqe::Send(fd, buf.v, buf.len, flags);
      break;
    }
    case K::kAccept:
      f = sqe::Accept(scalar(0, i32), nullptr, nullptr, scalar(1, i32));
      break;
    case K::kConnect: {
      llvm::Value* fd = scalar(0, i32);
      Val addr = arg(1);
      f = sqe::Connect(fd, addr.v, ir.CreateZExt(addr.len, i64));
      break;
    }
    case K::kSocket:
      f = SqeFields{.opcode = IORING_OP_SOCKET,
                    .fd = scalar(0, i32),
                    .off = scalar(1, i64),
                    .len = scalar(2, i32)};
      break;
    case K::kClose: f = sqe::Close(scalar(0, i32)); break;
    case K::kFsync: {
      llvm::Value* fd = scalar(0, i32);
      llvm::Value* datasync = ir.CreateZExt(Convert(b, arg(1).v, n.args[1].type, Type::Bool()), i32);
      f = sqe::Fsync(fd, ir.CreateMul(datasync, ir.getInt32(IORING_FSYNC_DATASYNC)));
      break;
    }
    case K::kOpenat: {
      llvm::Value* dfd = scalar(0, i32);
      Val path = arg(1);
      llvm::Value* flags = scalar(2, i32);
      llvm::Value* mode = scalar(3, i32);
      // Last: the copy may submit the pending batch (see CopyPath).
      PathCopy copy = CopyPath(b, path);
      path_err = copy.err;
      f = sqe::Openat(dfd, copy.addr, flags, mode);
      break;
    }
    case K::kOpenat2: {
      // struct open_how { u64 flags, mode, resolve } in the how slot paired with the path slot:
      // io_uring copies it at prep (io_openat2_prep), like the path.
      llvm::Value* dfd = scalar(0, i32);
      Val path = arg(1);
      llvm::Value* flags = scalar(2, i64);
      llvm::Value* mode = scalar(3, i64);
      llvm::Value* resolve = scalar(4, i64);
      PathCopy copy = CopyPath(b, path);
      path_err = copy.err;
      llvm::Value* how_off = ir.CreateAdd(
          ir.CreateMul(ir.CreateZExt(copy.slot, i64), ir.getInt64(kHowSlotSize)),
          ir.getInt64(mem_layout_.how_at), "how_off");
      llvm::Value* how = b.At(mem_, how_off);
      b.Store(ScalarType::kU64, how, 0, flags, 8);
      b.Store(ScalarType::kU64, how, 8, mode, 8);
      b.Store(ScalarType::kU64, how, 16, resolve, 8);
      f = SqeFields{.opcode = IORING_OP_OPENAT2,
                    .fd = dfd,
                    .off = ir.CreateAdd(b.ReadConst(mem_addr_), how_off, "how_addr"),
                    .addr = copy.addr,
                    .len = ir.getInt32(24)};
      break;
    }
    case K::kBind: {
      // io_bind_prep copies the address at submission, like connect's.
      llvm::Value* fd = scalar(0, i32);
      Val addr = arg(1);
      f = SqeFields{.opcode = IORING_OP_BIND,
                    .fd = fd,
                    .off = ir.CreateZExt(addr.len, i64),
                    .addr = addr.v};
      break;
    }
    case K::kUringCmd:
      f = sqe::UringCmd(scalar(0, i32), ir.CreateZExt(scalar(1, i32), i64), scalar(2, i64),
                        scalar(3, i64));
      break;
    case K::kListen:
      f = SqeFields{.opcode = IORING_OP_LISTEN, .fd = scalar(0, i32), .len = scalar(1, i32)};
      break;
    case K::kShutdown:
      f = SqeFields{.opcode = IORING_OP_SHUTDOWN, .fd = scalar(0, i32), .len = scalar(1, i32)};
      break;
    case K::kStatx: {
      // The kernel writes a whole struct statx into `into` when the request completes: a shorter
      // view completes the statx with -EINVAL instead (nothing outside the view is written).
      llvm::Value* dfd = scalar(0, i32);
      Val path = arg(1);
      Val into = arg(2);
      llvm::Value* mask = scalar(3, i32);
      llvm::Value* flags = scalar(4, i32);
      PathCopy copy = CopyPath(b, path);
      llvm::Value* short_view = ir.CreateICmpULT(ir.CreateZExtOrTrunc(into.len, i32),
                                                 ir.getInt32(sema::kStatxBytes));
      path_err = ir.CreateSelect(short_view, ir.getInt32(-kEinval), copy.err, "statx_err");
      f = SqeFields{.opcode = IORING_OP_STATX,
                    .fd = dfd,
                    .off = into.v,
                    .addr = copy.addr,
                    .len = mask,
                    .op_flags = flags};
      break;
    }
    case K::kSplice:
      // splice_off_in shares `addr`; an offset of -1 (CUR) means none, as pipes need.
      f = SqeFields{.opcode = IORING_OP_SPLICE,
                    .fd = scalar(1, i32),
                    .off = scalar(4, i64),
                    .addr = scalar(3, i64),
                    .len = scalar(2, i32),
                    .op_flags = scalar(5, i32),
                    .splice_fd_in = scalar(0, i32)};
      break;
    case K::kPoll: f = sqe::PollAdd(scalar(0, i32), scalar(1, i32)); break;
    case K::kSleep: {
      llvm::Value* ns = scalar(0, i64);
      f = sqe::Timeout(Timespec(b, ns), nullptr, nullptr);
      break;
    }
    case K::kCancel:
      f = SqeFields{.opcode = IORING_OP_ASYNC_CANCEL,
                    .fd = scalar(0, i32),
                    .op_flags = ir.getInt32(IORING_ASYNC_CANCEL_FD | IORING_ASYNC_CANCEL_ALL)};
      break;
  }
  // Arguments first (they may fail the task), then the SQEs: nothing is half submitted.
  llvm::Value* timeout_ns = n.timeout ? Convert(b, Eval(b, h, *n.timeout).v, n.timeout->type,
                                                Type::Int(64, true))
                                      : nullptr;
  // Without drain_ the one task awaits one request at a time and every CQE is awaited: the
  // request's resume state is a unique enough tag. Otherwise a fresh sequence number tells the
  // awaited CQE from those of cancelled requests.
  llvm::Value* seq = drain_ ? NextSeq(b)
                            : ir.getInt32(AfterState(static_cast<rgir::NodeId>(&n - g_.nodes.data())));
  f.user_data = UserData(b, h.task, h.idx, seq);
  if (timeout_ns != nullptr) f.flags |= IOSQE_IO_LINK;
  // A sleep's timespec (and an openat's path) was written for the position this SQE takes:
  // nothing is pushed between (evaluating arguments never submits on the path that reaches here).
  auto submit = [&](StepBuilder& b) {
    Push(b, f);
    if (timeout_ns != nullptr) {
      SqeFields lt = sqe::LinkTimeout(Timespec(b, timeout_ns), nullptr);
      lt.user_data = b.ir().getInt64(0);
      Push(b, lt);
    }
    Table(h.task).StoreVar(b, h.idx, kWordSeq, b.ir().CreateZExt(seq, i64));
  };
  if (path_err == nullptr) {
    submit(b);
    return;
  }
  // A path the kernel would refuse completes the openat at once with the kernel's errno: the
  // slot resumes after its await with that result, as if the CQE had come.
  EmitIf(b, ir.CreateICmpEQ(path_err, ir.getInt32(0)), submit, [&](StepBuilder& b) {
    Table(h.task).StoreVar(b, h.idx, kWordRes, b.ir().CreateSExt(path_err, i64));
    Table(h.task).StoreVar(b, h.idx, kWordSeq, b.ir().getInt64(0));
    Enqueue(b, h.task, h.idx);
  });
}

void GraphLowerer::EmitRequestDone(
    StepBuilder& b, Here h, rgir::NodeId id,
    const std::function<llvm::BasicBlock*(rgir::NodeId, rgir::NodeId)>& edge) {
  llvm::IRBuilder<>& ir = b.ir();
  const rgir::Node& n = g_.nodes[id];
  // In the state switch of a `woken` block the result is its phi; the slot must be that
  // block's (a request's completion resumes the slot that awaited it).
  const bool in_woken = direct_.resume_res != nullptr && h.idx == direct_.woken_idx[h.task];
  llvm::Value* res = in_woken ? static_cast<llvm::Value*>(direct_.resume_res)
                              : Table(h.task).LoadVarLow32(b, h.idx, kWordRes);
  // A sleep's own timer expiring is its success; this comes first, so that the -ETIME that a
  // fired link timeout produces below stays -ETIME (`sleep(10 s) within 40 ms` times out).
  if (n.request == sema::RequestKind::kSleep) {
    res = ir.CreateSelect(ir.CreateICmpEQ(res, ir.getInt32(-kEtime)), ir.getInt32(0), res);
  }
  llvm::Value* timed_out = ir.getFalse();
  if (n.timeout) {
    timed_out = ir.CreateICmpEQ(res, ir.getInt32(-kEcanceled));
    res = ir.CreateSelect(timed_out, ir.getInt32(-kEtime), res);
  }
  if (n.var != rgir::kNone) {
    StoreVar(b, h, n.var, Val{Convert(b, res, Type::Int(32, true), g_.vars[n.var].type)});
  }
  if (n.timeout && n.alt != rgir::kNone) {
    ir.CreateCondBr(timed_out, edge(id, n.alt), edge(id, n.next));
  } else {
    ir.CreateBr(edge(id, n.next));
  }
}

llvm::Value* GraphLowerer::Now(StepBuilder& b) {
  llvm::IRBuilder<>& ir = b.ir();
  // A BPF helper, through its number as clang emits helpers (the host engine's code calls
  // uringc_host_ktime_get_ns there: emit/host_module.cpp). The clock of io_uring's timeouts.
  auto* type = llvm::FunctionType::get(ir.getInt64Ty(), {}, false);
  return ir.CreateCall(type, ir.CreateIntToPtr(ir.getInt64(kKtimeGetNsHelper), ir.getPtrTy()),
                       {}, "now");
}

void GraphLowerer::EmitDeadlineStart(StepBuilder& b, Here h, const rgir::Node& n) {
  llvm::IRBuilder<>& ir = b.ir();
  const rgir::Deadline& d = g_.deadlines[n.scope];
  TaskTable& t = Table(h.task);
  const uint32_t w = ScopeWord(n.scope);
  llvm::Value* ns = Convert(b, Eval(b, h, d.duration).v, d.duration.type, Type::Int(64, true));
  // The deadline, from a duration saturated as Timespec saturates it (no sum wraps: the clock
  // is far below 2^63).
  llvm::Value* due = ir.CreateAdd(
      Now(b), ir.CreateSelect(ir.CreateICmpSLT(ns, ir.getInt64(0)), ir.getInt64(INT64_MAX), ns),
      "due");
  t.StoreVar(b, h.idx, w + kDeadlineDue, due);
  // An earlier run of the block left its timeout armed: it serves unless it fires after `due`
  // (a shorter duration this time), in which case it goes and a new one comes.
  llvm::Value* armed = t.LoadVar(b, h.idx, w + kDeadlineSeq);
  llvm::Value* none = ir.CreateICmpEQ(armed, ir.getInt64(0));
  llvm::Value* late = ir.CreateICmpUGT(t.LoadVar(b, h.idx, w + kDeadlineAt), due);
  EmitIf(b, ir.CreateOr(none, late), [&](StepBuilder& b) {
    llvm::IRBuilder<>& ir = b.ir();
    EmitIf(b, ir.CreateNot(none), [&](StepBuilder& b) {
      PushByUserData(b, IORING_OP_TIMEOUT_REMOVE, UserData(b, h.task, h.idx, armed));
    });
    llvm::Value* seq = NextSeq(b);
    SqeFields f = sqe::Timeout(Timespec(b, ns), nullptr, nullptr);
    f.user_data = UserData(b, h.task, h.idx, seq);
    Push(b, f);
    t.StoreVar(b, h.idx, w + kDeadlineSeq, ir.CreateZExt(seq, ir.getInt64Ty()));
    t.StoreVar(b, h.idx, w + kDeadlineAt, due);
  });
}

void GraphLowerer::EmitDeadlineEnd(StepBuilder& b, Here h, rgir::ScopeId s, llvm::Value* idx) {
  if (IsStream(s)) return EmitStreamEnd(b, h, s, idx);
  // No SQE: the timeout stays armed for the block's next run (EmitDeadlineFired).
  Table(h.task).StoreVar(b, idx, ScopeWord(s) + kDeadlineDue, b.ir().getInt64(0));
}

void GraphLowerer::EmitDeadlineDisarm(StepBuilder& b, Here h, rgir::ScopeId s, llvm::Value* idx) {
  if (IsStream(s)) return EmitStreamEnd(b, h, s, idx);
  llvm::IRBuilder<>& ir = b.ir();
  TaskTable& t = Table(h.task);
  const uint32_t w = ScopeWord(s);
  llvm::Value* armed = t.LoadVar(b, idx, w + kDeadlineSeq);
  EmitIf(b, ir.CreateICmpNE(armed, ir.getInt64(0)), [&](StepBuilder& b) {
    PushByUserData(b, IORING_OP_TIMEOUT_REMOVE, UserData(b, h.task, idx, armed));
    t.StoreVar(b, idx, w + kDeadlineSeq, b.ir().getInt64(0));
  });
  t.StoreVar(b, idx, w + kDeadlineDue, ir.getInt64(0));
}

void GraphLowerer::EmitDeadlineFired(StepBuilder& b, rgir::TaskId task, llvm::Value* idx,
                                     rgir::ScopeId s) {
  llvm::IRBuilder<>& ir = b.ir();
  TaskTable& t = Table(task);
  const uint32_t w = ScopeWord(s);
  t.StoreVar(b, idx, w + kDeadlineSeq, ir.getInt64(0));
  llvm::Value* due = t.LoadVar(b, idx, w + kDeadlineDue);
  // No block running: the timeout outlived the last one, and the next arms its own.
  EmitIf(b, ir.CreateICmpNE(due, ir.getInt64(0)), [&](StepBuilder& b) {
    llvm::IRBuilder<>& ir = b.ir();
    llvm::Value* now = Now(b);
    EmitIf(
        b, ir.CreateICmpUGE(now, due),
        [&](StepBuilder& b) {  // the running block's deadline has come: it expires
          t.StoreVar(b, idx, w + kDeadlineDue, b.ir().getInt64(0));
          t.StoreVar(b, idx, kWordExpired, b.ir().getInt64(s + 1));
          Enqueue(b, task, idx);
        },
        [&](StepBuilder& b) {  // armed by an earlier run of the block: again, for the rest
          llvm::IRBuilder<>& ir = b.ir();
          RoomFromAnywhere(b);
          llvm::Value* seq = NextSeq(b);
          SqeFields f = sqe::Timeout(Timespec(b, ir.CreateSub(due, now)), nullptr, nullptr);
          f.user_data = UserData(b, task, idx, seq);
          Push(b, f);
          t.StoreVar(b, idx, w + kDeadlineSeq, ir.CreateZExt(seq, ir.getInt64Ty()));
          t.StoreVar(b, idx, w + kDeadlineAt, due);
        });
  });
}

}  // namespace uringc::lower

namespace uringc {

MemLayout GraphMemLayout(const rgir::Graph& g) {
  MemLayout m;
  bool hows = false;
  m.timespecs = !g.deadlines.empty();
  for (const rgir::Node& n : g.nodes) {
    if (n.kind != rgir::Node::Kind::kRequest) continue;
    m.timespecs |= n.timeout.has_value() || n.request == sema::RequestKind::kSleep;
    m.paths |= n.request == sema::RequestKind::kOpenat || n.request == sema::RequestKind::kOpenat2 ||
               n.request == sema::RequestKind::kStatx;
    hows |= n.request == sema::RequestKind::kOpenat2;
  }
  uint64_t at = m.paths ? kGraphMemRegionSizeWithPaths : m.timespecs ? kGraphMemRegionSize : 0;
  if (hows) {
    m.how_at = static_cast<uint32_t>(at);
    at += kPathSlots * kHowSlotSize;
  }
  for (const std::string& lit : g.literals) {
    m.literal_at.push_back(static_cast<uint32_t>(at));
    at += (lit.size() + 7) / 8 * 8;
  }
  m.shared_at.assign(g.params.size(), 0);
  auto page = [](uint64_t a) { return (a + kSharedBufferAlign - 1) / kSharedBufferAlign * kSharedBufferAlign; };
  for (rgir::ParamId p = 0; p < g.params.size(); ++p) {
    const Type& t = g.params[p].type;
    if (t.kind != Type::Kind::kBuffers || t.mem == Type::Mem::kHost) continue;
    at = page(at);
    m.shared_at[p] = static_cast<uint32_t>(at);
    at += uint64_t{t.count} * t.size;
    if (t.mem == Type::Mem::kProvided) {
      m.pool = p;
      m.pool_at = m.shared_at[p];
      at = page(at);
      m.ring_at = static_cast<uint32_t>(at);
      at += uint64_t{t.count} * 16;
    }
  }
  m.size = static_cast<uint32_t>(at);  // sema keeps shared buffers under kMaxSharedBytes
  return m;
}

uint32_t GraphMemRegionSize(const rgir::Graph& g) { return GraphMemLayout(g).size; }

}  // namespace uringc
