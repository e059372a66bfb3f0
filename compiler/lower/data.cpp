// Data in the parameter region: shared buffers, byte-string literals, and the builtins that read
// and write their bytes (get_T, put_T, copy_bytes, equal_bytes, copy_from_user). A view is a
// (user address, length) pair like any other; its bytes are reached through the controller's own
// mapping of the region (`mem_`, from bpf_io_uring_get_region) at `address - uringc_mem_addr`.
// Every access checks that offset against the region's size in the register it then uses (behind
// an empty inline-asm barrier, as TaskTable::CheckedIndex does): that is what the verifier needs,
// and it never fails for a view the program could build, since rgir has already raised EFAULT for
// an offset outside the view (build_expr.cpp, DataBuiltin).
#include <algorithm>
#include <cerrno>
#include <cstdint>

#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Intrinsics.h"

#include "bpf_ir/control.h"
#include "emit/host_module.h"
#include "lower/graph_lowerer.h"

namespace uringc::lower {
namespace {

constexpr int kEfault = 14;

llvm::Value* Barrier(llvm::IRBuilder<>& ir, llvm::Value* v) {
  auto* type = llvm::FunctionType::get(ir.getInt64Ty(), {ir.getInt64Ty()}, false);
  return ir.CreateCall(llvm::InlineAsm::get(type, "", "=r,0", /*hasSideEffects=*/true), {v});
}

llvm::AllocaInst* EntryAlloca(llvm::IRBuilder<>& ir, llvm::Type* type, const char* name) {
  llvm::Function* f = ir.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
  entry.SetCurrentDebugLocation(ir.getCurrentDebugLocation());
  return entry.CreateAlloca(type, nullptr, name);
}

}  // namespace

// The offset of `user_addr` in the region, checked so that `width` bytes there are inside it.
llvm::Value* GraphLowerer::RegionOffset(StepBuilder& b, Here h, llvm::Value* user_addr,
                                        uint32_t width) {
  llvm::IRBuilder<>& ir = b.ir();
  llvm::Value* r = ir.CreateSub(ir.CreateZExtOrTrunc(user_addr, ir.getInt64Ty()),
                                b.ReadConst(mem_addr_), "region_off");
  r = Barrier(ir, r);
  llvm::Value* ok = mem_size_ >= width ? ir.CreateICmpULE(r, ir.getInt64(mem_size_ - width))
                                       : ir.getFalse();
  CheckOrFail(b, h, ok, kEfault);
  return r;
}

Val GraphLowerer::Literal(StepBuilder& b, const rgir::Expr& e) {
  llvm::IRBuilder<>& ir = b.ir();
  llvm::Value* addr =
      ir.CreateAdd(b.ReadConst(mem_addr_), ir.getInt64(mem_layout_.literal_at[e.id]), "literal");
  return Val{addr, ir.getInt32(static_cast<uint32_t>(g_.literals[e.id].size()))};
}

// The literals' bytes, 8 at a time, at their offsets (8-byte aligned, zero padded).
void GraphLowerer::EmitWriteLiterals(StepBuilder& b) {
  llvm::IRBuilder<>& ir = b.ir();
  for (size_t i = 0; i < g_.literals.size(); ++i) {
    const std::string& lit = g_.literals[i];
    for (size_t k = 0; k < lit.size(); k += 8) {
      uint64_t word = 0;
      for (size_t j = 0; j < 8 && k + j < lit.size(); ++j)
        word |= uint64_t{static_cast<uint8_t>(lit[k + j])} << (8 * j);  // little endian
      b.Store(ScalarType::kU64, mem_, mem_layout_.literal_at[i] + k, ir.getInt64(word), 8);
    }
  }
}

Val GraphLowerer::DataLoad(StepBuilder& b, Here h, const rgir::Expr& e) {
  llvm::IRBuilder<>& ir = b.ir();
  const uint32_t width = rgir::DataAccessBytes(e.value);
  Val view = Eval(b, h, e.operands[0]);
  llvm::Value* off = ir.CreateZExt(Eval(b, h, e.operands[1]).v, ir.getInt64Ty());
  llvm::Value* r = RegionOffset(b, h, ir.CreateAdd(view.v, off), width);
  llvm::Type* ty = ir.getIntNTy(width * 8);
  llvm::Value* x = ir.CreateAlignedLoad(ty, b.At(mem_, r), llvm::Align(1), "data");
  if (width > 1 && rgir::DataAccessBigEndian(e.value))
    x = ir.CreateUnaryIntrinsic(llvm::Intrinsic::bswap, x);
  return Val{x};
}

void GraphLowerer::DataStore(StepBuilder& b, Here h, const rgir::Expr& e) {
  llvm::IRBuilder<>& ir = b.ir();
  const uint32_t width = rgir::DataAccessBytes(e.value);
  Val view = Eval(b, h, e.operands[0]);
  llvm::Value* off = ir.CreateZExt(Eval(b, h, e.operands[1]).v, ir.getInt64Ty());
  llvm::Value* x = ir.CreateZExtOrTrunc(Eval(b, h, e.operands[2]).v, ir.getIntNTy(width * 8));
  if (width > 1 && rgir::DataAccessBigEndian(e.value))
    x = ir.CreateUnaryIntrinsic(llvm::Intrinsic::bswap, x);
  llvm::Value* r = RegionOffset(b, h, ir.CreateAdd(view.v, off), width);
  ir.CreateAlignedStore(x, b.At(mem_, r), llvm::Align(1));
}

// For k in [0, n) while `*stop` (an i1 alloca, or null) is false: the byte offsets ra + i and
// rb + i of the region, i = index(k), each checked against the region in the register used
// (the verifier needs it; it never fails for views already checked), then body(from, to).
void GraphLowerer::EachBytePair(
    StepBuilder& b, llvm::Value* ra, llvm::Value* rb, llvm::AllocaInst* stop,
    const std::function<llvm::Value*(StepBuilder&, llvm::Value*)>& index, llvm::Value* n,
    const std::function<void(StepBuilder&, llvm::Value*, llvm::Value*)>& body) {
  EmitIterLoop(
      b, mem_size_,
      [&](StepBuilder& b, llvm::Value* k) {
        llvm::IRBuilder<>& ir = b.ir();
        llvm::Value* more = ir.CreateICmpULT(k, n);
        if (stop) more = ir.CreateAnd(more, ir.CreateNot(ir.CreateLoad(ir.getInt1Ty(), stop)));
        return more;
      },
      [&](StepBuilder& b, llvm::Value* k) {
        llvm::IRBuilder<>& ir = b.ir();
        llvm::Value* i = index(b, k);
        llvm::Value* pa = Barrier(ir, ir.CreateAdd(ra, i));
        llvm::Value* pb = Barrier(ir, ir.CreateAdd(rb, i));
        llvm::Value* inside = ir.CreateAnd(ir.CreateICmpULT(pa, ir.getInt64(mem_size_)),
                                           ir.CreateICmpULT(pb, ir.getInt64(mem_size_)));
        EmitIf(b, inside, [&](StepBuilder& b) { body(b, pa, pb); });
      });
}

// min(len) bytes, one at a time through the iterator loop (its verification does not grow with
// the count), backwards when the destination starts after the source, so overlapping views
// copy as memmove does. Each byte's offsets are checked again inside the loop for the verifier.
Val GraphLowerer::CopyBytes(StepBuilder& b, Here h, const rgir::Expr& e) {
  llvm::IRBuilder<>& ir = b.ir();
  Val dst = Eval(b, h, e.operands[0]);
  Val src = Eval(b, h, e.operands[1]);
  llvm::Value* n = ir.CreateSelect(ir.CreateICmpULT(dst.len, src.len), dst.len, src.len, "n");
  llvm::Value* rd = RegionOffset(b, h, dst.v, 0);
  llvm::Value* rs = RegionOffset(b, h, src.v, 0);
  llvm::Value* backward = ir.CreateICmpUGT(rd, rs);
  llvm::Value* n64 = ir.CreateZExt(n, ir.getInt64Ty());
  EachBytePair(b, rs, rd, nullptr, [&](StepBuilder& b, llvm::Value* k) {
    llvm::IRBuilder<>& ir = b.ir();
    llvm::Value* k64 = ir.CreateZExt(k, ir.getInt64Ty());
    return ir.CreateSelect(backward, ir.CreateSub(ir.CreateSub(n64, k64), ir.getInt64(1)), k64);
  }, n, [&](StepBuilder& b, llvm::Value* from, llvm::Value* to) {
    llvm::IRBuilder<>& ir = b.ir();
    llvm::Value* x = ir.CreateAlignedLoad(ir.getInt8Ty(), b.At(mem_, from), llvm::Align(1));
    ir.CreateAlignedStore(x, b.At(mem_, to), llvm::Align(1));
  });
  return Val{Convert(b, n, Type::Int(32, false), e.type)};
}

// One bpf_copy_from_user call (a BPF helper: struct_ops programs may call it, and loop_step is
// sleepable, so it may fault pages in), through the helper's number as clang emits helpers; the
// host engine's code calls uringc_host_copy_from_user there instead (emit/host_module.cpp).
static llvm::Value* CallCopyFromUser(llvm::IRBuilder<>& ir, llvm::Value* dst, uint32_t size,
                                     llvm::Value* user_addr) {
  llvm::Type* ptr = ir.getPtrTy();
  auto* type = llvm::FunctionType::get(ir.getInt64Ty(), {ptr, ir.getInt32Ty(), ptr}, false);
  llvm::Value* helper = ir.CreateIntToPtr(ir.getInt64(kCopyFromUserHelper), ptr);
  return ir.CreateCall(type, helper, {dst, ir.getInt32(size), ir.CreateIntToPtr(user_addr, ptr)},
                       "copy_from_user");
}

// Whole words of 8 bytes while the view has them, then single bytes: each call's destination is
// checked against the region in the register used (the verifier needs the size a constant and
// the offset bounded; a view that ends less than 8 bytes before the region's end takes bytes).
// Offsets come from the iterator loops' counters, so no register changes from turn to turn. The
// first failed call stops the copy with -EFAULT; what was read before it stays.
Val GraphLowerer::CopyFromUser(StepBuilder& b, Here h, const rgir::Expr& e) {
  llvm::IRBuilder<>& ir = b.ir();
  Val dst = Eval(b, h, e.operands[0]);
  llvm::Value* addr = Eval(b, h, e.operands[1]).v;
  llvm::Value* rd = RegionOffset(b, h, dst.v, 0);
  llvm::Value* n64 = ir.CreateZExt(dst.len, ir.getInt64Ty());
  llvm::AllocaInst* failed = EntryAlloca(ir, ir.getInt1Ty(), "copy_failed");
  ir.CreateStore(ir.getFalse(), failed);
  // Copies `size` bytes at view offset `off` unless they would leave the region.
  auto copy = [&](StepBuilder& b, llvm::Value* off, uint32_t size) {
    llvm::IRBuilder<>& ir = b.ir();
    llvm::Value* p = Barrier(ir, ir.CreateAdd(rd, off));
    EmitIf(b, ir.CreateICmpULE(p, ir.getInt64(mem_size_ - size)), [&](StepBuilder& b) {
      llvm::IRBuilder<>& ir = b.ir();
      llvm::Value* r = CallCopyFromUser(ir, b.At(mem_, p), size, ir.CreateAdd(addr, off));
      ir.CreateStore(ir.CreateICmpNE(r, ir.getInt64(0)), failed);
    });
  };
  // Whether `size` more bytes at view offset `off` are to be copied.
  auto more = [&](StepBuilder& b, llvm::Value* off, uint32_t size) {
    llvm::IRBuilder<>& ir = b.ir();
    llvm::Value* end = ir.CreateAdd(off, ir.getInt64(size));
    llvm::Value* go = ir.CreateAnd(ir.CreateICmpULE(end, n64),
                                   ir.CreateNot(ir.CreateLoad(ir.getInt1Ty(), failed)));
    if (size == 1) return go;
    return ir.CreateAnd(go, ir.CreateICmpULE(ir.CreateAdd(rd, end), ir.getInt64(mem_size_)));
  };
  auto word_off = [](StepBuilder& b, llvm::Value* k) {
    return b.ir().CreateShl(b.ir().CreateZExt(k, b.ir().getInt64Ty()), 3);
  };
  const auto cap = [](uint64_t n) { return static_cast<uint32_t>(std::min<uint64_t>(n, UINT32_MAX)); };
  llvm::Value* words = EmitIterLoop(
      b, std::max<uint32_t>(cap(mem_size_ / 8), 1),
      [&](StepBuilder& b, llvm::Value* k) { return more(b, word_off(b, k), 8); },
      [&](StepBuilder& b, llvm::Value* k) { copy(b, word_off(b, k), 8); });
  llvm::Value* tail_at = word_off(b, words);
  auto byte_off = [&](StepBuilder& b, llvm::Value* k) {
    return b.ir().CreateAdd(tail_at, b.ir().CreateZExt(k, b.ir().getInt64Ty()));
  };
  EmitIterLoop(
      b, std::max<uint32_t>(cap(mem_size_), 1),
      [&](StepBuilder& b, llvm::Value* k) { return more(b, byte_off(b, k), 1); },
      [&](StepBuilder& b, llvm::Value* k) { copy(b, byte_off(b, k), 1); });
  llvm::Value* r = ir.CreateSelect(ir.CreateLoad(ir.getInt1Ty(), failed), ir.getInt32(-EFAULT),
                                   ir.getInt32(0));
  return Val{Convert(b, r, Type::Int(32, true), e.type)};
}

// Same length, then byte by byte until the first difference.
Val GraphLowerer::EqualBytes(StepBuilder& b, Here h, const rgir::Expr& e) {
  llvm::IRBuilder<>& ir = b.ir();
  Val x = Eval(b, h, e.operands[0]);
  Val y = Eval(b, h, e.operands[1]);
  llvm::Value* rx = RegionOffset(b, h, x.v, 0);
  llvm::Value* ry = RegionOffset(b, h, y.v, 0);
  llvm::AllocaInst* differ = EntryAlloca(ir, ir.getInt1Ty(), "differ");
  ir.CreateStore(ir.CreateICmpNE(x.len, y.len), differ);
  EmitIf(b, ir.CreateNot(ir.CreateLoad(ir.getInt1Ty(), differ)), [&](StepBuilder& b) {
    auto same_offset = [](StepBuilder& b, llvm::Value* k) {
      return b.ir().CreateZExt(k, b.ir().getInt64Ty());
    };
    EachBytePair(b, rx, ry, differ, same_offset, x.len,
                 [&](StepBuilder& b, llvm::Value* px, llvm::Value* py) {
                   llvm::IRBuilder<>& ir = b.ir();
                   llvm::Value* a =
                       ir.CreateAlignedLoad(ir.getInt8Ty(), b.At(mem_, px), llvm::Align(1));
                   llvm::Value* c =
                       ir.CreateAlignedLoad(ir.getInt8Ty(), b.At(mem_, py), llvm::Align(1));
                   ir.CreateStore(ir.CreateICmpNE(a, c), differ);
                 });
  });
  return Val{ir.CreateNot(ir.CreateLoad(ir.getInt1Ty(), differ))};
}

}  // namespace uringc::lower
