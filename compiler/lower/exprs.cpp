// Expressions and storage: rgir::Expr to IR values at their type's width, variables in task slots
// (64-bit words, two for a bytes view) or in `.bss` outputs, parameters from `.rodata`. Buffer
// views are (user address, length) pairs built only from a buffers parameter: an index is checked
// against the count (EFAULT otherwise; for an index sema did not prove, rgir's own check before
// the node has already raised EFAULT to the program's `try`) and every slice is clamped to the
// view it narrows, so no address the program computes leaves the host's buffers. Signed `/` and
// `%` go through unsigned ones, as CPU v3 needed (v4, the target now, has sdiv and smod).
#include "bpf_ir/control.h"
#include "lower/graph_lowerer.h"

namespace uringc::lower {
namespace {

bool IsSigned(const Type& t) {
  return t.kind == Type::Kind::kFd || t.kind == Type::Kind::kDuration ||
         ((t.kind == Type::Kind::kInt || t.kind == Type::Kind::kIntLit) && t.is_signed);
}

unsigned Bits(const Type& t) {
  switch (t.kind) {
    case Type::Kind::kBool: return 1;
    case Type::Kind::kFd: return 32;
    case Type::Kind::kInt: return t.bits ? t.bits : 64;
    default: return 64;
  }
}

// The type both operands of `e` are converted to: bool for `&&`, `||`; for a comparison, one
// that holds every value of either operand; otherwise the result's type.
Type OperandType(const rgir::Expr& e) {
  const rgir::Expr& l = e.operands[0];
  const rgir::Expr& r = e.operands[1];
  if (IsShortCircuit(e.binary_op)) return Type::Bool();
  if (!IsComparison(e.binary_op)) return e.type;
  if (l.type.kind == Type::Kind::kBool && r.type.kind == Type::Kind::kBool) return Type::Bool();
  const bool s = IsSigned(l.type) || IsSigned(r.type);
  const unsigned bits = std::max(Bits(l.type), Bits(r.type));
  // An unsigned operand as wide as the signed result would change value: widen once more.
  if (s && ((!IsSigned(l.type) && Bits(l.type) >= bits) ||
            (!IsSigned(r.type) && Bits(r.type) >= bits)) && bits < 64) {
    return Type::Int(static_cast<uint8_t>(bits * 2), true);
  }
  return Type::Int(static_cast<uint8_t>(std::max(bits, 8u)), s);
}

// `a / c` (`div`) or `a % c` at a's width. x / 0 is 0 and x % 0 is x (the BPF rule), whatever the
// signedness; the divisor is made non-zero first because a division by zero is undefined in IR.
llvm::Value* Divide(llvm::IRBuilder<>& ir, bool div, bool is_signed, llvm::Value* a,
                    llvm::Value* c) {
  llvm::Value* zero = llvm::ConstantInt::get(a->getType(), 0);
  llvm::Value* one = llvm::ConstantInt::get(a->getType(), 1);
  llvm::Value* by_zero = ir.CreateICmpEQ(c, zero);
  c = ir.CreateSelect(by_zero, one, c);
  auto fix = [&](llvm::Value* result) { return ir.CreateSelect(by_zero, div ? zero : a, result); };
  if (!is_signed) return fix(div ? ir.CreateUDiv(a, c) : ir.CreateURem(a, c));
  llvm::Value* an = ir.CreateICmpSLT(a, zero);
  llvm::Value* cn = ir.CreateICmpSLT(c, zero);
  llvm::Value* ua = ir.CreateSelect(an, ir.CreateNeg(a), a);
  llvm::Value* uc = ir.CreateSelect(cn, ir.CreateNeg(c), c);
  if (div) {
    llvm::Value* q = ir.CreateUDiv(ua, uc);
    return fix(ir.CreateSelect(ir.CreateXor(an, cn), ir.CreateNeg(q), q));
  }
  llvm::Value* rem = ir.CreateURem(ua, uc);
  return fix(ir.CreateSelect(an, ir.CreateNeg(rem), rem));
}

}  // namespace

llvm::Type* GraphLowerer::IrType(const Type& t) {
  return llvm::IntegerType::get(m_.context(), Bits(t));
}

llvm::Value* GraphLowerer::Convert(StepBuilder& b, llvm::Value* v, const Type& from,
                                   const Type& to) {
  llvm::IRBuilder<>& ir = b.ir();
  if (to.kind == Type::Kind::kBool) {
    if (v->getType()->isIntegerTy(1)) return v;
    return ir.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  }
  llvm::Type* dst = IrType(to);
  if (v->getType() == dst) return v;
  if (v->getType()->isIntegerTy(1) || !IsSigned(from)) return ir.CreateZExtOrTrunc(v, dst);
  return ir.CreateSExtOrTrunc(v, dst);
}

llvm::Value* GraphLowerer::SlotOf(StepBuilder& b, Here h, rgir::TaskId owner) {
  rgir::TaskId cur = h.task;
  llvm::Value* idx = h.idx;
  while (cur != owner) {
    const rgir::TaskId p = g_.tasks[cur].parent;
    if (p == rgir::kNone) return b.ir().getInt64(0);  // not an ancestor: unreachable if checked
    idx = Table(p).CheckedIndex(b, Table(cur).LoadVar(b, idx, kWordParent));
    cur = p;
  }
  return idx;
}

Val GraphLowerer::LoadVar(StepBuilder& b, Here h, rgir::VarId v) {
  llvm::IRBuilder<>& ir = b.ir();
  const rgir::Var& var = g_.vars[v];
  auto out = outputs_.find(v);
  if (out != outputs_.end()) {
    const ScalarType st = StorageTypeOf(var.type);
    llvm::Value* raw = b.Load(st, out->second, 0, ScalarSize(st));
    Type stored = var.type;
    if (var.type.kind == Type::Kind::kBool) stored = Type::Int(8, false);
    return Val{Convert(b, raw, stored, var.type)};
  }
  auto word = [&](uint32_t k) -> llvm::Value* {
    if (in_register_[v]) return ir.CreateLoad(ir.getInt64Ty(), RegisterVar(b, v, k));
    return Table(var.task).LoadVar(b, SlotOf(b, h, var.task), VarWord(v) + k);
  };
  llvm::Value* w = word(0);
  if (var.type.kind == Type::Kind::kBytes) return Val{w, ir.CreateTrunc(word(1), ir.getInt32Ty())};
  return Val{Convert(b, w, Type::Int(64, true), var.type)};
}

void GraphLowerer::StoreVar(StepBuilder& b, Here h, rgir::VarId v, Val val) {
  llvm::IRBuilder<>& ir = b.ir();
  const rgir::Var& var = g_.vars[v];
  auto out = outputs_.find(v);
  if (out != outputs_.end()) {
    const ScalarType st = StorageTypeOf(var.type);
    llvm::Value* x = val.v;
    if (x->getType()->isIntegerTy(1)) x = ir.CreateZExt(x, ir.getInt8Ty());
    b.Store(st, out->second, 0, x, ScalarSize(st));
    return;
  }
  auto word = [&](uint32_t k, llvm::Value* x) {
    if (in_register_[v]) {
      ir.CreateStore(x, RegisterVar(b, v, k));
    } else {
      Table(var.task).StoreVar(b, SlotOf(b, h, var.task), VarWord(v) + k, x);
    }
  };
  if (var.type.kind == Type::Kind::kBytes) {
    word(0, ir.CreateZExtOrTrunc(val.v, ir.getInt64Ty()));
    word(1, ir.CreateZExtOrTrunc(val.len, ir.getInt64Ty()));
    return;
  }
  llvm::Value* x = val.v;
  x = IsSigned(var.type) && !x->getType()->isIntegerTy(1) ? ir.CreateSExtOrTrunc(x, ir.getInt64Ty())
                                                          : ir.CreateZExtOrTrunc(x, ir.getInt64Ty());
  word(0, x);
}

void GraphLowerer::CheckOrFail(StepBuilder& b, Here h, llvm::Value* ok, int err) {
  llvm::IRBuilder<>& ir = b.ir();
  llvm::BasicBlock* done = seg_done_;
  llvm::BasicBlock* bad = b.NewBlock("check.failed");
  llvm::BasicBlock* good = b.NewBlock("check.ok");
  ir.CreateCondBr(ok, good, bad);
  b.SetBlock(bad);
  RequestFail(b, h, ir.getInt32(err));
  ir.CreateBr(done);
  b.SetBlock(good);
  seg_done_ = done;
}

Val GraphLowerer::Eval(StepBuilder& b, Here h, const rgir::Expr& e) {
  llvm::IRBuilder<>& ir = b.ir();
  using Op = rgir::Expr::Op;
  switch (e.op) {
    case Op::kConst:
      if (e.type.kind == Type::Kind::kBool) return Val{ir.getInt1(e.value != 0)};
      return Val{llvm::ConstantInt::get(IrType(e.type), e.value)};
    case Op::kVar:
      return LoadVar(b, h, e.id);
    case Op::kParam: {
      const rgir::Param& p = g_.params[e.id];
      llvm::Value* raw = b.ReadConst(params_[e.id]);
      Type stored = p.type.kind == Type::Kind::kBool ? Type::Int(8, false) : p.type;
      return Val{Convert(b, raw, stored, e.type)};
    }
    case Op::kUnary: {
      Val x = Eval(b, h, e.operands[0]);
      switch (e.unary_op) {
        case UnaryOp::kNot:
          return Val{ir.CreateNot(Convert(b, x.v, e.operands[0].type, Type::Bool()))};
        case UnaryOp::kNeg: return Val{ir.CreateNeg(Convert(b, x.v, e.operands[0].type, e.type))};
      }
      return x;
    }
    case Op::kBinary:
      return Binary(b, h, e);
    case Op::kCast: {
      Val x = Eval(b, h, e.operands[0]);
      if (e.type.kind == Type::Kind::kBytes) return x;
      return Val{Convert(b, x.v, e.operands[0].type, e.type)};
    }
    case Op::kMin:
    case Op::kMax: {
      llvm::Value* a = Convert(b, Eval(b, h, e.operands[0]).v, e.operands[0].type, e.type);
      llvm::Value* c = Convert(b, Eval(b, h, e.operands[1]).v, e.operands[1].type, e.type);
      const bool s = IsSigned(e.type);
      llvm::Value* lt = s ? ir.CreateICmpSLT(a, c) : ir.CreateICmpULT(a, c);
      return Val{e.op == Op::kMin ? ir.CreateSelect(lt, a, c) : ir.CreateSelect(lt, c, a)};
    }
    case Op::kLen: {
      Val x = Eval(b, h, e.operands[0]);
      return Val{Convert(b, x.len, Type::Int(32, false), e.type)};
    }
    case Op::kLiteral: return Literal(b, e);
    case Op::kLoad: return DataLoad(b, h, e);
    case Op::kStore: DataStore(b, h, e); return Val{ir.getInt64(0)};
    case Op::kCopy: return CopyBytes(b, h, e);
    case Op::kEqual: return EqualBytes(b, h, e);
    case Op::kCopyFromUser: return CopyFromUser(b, h, e);
    // A view is already its address and length, as a request's SQE takes it (requests.cpp).
    case Op::kAddressOf: return Val{Eval(b, h, e.operands[0]).v};
    case Op::kBuffer: {
      // Host buffers: the address the host set; shared ones: their place in the region.
      const Type& bt = g_.params[e.id].type;
      llvm::Value* base =
          bt.mem == Type::Mem::kShared
              ? ir.CreateAdd(b.ReadConst(mem_addr_), ir.getInt64(mem_layout_.shared_at[e.id]))
              : b.ReadConst(params_[e.id]);
      llvm::Value* i = Convert(b, Eval(b, h, e.operands[0]).v, e.operands[0].type,
                               Type::Int(64, false));
      if (!llvm::isa<llvm::ConstantInt>(i) ||
          llvm::cast<llvm::ConstantInt>(i)->getZExtValue() >= bt.count) {
        CheckOrFail(b, h, ir.CreateICmpULT(i, ir.getInt64(bt.count)), 14 /* EFAULT */);
      }
      llvm::Value* addr = ir.CreateAdd(base, ir.CreateMul(i, ir.getInt64(bt.size)), "buf");
      return Val{addr, ir.getInt32(static_cast<uint32_t>(bt.size))};
    }
    case Op::kSlice: {
      Val base = Eval(b, h, e.operands[0]);
      llvm::Value* len = ir.CreateZExt(base.len, ir.getInt64Ty());
      auto bound = [&](const rgir::Expr& x) {
        llvm::Value* v = Eval(b, h, x).v;
        // A negative bound is 0: a slice never starts before its view.
        if (IsSigned(x.type)) {
          v = ir.CreateSExtOrTrunc(v, ir.getInt64Ty());
          v = ir.CreateSelect(ir.CreateICmpSLT(v, ir.getInt64(0)), ir.getInt64(0), v);
        } else {
          v = ir.CreateZExtOrTrunc(v, ir.getInt64Ty());
        }
        return v;
      };
      llvm::Value* lo = bound(e.operands[1]);
      llvm::Value* hi = bound(e.operands[2]);
      // Clamped always (a proven slice costs two selects): lo <= hi <= len.
      hi = ir.CreateSelect(ir.CreateICmpULT(hi, len), hi, len);
      lo = ir.CreateSelect(ir.CreateICmpULT(lo, hi), lo, hi);
      return Val{ir.CreateAdd(base.v, lo), ir.CreateTrunc(ir.CreateSub(hi, lo), ir.getInt32Ty())};
    }
  }
  return Val{ir.getInt64(0)};
}

Val GraphLowerer::Binary(StepBuilder& b, Here h, const rgir::Expr& e) {
  llvm::IRBuilder<>& ir = b.ir();
  const BinaryOp op = e.binary_op;
  const rgir::Expr& l = e.operands[0];
  const rgir::Expr& r = e.operands[1];
  const Type ty = OperandType(e);
  llvm::Value* a = Convert(b, Eval(b, h, l).v, l.type, ty);
  llvm::Value* c = Convert(b, Eval(b, h, r).v, r.type, ty);
  const bool s = IsSigned(ty);
  switch (op) {
    case BinaryOp::kLogicalAnd: return Val{ir.CreateAnd(a, c)};
    case BinaryOp::kLogicalOr: return Val{ir.CreateOr(a, c)};
    case BinaryOp::kEq: return Val{ir.CreateICmpEQ(a, c)};
    case BinaryOp::kNe: return Val{ir.CreateICmpNE(a, c)};
    case BinaryOp::kLt: return Val{s ? ir.CreateICmpSLT(a, c) : ir.CreateICmpULT(a, c)};
    case BinaryOp::kLe: return Val{s ? ir.CreateICmpSLE(a, c) : ir.CreateICmpULE(a, c)};
    case BinaryOp::kGt: return Val{s ? ir.CreateICmpSGT(a, c) : ir.CreateICmpUGT(a, c)};
    case BinaryOp::kGe: return Val{s ? ir.CreateICmpSGE(a, c) : ir.CreateICmpUGE(a, c)};
    case BinaryOp::kAdd: return Val{ir.CreateAdd(a, c)};
    case BinaryOp::kSub: return Val{ir.CreateSub(a, c)};
    case BinaryOp::kMul: return Val{ir.CreateMul(a, c)};
    case BinaryOp::kBitAnd: return Val{ir.CreateAnd(a, c)};
    case BinaryOp::kBitOr: return Val{ir.CreateOr(a, c)};
    case BinaryOp::kBitXor: return Val{ir.CreateXor(a, c)};
    case BinaryOp::kShl:
    case BinaryOp::kShr: {
      // Shift counts are taken modulo the width (a count >= width is poison in IR).
      const unsigned bits = a->getType()->getIntegerBitWidth();
      llvm::Value* n = ir.CreateAnd(c, llvm::ConstantInt::get(c->getType(), bits - 1));
      if (op == BinaryOp::kShl) return Val{ir.CreateShl(a, n)};
      return Val{s ? ir.CreateAShr(a, n) : ir.CreateLShr(a, n)};
    }
    case BinaryOp::kDiv:
    case BinaryOp::kRem: return Val{Divide(ir, op == BinaryOp::kDiv, s, a, c)};
  }
  return Val{a};
}

}  // namespace uringc::lower
