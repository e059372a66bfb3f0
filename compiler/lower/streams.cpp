// Streams: `for chunk in recv_each(s, pool) { ... }` is one multishot recv (IORING_OP_RECV with
// IORING_RECV_MULTISHOT and IOSQE_BUFFER_SELECT on buffer group 0, the graph's `provided` pool).
// Its completions arrive whether or not the task waits for one: each is queued in the slot (the
// scope's words: a ring of `count` entries, enough since every entry holds a different buffer of
// the pool; the last completion, without IORING_CQE_F_MORE, is kept apart in kStreamEnded), and
// wakes the slot when it waits. The loop takes one entry per iteration and gives its buffer back
// to the kernel's buffer ring at the next iteration (kStreamRelease); leaving the loop cancels the
// recv and gives back every buffer the slot still holds. A completion nobody queues (a stream
// that ended, a cancelled slot) gives its buffer back at once, so no buffer is ever lost.
#include <linux/io_uring.h>

#include "bpf_ir/control.h"
#include "lower/graph_lowerer.h"

namespace uringc::lower {
namespace {

constexpr int kEnobufs = 105;

}  // namespace

llvm::Value* GraphLowerer::StreamEntryWord(StepBuilder& b, rgir::ScopeId s, llvm::Value* pos) {
  llvm::IRBuilder<>& ir = b.ir();
  const uint32_t count = g_.params[g_.deadlines[s].pool].type.count;
  llvm::Value* i = ir.CreateAnd(ir.CreateZExtOrTrunc(pos, ir.getInt64Ty()), ir.getInt64(count - 1));
  return ir.CreateAdd(i, ir.getInt64(ScopeWord(s) + kStreamQueue), "stream_word");
}

void GraphLowerer::GiveBack(StepBuilder& b, llvm::Value* bid) {
  llvm::IRBuilder<>& ir = b.ir();
  ir.CreateCall(GiveBackHelper(b), {mem_, ir.CreateZExtOrTrunc(bid, ir.getInt64Ty())});
}

// A buffer goes back wherever a chunk is released, a stream ends or a CQE's buffer finds no
// stream (every wake site): 43 places in examples/proxy.uring, each some 20 instructions, now a
// call of `<graph>_give_back(mem, bid)`.
llvm::Function* GraphLowerer::GiveBackHelper(StepBuilder& b) {
  if (give_back_helper_ != nullptr) return give_back_helper_;
  llvm::LLVMContext& ctx = m_.context();
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  auto* type = llvm::FunctionType::get(llvm::Type::getInt32Ty(ctx),
                                       {llvm::PointerType::get(ctx, 0), i64}, false);
  DebugTypes& types = m_.types();
  llvm::Function* fn = m_.CreateHelper(
      "uringc_" + g_.name + "_give_back", type,
      {types.Int(), types.VoidPtr(), types.Scalar(ScalarType::kU64)}, {"mem", "bid"},
      b.program().decl);
  llvm::IRBuilder<> ir(ctx);
  BpfModule::BeginHelperBody(ir, fn);
  const Type& pool = g_.params[mem_layout_.pool].type;
  llvm::Value* mem = fn->getArg(0);
  auto at = [&](llvm::Value* offset) { return ir.CreateGEP(ir.getInt8Ty(), mem, offset); };
  auto store = [&](llvm::Value* v, llvm::Value* p, uint64_t align) {
    ir.CreateAlignedStore(v, p, llvm::Align(align), /*isVolatile=*/true);
  };
  llvm::Value* bid = ir.CreateAnd(fn->getArg(1), ir.getInt64(pool.count - 1), "bid");
  // struct io_uring_buf { __u64 addr; __u32 len; __u16 bid; __u16 resv; }; the ring's tail is
  // the resv of entry 0 (offset 14). The controller is the ring's only producer; the kernel reads
  // the tail with an acquire load, and volatile stores keep the entry before the tail (x86 keeps
  // stores in order).
  llvm::Value* tail_at = at(ir.getInt64(mem_layout_.ring_at + 14));
  llvm::Value* tail = ir.CreateAlignedLoad(ir.getInt16Ty(), tail_at, llvm::Align(2), true);
  llvm::Value* slot = ir.CreateAnd(ir.CreateZExt(tail, i64), ir.getInt64(pool.count - 1));
  llvm::Value* entry =
      at(ir.CreateAdd(ir.CreateShl(slot, 4), ir.getInt64(mem_layout_.ring_at), "buf_off"));
  llvm::Value* region = ir.CreateAlignedLoad(i64, mem_addr_, llvm::Align(8), true);
  llvm::Value* addr = ir.CreateAdd(ir.CreateAdd(region, ir.getInt64(mem_layout_.pool_at)),
                                   ir.CreateMul(bid, ir.getInt64(pool.size)), "buf_addr");
  store(addr, entry, 8);
  auto field = [&](uint64_t offset) { return ir.CreateConstGEP1_64(ir.getInt8Ty(), entry, offset); };
  store(ir.getInt32(static_cast<uint32_t>(pool.size)), field(8), 8);
  store(ir.CreateTrunc(bid, ir.getInt16Ty()), field(12), 4);
  // The tail's own entry may be the one just written (slot 0): the tail is stored last.
  store(ir.CreateAdd(tail, ir.getInt16(1)), at(ir.getInt64(mem_layout_.ring_at + 14)), 2);
  ir.CreateRet(ir.getInt32(0));  // a subprogram's exit reads r0
  give_back_helper_ = fn;
  return fn;
}

void GraphLowerer::ArmStream(StepBuilder& b, Here h, rgir::ScopeId s) {
  TaskTable& t = Table(h.task);
  llvm::IRBuilder<>& ir = b.ir();
  llvm::Value* seq = NextSeq(b);
  SqeFields f{.opcode = IORING_OP_RECV,
              .flags = IOSQE_BUFFER_SELECT,
              .ioprio = IORING_RECV_MULTISHOT,
              .fd = ir.CreateTrunc(t.LoadVar(b, h.idx, ScopeWord(s) + kStreamSocket),
                                   ir.getInt32Ty()),
              .user_data = UserData(b, h.task, h.idx, seq)};  // buffer group 0: the pool
  Push(b, f);
  t.StoreVar(b, h.idx, ScopeWord(s), ir.CreateZExt(seq, ir.getInt64Ty()));
}

void GraphLowerer::EmitStreamStart(StepBuilder& b, Here h, const rgir::Node& n) {
  const rgir::Deadline& d = g_.deadlines[n.scope];
  TaskTable& t = Table(h.task);
  llvm::IRBuilder<>& ir = b.ir();
  llvm::Value* sock = Convert(b, Eval(b, h, d.socket).v, d.socket.type, Type::Int(64, true));
  const uint32_t w = ScopeWord(n.scope);
  for (uint32_t k : {kStreamHead, kStreamTail, kStreamEnded, kStreamWaiting, kStreamHeld})
    t.StoreVar(b, h.idx, w + k, ir.getInt64(0));
  t.StoreVar(b, h.idx, w + kStreamSocket, sock);
  ArmStream(b, h, n.scope);
}

void GraphLowerer::EmitStreamWait(StepBuilder& b, Here h, const rgir::Node& n) {
  TaskTable& t = Table(h.task);
  llvm::IRBuilder<>& ir = b.ir();
  const uint32_t w = ScopeWord(n.scope);
  llvm::Value* queued = ir.CreateICmpNE(t.LoadVar(b, h.idx, w + kStreamHead),
                                        t.LoadVar(b, h.idx, w + kStreamTail));
  llvm::Value* ended = ir.CreateICmpNE(t.LoadVar(b, h.idx, w + kStreamEnded), ir.getInt64(0));
  EmitIf(
      b, ir.CreateOr(queued, ended),
      [&](StepBuilder& b) { Enqueue(b, h.task, h.idx); },  // resumes at once, after the await
      [&](StepBuilder& b) { t.StoreVar(b, h.idx, w + kStreamWaiting, b.ir().getInt64(1)); });
}

void GraphLowerer::EmitStreamTake(StepBuilder& b, Here h, const rgir::Node& n) {
  const rgir::Deadline& d = g_.deadlines[n.scope];
  const Type& pool = g_.params[d.pool].type;
  TaskTable& t = Table(h.task);
  llvm::IRBuilder<>& ir = b.ir();
  const uint32_t w = ScopeWord(n.scope);
  llvm::AllocaInst* status;
  {
    llvm::Function* f = ir.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
    entry.SetCurrentDebugLocation(ir.getCurrentDebugLocation());
    status = entry.CreateAlloca(ir.getInt32Ty(), nullptr, "stream.status");
  }
  ir.CreateStore(ir.getInt32(2), status);  // nothing there (a wake-up for another reason): wait
  llvm::Value* head = t.LoadVar(b, h.idx, w + kStreamHead);
  llvm::Value* queued = ir.CreateICmpNE(head, t.LoadVar(b, h.idx, w + kStreamTail));
  EmitIf(
      b, queued,
      [&](StepBuilder& b) {
        llvm::IRBuilder<>& ir = b.ir();
        llvm::Value* e = t.LoadVarAt(b, h.idx, StreamEntryWord(b, n.scope, head));
        t.StoreVar(b, h.idx, w + kStreamHead, ir.CreateAdd(head, ir.getInt64(1)));
        llvm::Value* bid = ir.CreateAnd(ir.CreateLShr(e, 32), ir.getInt64(pool.count - 1));
        llvm::Value* len = ir.CreateTrunc(e, ir.getInt32Ty());
        t.StoreVar(b, h.idx, w + kStreamHeld, ir.CreateAdd(bid, ir.getInt64(1)));
        llvm::Value* addr = ir.CreateAdd(
            ir.CreateAdd(b.ReadConst(mem_addr_), ir.getInt64(mem_layout_.pool_at)),
            ir.CreateMul(bid, ir.getInt64(pool.size)), "chunk_addr");
        // The kernel never reports more than the buffer's length; clamped all the same.
        len = ir.CreateSelect(ir.CreateICmpUGT(len, ir.getInt32(static_cast<uint32_t>(pool.size))),
                              ir.getInt32(static_cast<uint32_t>(pool.size)), len, "chunk_len");
        StoreVar(b, h, d.chunk, Val{addr, len});
        ir.CreateStore(ir.getInt32(1), status);
      },
      [&](StepBuilder& b) {
        llvm::IRBuilder<>& ir = b.ir();
        llvm::Value* ended = t.LoadVar(b, h.idx, w + kStreamEnded);
        EmitIf(b, ir.CreateICmpNE(ended, ir.getInt64(0)), [&](StepBuilder& b) {
          llvm::IRBuilder<>& ir = b.ir();
          t.StoreVar(b, h.idx, w + kStreamEnded, ir.getInt64(0));
          llvm::Value* res = ir.CreateTrunc(ended, ir.getInt32Ty(), "stream_res");
          // It stopped with data (the kernel ends a multishot now and then) or for want of a
          // buffer: armed again. At end of file 0, else the error.
          llvm::Value* again = ir.CreateOr(ir.CreateICmpSGT(res, ir.getInt32(0)),
                                           ir.CreateICmpEQ(res, ir.getInt32(-kEnobufs)));
          EmitIf(b, again, [&](StepBuilder& b) { ArmStream(b, h, n.scope); });
          ir.CreateStore(ir.CreateSelect(again, ir.getInt32(2), res), status);
        });
      });
  StoreVar(b, h, n.var, Val{ir.CreateLoad(ir.getInt32Ty(), status)});
}

void GraphLowerer::EmitStreamRelease(StepBuilder& b, Here h, rgir::ScopeId s, llvm::Value* idx) {
  TaskTable& t = Table(h.task);
  llvm::IRBuilder<>& ir = b.ir();
  const uint32_t w = ScopeWord(s);
  llvm::Value* held = t.LoadVar(b, idx, w + kStreamHeld);
  EmitIf(b, ir.CreateICmpNE(held, ir.getInt64(0)), [&](StepBuilder& b) {
    GiveBack(b, b.ir().CreateSub(held, b.ir().getInt64(1)));
    t.StoreVar(b, idx, w + kStreamHeld, b.ir().getInt64(0));
  });
}

void GraphLowerer::EmitStreamEnd(StepBuilder& b, Here h, rgir::ScopeId s, llvm::Value* idx) {
  TaskTable& t = Table(h.task);
  llvm::IRBuilder<>& ir = b.ir();
  const uint32_t w = ScopeWord(s);
  const uint32_t count = g_.params[g_.deadlines[s].pool].type.count;
  llvm::Value* armed = t.LoadVar(b, idx, w);
  EmitIf(b, ir.CreateICmpNE(armed, ir.getInt64(0)), [&](StepBuilder& b) {
    // Its later completions find no stream and give their buffers back (EmitStreamCqe).
    PushByUserData(b, IORING_OP_ASYNC_CANCEL, UserData(b, h.task, idx, armed));
    t.StoreVar(b, idx, w, b.ir().getInt64(0));
  });
  EmitStreamRelease(b, h, s, idx);
  // What the slot holds queued goes back too: at most `count` entries.
  auto give_back = [&](StepBuilder& b, llvm::Value*) {
    llvm::IRBuilder<>& ir = b.ir();
    llvm::Value* head = t.LoadVar(b, idx, w + kStreamHead);
    EmitIf(b, ir.CreateICmpNE(head, t.LoadVar(b, idx, w + kStreamTail)), [&](StepBuilder& b) {
      llvm::IRBuilder<>& ir = b.ir();
      llvm::Value* e = t.LoadVarAt(b, idx, StreamEntryWord(b, s, head));
      GiveBack(b, ir.CreateLShr(e, 32));
      t.StoreVar(b, idx, w + kStreamHead, ir.CreateAdd(head, ir.getInt64(1)));
    });
  };
  if (count <= kMostCountedIterations) {
    EmitBoundedLoop(b, count, {}, give_back);
  } else {
    EmitIterLoop(b, count, give_back);
  }
  for (uint32_t k : {kStreamHead, kStreamTail, kStreamEnded, kStreamWaiting})
    t.StoreVar(b, idx, w + k, ir.getInt64(0));
}

void GraphLowerer::EmitStreamCqe(StepBuilder& b, rgir::TaskId task, llvm::Value* idx,
                                 rgir::ScopeId s, const Cqe& cqe) {
  TaskTable& t = Table(task);
  llvm::IRBuilder<>& ir = b.ir();
  const uint32_t w = ScopeWord(s);
  llvm::Value* has_buffer =
      ir.CreateICmpNE(ir.CreateAnd(cqe.flags, ir.getInt32(IORING_CQE_F_BUFFER)), ir.getInt32(0));
  llvm::Value* more =
      ir.CreateICmpNE(ir.CreateAnd(cqe.flags, ir.getInt32(IORING_CQE_F_MORE)), ir.getInt32(0));
  EmitIf(b, has_buffer, [&](StepBuilder& b) {
    llvm::IRBuilder<>& ir = b.ir();
    llvm::Value* tail = t.LoadVar(b, idx, w + kStreamTail);
    llvm::Value* bid = ir.CreateZExt(ir.CreateLShr(cqe.flags, IORING_CQE_BUFFER_SHIFT), ir.getInt64Ty());
    llvm::Value* e = ir.CreateOr(ir.CreateShl(bid, 32),
                                 ir.CreateZExt(cqe.res, ir.getInt64Ty()), "stream_entry");
    t.StoreVarAt(b, idx, StreamEntryWord(b, s, tail), e);
    t.StoreVar(b, idx, w + kStreamTail, ir.CreateAdd(tail, ir.getInt64(1)));
    ir.CreateStore(ir.getInt1(true), buffer_kept_);
  });
  EmitIf(b, ir.CreateNot(more), [&](StepBuilder& b) {
    llvm::IRBuilder<>& ir = b.ir();
    t.StoreVar(b, idx, w, ir.getInt64(0));
    llvm::Value* res = ir.CreateZExt(cqe.res, ir.getInt64Ty());
    t.StoreVar(b, idx, w + kStreamEnded, ir.CreateOr(res, ir.getInt64(uint64_t{1} << 32)));
  });
  llvm::Value* waiting = t.LoadVar(b, idx, w + kStreamWaiting);
  EmitIf(b, ir.CreateICmpNE(waiting, ir.getInt64(0)), [&](StepBuilder& b) {
    t.StoreVar(b, idx, w + kStreamWaiting, b.ir().getInt64(0));
    Wake(b, task, idx);
  });
}

void GraphLowerer::BeginCqeBuffer(StepBuilder& b, const Cqe& cqe) {
  if (more_cqes_ == nullptr) return;
  llvm::IRBuilder<>& ir = b.ir();
  if (mem_layout_.pool != rgir::kNone) ir.CreateStore(ir.getInt1(false), buffer_kept_);
  // A multishot's completions but its last leave the request in flight.
  llvm::Value* more =
      ir.CreateICmpNE(ir.CreateAnd(cqe.flags, ir.getInt32(IORING_CQE_F_MORE)), ir.getInt32(0));
  EmitIf(b, more, [&](StepBuilder& b) {
    llvm::Value* n = b.Load(ScalarType::kU32, more_cqes_, 0, 4, true);
    b.Store(ScalarType::kU32, more_cqes_, 0, b.ir().CreateAdd(n, b.ir().getInt32(1)), 4, true);
  });
}

void GraphLowerer::EndCqeBuffer(StepBuilder& b, const Cqe& cqe) {
  if (mem_layout_.pool == rgir::kNone) return;
  llvm::IRBuilder<>& ir = b.ir();
  llvm::Value* has_buffer =
      ir.CreateICmpNE(ir.CreateAnd(cqe.flags, ir.getInt32(IORING_CQE_F_BUFFER)), ir.getInt32(0));
  llvm::Value* kept = ir.CreateLoad(ir.getInt1Ty(), buffer_kept_);
  EmitIf(b, ir.CreateAnd(has_buffer, ir.CreateNot(kept)), [&](StepBuilder& b) {
    GiveBack(b, b.ir().CreateLShr(cqe.flags, IORING_CQE_BUFFER_SHIFT));
  });
}

llvm::Value* GraphLowerer::TakeMoreCqes(StepBuilder& b) {
  llvm::IRBuilder<>& ir = b.ir();
  if (more_cqes_ == nullptr) return ir.getInt32(0);
  llvm::Value* n = b.Load(ScalarType::kU32, more_cqes_, 0, 4, true);
  b.Store(ScalarType::kU32, more_cqes_, 0, ir.getInt32(0), 4, true);
  return n;
}

}  // namespace uringc::lower
