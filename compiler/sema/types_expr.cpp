// The `types` pass, expressions: computes each expression's type and constant value, checks
// calls against request and fn signatures, and applies the conversion rules of type_rules.h.
#include "ast/visit.h"
#include "sema/type_checker.h"

namespace uringc::sema::types_internal {
namespace {

// Folds `a op b` for operands of integer type `t` with the wrap-around of t's width.
std::optional<ConstValue> FoldTyped(BinaryOp op, const Type& t, __int128 a, __int128 b,
                                    bool* div0) {
  const uint64_t x = static_cast<uint64_t>(a), y = static_cast<uint64_t>(b);
  const bool s = t.kind == Type::Kind::kInt && t.is_signed;
  *div0 = false;
  uint64_t r = 0;
  switch (op) {
    case BinaryOp::kAdd: r = x + y; break;
    case BinaryOp::kSub: r = x - y; break;
    case BinaryOp::kMul: r = x * y; break;
    case BinaryOp::kDiv:
    case BinaryOp::kRem: {
      if (y == 0) {
        *div0 = true;
        return std::nullopt;
      }
      if (s && static_cast<int64_t>(x) == INT64_MIN && static_cast<int64_t>(y) == -1)
        return std::nullopt;
      const bool div = op == BinaryOp::kDiv;
      if (s) {
        r = static_cast<uint64_t>(div ? static_cast<int64_t>(x) / static_cast<int64_t>(y)
                                      : static_cast<int64_t>(x) % static_cast<int64_t>(y));
      } else {
        r = div ? x / y : x % y;
      }
      break;
    }
    case BinaryOp::kBitAnd: r = x & y; break;
    case BinaryOp::kBitOr: r = x | y; break;
    case BinaryOp::kBitXor: r = x ^ y; break;
    case BinaryOp::kShl: r = b >= 0 && b < 64 ? x << b : 0; break;
    case BinaryOp::kShr:
      if (b < 0 || b >= 64) r = s && a < 0 ? ~0ull : 0;
      else r = s ? static_cast<uint64_t>(static_cast<int64_t>(x) >> b) : x >> b;
      break;
    case BinaryOp::kEq:
    case BinaryOp::kNe:
    case BinaryOp::kLt:
    case BinaryOp::kLe:
    case BinaryOp::kGt:
    case BinaryOp::kGe:
    case BinaryOp::kLogicalAnd:
    case BinaryOp::kLogicalOr: {
      bool d;
      auto v = FoldBinary(op, a, b, &d);  // a bool result: exact
      if (!v) return std::nullopt;
      return ConstValue{static_cast<uint64_t>(*v)};
    }
  }
  return WrapTo(static_cast<__int128>(r), t);
}

// A duration is 0 to 2^63-1 ns (the kernel's KTIME_MAX, about 292 years); a constant outside is
// LiteralOutOfRange, a run-time value outside saturates (docs/language.md, section 3).
constexpr __int128 kMaxDurationNs = INT64_MAX;
bool DurationInRange(__int128 v) { return v >= 0 && v <= kMaxDurationNs; }
const char* kDurationRange = "durations range from 0 to 2^63-1 ns (about 292 years)";

}  // namespace

void Checker::Coerce(Expr& e, Type target, const char* what) {
  const Type t = e.type;
  if (t.IsError() || target.IsError() || t == target) return;
  // Any view is `bytes` (requests take every view); only a shared view is `shared bytes`.
  if (t.kind == Type::Kind::kBytes && target.kind == Type::Kind::kBytes &&
      target.mem == Type::Mem::kHost) {
    return;
  }
  if (t.kind == Type::Kind::kIntLit && target.kind == Type::Kind::kInt) {
    const __int128 v = e.constant ? ConstToWide(*e.constant, t) : 0;
    if (e.constant && !FitsIn(v, target)) {
      diags_.Error(DiagKind::kLiteralOutOfRange, e.range,
                   "`" + std::string(t.is_signed ? "-" : "") +
                       std::to_string(static_cast<uint64_t>(t.is_signed ? -v : v)) +
                       "` does not fit in `" + target.ToString() + "`");
      return;
    }
    e.type = target;
    return;
  }
  if (ImplicitIntOk(t, target)) return;
  Diagnostic& d = diags_.Error(
      DiagKind::kTypeMismatch, e.range,
      std::string(what) + " must be `" + target.ToString() + "`, found `" + t.ToString() + "`");
  if (t.kind == Type::Kind::kInt && target.kind == Type::Kind::kInt) {
    d.notes.push_back({e.range, "convert explicitly with `" + target.ToString() + "(...)`"});
  }
}

Type Checker::Unify(Type a, Type b, Expr& lhs, Expr& rhs, const std::string& op) {
  if (a.IsError() || b.IsError()) return Type::Error();
  if (a.kind == Type::Kind::kIntLit && b.kind == Type::Kind::kIntLit) return Type::IntLit();
  if (a.kind == Type::Kind::kIntLit && b.kind == Type::Kind::kInt) {
    Coerce(lhs, b, "operand");
    return b;
  }
  if (b.kind == Type::Kind::kIntLit && a.kind == Type::Kind::kInt) {
    Coerce(rhs, a, "operand");
    return a;
  }
  if (a == b) return a;
  if (ImplicitIntOk(a, b)) return b;
  if (ImplicitIntOk(b, a)) return a;
  Diagnostic& d =
      diags_.Error(DiagKind::kTypeMismatch, rhs.range,
                   "`" + op + "` between `" + a.ToString() + "` and `" + b.ToString() + "`");
  if (a.kind == Type::Kind::kInt && b.kind == Type::Kind::kInt) {
    d.notes.push_back({lhs.range, "convert one side explicitly, e.g. `" + b.ToString() + "(...)`"});
  }
  return Type::Error();
}

Type Checker::Check(Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kInt: {
      auto& x = *e.As<IntLit>();
      if (x.overflow) {
        diags_.Error(DiagKind::kLiteralOutOfRange, x.range,
                     "integer literal does not fit in 64 bits");
        return e.type = Type::Error();
      }
      __int128 v = x.value;
      e.type = Type::IntLit();
      if (!x.unit.empty()) {
        bool is_duration = false;
        auto scale = UnitScale(x.unit, &is_duration);
        if (!scale) {
          diags_.Error(DiagKind::kUnknownUnit, x.range,
                       "unknown unit `" + x.unit +
                           "`; durations use ns, us, ms, s and sizes B, "
                           "KiB, MiB, GiB");
          return e.type = Type::Error();
        }
        v *= *scale;
        if (v > UINT64_MAX) {
          diags_.Error(DiagKind::kLiteralOutOfRange, x.range, "quantity does not fit in 64 bits");
          return e.type = Type::Error();
        }
        if (is_duration && !DurationInRange(v)) {
          diags_.Error(DiagKind::kLiteralOutOfRange, x.range,
                       "duration out of range: " + std::string(kDurationRange));
          return e.type = Type::Error();
        }
        if (is_duration) e.type = Type::Duration();
      }
      e.constant = ConstValue{static_cast<uint64_t>(v)};
      return e.type;
    }
    case Expr::Kind::kBool:
      e.constant = ConstValue{e.As<BoolLit>()->value ? 1u : 0u};
      return e.type = Type::Bool();
    case Expr::Kind::kName: {
      auto& x = *e.As<NameExpr>();
      const Resolution& r = x.resolved;
      switch (r.kind) {
        case Resolution::Kind::kBinding: return e.type = r.binding->type;
        case Resolution::Kind::kConst: {
          auto* c = const_cast<ConstDecl*>(r.constant);
          if (checking_.count(c) || (cycle_names_.count(&x) && !checked_.count(c))) {
            diags_.Error(DiagKind::kNotConstant, x.range,
                         "constant `" + c->name + "` depends on itself");
            return e.type = Type::Error();
          }
          CheckConst(*c);
          Type t = c->type ? c->type->resolved : c->value->type;
          if (t.kind == Type::Kind::kIntLit && c->type) t = c->type->resolved;
          e.constant = c->value->constant;
          return e.type = t;
        }
        case Resolution::Kind::kBuiltinConst: {
          const BuiltinConst& b = BuiltinConstants()[r.builtin_id];
          e.constant = WrapTo(b.value, b.type);
          return e.type = b.type;
        }
        default: return e.type = Type::Error();
      }
    }
    case Expr::Kind::kCall: return e.type = CheckCall(*e.As<CallExpr>());
    case Expr::Kind::kIndex: {
      auto& x = *e.As<IndexExpr>();
      Type base = Check(*x.base);
      Type index = Check(*x.index);
      if (base.IsError() || index.IsError()) return e.type = Type::Error();
      if (base.kind != Type::Kind::kBuffers) {
        diags_.Error(DiagKind::kTypeMismatch, x.base->range,
                     "only `buffers` can be indexed, not `" + base.ToString() + "`" +
                         (base.kind == Type::Kind::kBytes ? "; slice bytes with `[a..b]`" : ""));
        return e.type = Type::Error();
      }
      if (!index.IsInteger()) {
        diags_.Error(DiagKind::kTypeMismatch, x.index->range,
                     "a buffer index is an integer, not `" + index.ToString() + "`");
      }
      if (base.mem == Type::Mem::kProvided) {
        diags_.Error(DiagKind::kTypeMismatch, x.base->range,
                     "the buffers of a `provided` pool belong to the kernel until `recv_each` "
                     "hands one over: use the loop variable of `for chunk in recv_each(s, " +
                         std::string(x.base->As<NameExpr>() ? x.base->As<NameExpr>()->name
                                                            : "pool") +
                         ")`");
        return e.type = Type::Error();
      }
      return e.type = Type::Bytes(base.mem);
    }
    case Expr::Kind::kSlice: {
      auto& x = *e.As<SliceExpr>();
      Type base = Check(*x.base);
      for (Expr* end : {x.lo.get(), x.hi.get()}) {
        if (!end) continue;
        Type t = Check(*end);
        if (!t.IsError() && !t.IsInteger()) {
          diags_.Error(DiagKind::kTypeMismatch, end->range,
                       "a slice bound is an integer, not `" + t.ToString() + "`");
        }
      }
      if (base.IsError()) return e.type = Type::Error();
      if (base.kind != Type::Kind::kBytes) {
        diags_.Error(
            DiagKind::kTypeMismatch, x.base->range,
            "only `bytes` can be sliced, not `" + base.ToString() + "`" +
                (base.kind == Type::Kind::kBuffers ? "; pick a buffer first: `b[i][..n]`" : ""));
        return e.type = Type::Error();
      }
      return e.type = Type::Bytes(base.mem);
    }
    case Expr::Kind::kPropagate: {
      auto& x = *e.As<PropagateExpr>();
      Type t = Check(*x.operand);
      if (t.IsError()) return e.type = Type::Error();
      if (!t.IsResult()) {
        diags_.Error(DiagKind::kTypeMismatch, x.range,
                     "`?` needs a result that can be negative (a request, a fn call, a signed "
                     "integer), not `" +
                         t.ToString() + "`");
        return e.type = Type::Error();
      }
      return e.type = t.kind == Type::Kind::kFd ? t : Type::Int(t.bits, false);
    }
    case Expr::Kind::kUnary: {
      auto& x = *e.As<UnaryExpr>();
      Type t = Check(*x.operand);
      if (t.IsError()) return e.type = Type::Error();
      switch (x.op) {
        case UnaryOp::kNot:
          Coerce(*x.operand, Type::Bool(), "operand of `!`");
          if (x.operand->constant) e.constant = ConstValue{x.operand->constant->bits ? 0u : 1u};
          return e.type = Type::Bool();
        case UnaryOp::kNeg: {
          if (t.kind == Type::Kind::kIntLit) {
            __int128 v = -ConstToWide(*x.operand->constant, t);
            if (v < INT64_MIN) {
              diags_.Error(DiagKind::kLiteralOutOfRange, x.range, "literal does not fit in 64 bits");
              return e.type = Type::Error();
            }
            e.constant = ConstValue{static_cast<uint64_t>(v)};
            Type r = Type::IntLit();
            r.is_signed = v < 0;
            return e.type = r;
          }
          if (t.kind != Type::Kind::kInt || !t.is_signed) {
            diags_.Error(DiagKind::kTypeMismatch, x.range,
                         "unary `-` needs a signed integer, not `" + t.ToString() + "`");
            return e.type = Type::Error();
          }
          if (x.operand->constant) e.constant = WrapTo(-ConstToWide(*x.operand->constant, t), t);
          return e.type = t;
        }
      }
      return e.type = Type::Error();
    }
    case Expr::Kind::kBinary: return e.type = CheckBinary(*e.As<BinaryExpr>());
    case Expr::Kind::kString: {
      auto& x = *e.As<StringLit>();
      if (x.value.size() > kMaxLiteralBytes) {
        diags_.Error(DiagKind::kLiteralOutOfRange, x.range,
                     "a byte string holds at most " + std::to_string(kMaxLiteralBytes) +
                         " bytes, this one " + std::to_string(x.value.size()));
        return e.type = Type::Error();
      }
      return e.type = Type::Bytes(Type::Mem::kConst);
    }
  }
  return e.type = Type::Error();
}

Type Checker::CheckBinary(BinaryExpr& b) {
  Type l = Check(*b.lhs), r = Check(*b.rhs);
  if (l.IsError() || r.IsError()) return Type::Error();
  const BinaryOp op = b.op;
  const std::string spelling(Spelling(op));
  if (IsShortCircuit(op)) {
    Coerce(*b.lhs, Type::Bool(), "operand");
    Coerce(*b.rhs, Type::Bool(), "operand");
    bool awaits = false;
    VisitExprs(*b.rhs, [&](const Expr& x) {
      if (auto* c = x.As<CallExpr>(); c && c->IsAwait()) awaits = true;
    });
    if (awaits) {
      diags_.Error(DiagKind::kAwaitInShortCircuit, b.rhs->range,
                   "the right side of `" + spelling +
                       "` runs only sometimes and cannot await a request or fn; compute it first "
                       "with `let`");
    }
    if (b.lhs->constant && b.rhs->constant) {
      bool d;
      b.constant = ConstValue{static_cast<uint64_t>(
          *FoldBinary(op, b.lhs->constant->bits, b.rhs->constant->bits, &d))};
    }
    return Type::Bool();
  }
  // Durations: d + d, d - d, d * n, n * d, d / n, comparisons between durations.
  const bool ld = l.kind == Type::Kind::kDuration, rd = r.kind == Type::Kind::kDuration;
  Type operand;
  if (ld || rd) {
    if (ld && rd && (op == BinaryOp::kAdd || op == BinaryOp::kSub || IsComparison(op))) {
      operand = l;
    } else if ((op == BinaryOp::kMul && ((ld && r.IsInteger()) || (rd && l.IsInteger()))) ||
               (op == BinaryOp::kDiv && ld && r.IsInteger())) {
      operand = Type::Duration();
    } else {
      diags_.Error(DiagKind::kTypeMismatch, b.range,
                   "`" + spelling + "` between `" + l.ToString() + "` and `" + r.ToString() +
                       "`");
      return Type::Error();
    }
  } else if (l.kind == Type::Kind::kFd || r.kind == Type::Kind::kFd) {
    // An fd compares with integers (a failed request yields a negative fd).
    const Type other = l.kind == Type::Kind::kFd ? r : l;
    if (!IsComparison(op) || !(other.IsInteger() || other.kind == Type::Kind::kFd)) {
      diags_.Error(DiagKind::kTypeMismatch, b.range,
                   "an `fd` can only be compared, not combined with `" + spelling + "`");
      return Type::Error();
    }
    if (other.kind == Type::Kind::kIntLit)
      Coerce(l.kind == Type::Kind::kFd ? *b.rhs : *b.lhs, Type::Int(32, true), "operand");
    operand = Type::Fd();
  } else if (l.kind == Type::Kind::kBool && r.kind == Type::Kind::kBool &&
             (op == BinaryOp::kEq || op == BinaryOp::kNe)) {
    operand = Type::Bool();
  } else if (l.IsInteger() && r.IsInteger()) {
    if (op == BinaryOp::kShl || op == BinaryOp::kShr) {
      operand = l;  // the shift amount may have any integer type
    } else {
      operand = Unify(l, r, *b.lhs, *b.rhs, spelling);
      if (operand.IsError()) return operand;
    }
  } else {
    diags_.Error(DiagKind::kTypeMismatch, b.range,
                 "`" + spelling + "` between `" + l.ToString() + "` and `" + r.ToString() + "`");
    return Type::Error();
  }
  const Type result = IsComparison(op) ? Type::Bool() : operand;
  if (b.lhs->constant && b.rhs->constant) {
    const __int128 a = ConstToWide(*b.lhs->constant, b.lhs->type);
    const __int128 c = ConstToWide(*b.rhs->constant, b.rhs->type);
    bool div0 = false;
    if (operand.kind == Type::Kind::kIntLit) {
      auto v = FoldBinary(op, a, c, &div0);
      if (v && (*v < INT64_MIN || *v > static_cast<__int128>(UINT64_MAX))) v.reset();
      if (v) {
        b.constant = ConstValue{static_cast<uint64_t>(*v)};
        if (!IsComparison(op)) {
          Type t = Type::IntLit();
          t.is_signed = *v < 0;
          return t;
        }
      } else if (!div0) {
        diags_.Error(DiagKind::kLiteralOutOfRange, b.range,
                     "constant expression overflows 64 bits");
        return Type::Error();
      }
    } else if (operand.kind == Type::Kind::kDuration && !IsComparison(op)) {
      // Exact, then checked: `1 ms - 2 ms` or `D * 1000000` must not wrap into a valid value.
      auto v = FoldBinary(op, a, c, &div0);
      if (v && DurationInRange(*v)) {
        b.constant = ConstValue{static_cast<uint64_t>(*v)};
      } else if (!div0) {
        diags_.Error(DiagKind::kLiteralOutOfRange, b.range,
                     "constant duration out of range: " + std::string(kDurationRange));
        return Type::Error();
      }
    } else {
      Type fold_type = operand.kind == Type::Kind::kDuration ? Type::Int(64, false) : operand;
      if (operand.kind == Type::Kind::kFd) fold_type = Type::Int(32, true);
      auto v = FoldTyped(op, fold_type, a, c, &div0);
      if (v) b.constant = *v;
    }
    if (div0) {
      diags_.Error(DiagKind::kDivisionByZero, b.rhs->range, "division by zero");
      return Type::Error();
    }
  } else if ((op == BinaryOp::kDiv || op == BinaryOp::kRem) && b.rhs->constant &&
             b.rhs->constant->bits == 0) {
    diags_.Error(DiagKind::kDivisionByZero, b.rhs->range, "division by zero");
    return Type::Error();
  }
  return result;
}

// A view the graph reads (`need_write` false) or writes: shared bytes, or a literal for reading.
// `what` names the argument in the message.
bool Checker::CheckDataView(Expr& e, bool need_write, const std::string& what) {
  const Type t = e.type;
  if (t.IsError()) return false;
  if (t.kind == Type::Kind::kBytes && (need_write ? t.IsWritableBytes() : t.IsReadableBytes()))
    return true;
  Diagnostic& d = diags_.Error(DiagKind::kTypeMismatch, e.range,
                               what + " must be `shared bytes`" +
                                   std::string(need_write ? "" : " or a byte string") +
                                   ", found `" + t.ToString() + "`");
  if (t.kind == Type::Kind::kBytes && t.mem == Type::Mem::kHost) {
    d.notes.push_back({e.range,
                       "the graph reads and writes only the bytes of `shared buffers[N] of SIZE` "
                       "(the ring's parameter region); a plain `buffers` parameter is host memory "
                       "that only requests touch"});
  } else if (t.mem == Type::Mem::kConst) {
    d.notes.push_back({e.range, "a byte-string literal is read-only"});
  }
  return false;
}

// address_of's argument: a view of a host `buffers` parameter (`buf[i]`, `buf[i][a..b]`), whose
// user address is the same for both engines. A shared view's address is the region's place in
// the host's mapping, which the kernel engine's controller sees elsewhere; a literal lives there
// too; a `bytes` variable or fn parameter may hold either, so only the written-out view counts.
void Checker::CheckHostBufferView(Expr& e) {
  if (e.type.IsError()) return;
  const Expr* base = &e;
  while (auto* s = base->As<SliceExpr>()) base = s->base.get();
  const Type* buffers = nullptr;
  if (auto* index = base->As<IndexExpr>()) {
    if (auto* name = index->base->As<NameExpr>()) {
      if (name->resolved.binding != nullptr) buffers = &name->resolved.binding->type;
    }
  }
  if (buffers != nullptr && buffers->IsBuffers(Type::Mem::kHost)) return;
  Diagnostic& d = diags_.Error(DiagKind::kTypeMismatch, e.range,
                               "`address_of` takes a view of a `buffers` parameter (`buf[i]` or "
                               "`buf[i][a..b]`), found `" + e.type.ToString() + "`");
  if (buffers != nullptr && buffers->kind == Type::Kind::kBuffers) {
    d.notes.push_back({e.range,
                       "a view of `shared` or `provided` buffers is in the ring's parameter "
                       "region, whose address differs between the kernel engine and the host"});
  } else if (e.type.mem == Type::Mem::kConst) {
    d.notes.push_back({e.range, "a byte-string literal has no address in the host's memory"});
  } else if (e.type.kind == Type::Kind::kBytes) {
    d.notes.push_back({e.range, "a `bytes` variable or parameter may hold any view, shared ones "
                                "too: write the view of the `buffers` parameter out"});
  }
}

// address_of(view) -> u64, get_T(view, off) -> T, put_T(view, off, value), copy_bytes(dst, src) -> u32,
// equal_bytes(a, b) -> bool (docs/language.md, "Data in buffers").
Type Checker::CheckDataBuiltin(CallExpr& c, BuiltinFn fn, const std::vector<Type>& args) {
  auto count = [&](size_t n, const std::string& sig) {
    if (c.args.size() == n) return true;
    diags_
        .Error(DiagKind::kBadArguments, c.range,
               "`" + c.callee + "` takes " + std::to_string(n) + " arguments, got " +
                   std::to_string(c.args.size()))
        .notes.push_back({c.callee_range, "signature: " + sig});
    return false;
  };
  for (const Type& t : args)
    if (t.IsError()) return fn == BuiltinFn::kEq ? Type::Bool() : Type::Error();
  switch (fn) {
    case BuiltinFn::kGet:
    case BuiltinFn::kPut: {
      const DataAccess d = *ParseDataAccess(std::string_view(c.callee).substr(4));
      const Type value = Type::Int(d.bits, d.is_signed);
      const bool put = fn == BuiltinFn::kPut;
      const std::string sig = c.callee + (put ? "(b: shared bytes, off: u32, v: " : "(b: bytes, off: u32) -> ") +
                              value.ToString() + (put ? ")" : "");
      if (!count(put ? 3 : 2, sig)) return put ? Type::Void() : value;
      CheckDataView(*c.args[0], put, "the view of `" + c.callee + "`");
      if (!args[1].IsInteger()) {
        diags_.Error(DiagKind::kTypeMismatch, c.args[1]->range,
                     "an offset is an unsigned integer, not `" + args[1].ToString() + "`");
      } else {
        Coerce(*c.args[1], Type::Int(32, false), "the offset");
      }
      if (put) Coerce(*c.args[2], value, "the value");
      return put ? Type::Void() : value;
    }
    case BuiltinFn::kCopy:
      if (!count(2, "copy_bytes(dst: shared bytes, src: bytes) -> u32")) return Type::Int(32, false);
      CheckDataView(*c.args[0], true, "the destination of `copy_bytes`");
      CheckDataView(*c.args[1], false, "the source of `copy_bytes`");
      return Type::Int(32, false);
    case BuiltinFn::kEq:
      if (!count(2, "equal_bytes(a: bytes, b: bytes) -> bool")) return Type::Bool();
      CheckDataView(*c.args[0], false, "the first view of `equal_bytes`");
      CheckDataView(*c.args[1], false, "the second view of `equal_bytes`");
      return Type::Bool();
    case BuiltinFn::kAddressOf:
      if (!count(1, "address_of(b: bytes) -> u64")) return Type::Int(64, false);
      CheckHostBufferView(*c.args[0]);
      return Type::Int(64, false);
    case BuiltinFn::kCopyFromUser:
      if (!count(2, "copy_from_user(dst: shared bytes, addr: u64) -> i32")) return Type::Int(32, true);
      CheckDataView(*c.args[0], true, "the destination of `copy_from_user`");
      Coerce(*c.args[1], Type::Int(64, false), "the address");
      return Type::Int(32, true);
    default: return Type::Error();
  }
}

Type Checker::CheckCall(CallExpr& c) {
  std::vector<Type> args;
  for (auto& a : c.args) args.push_back(Check(*a));
  if (c.within) {
    Check(*c.within->duration);
    Coerce(*c.within->duration, Type::Duration(), "timeout");
    if (c.within->action) CheckStmt(*c.within->action);
    if (!c.IsAwait() && c.resolved.kind != Resolution::Kind::kUnresolved) {
      diags_.Error(DiagKind::kTypeMismatch, c.within->range,
                   "`within` applies to a request or a fn call, not to `" + c.callee + "`");
    }
  }
  const Resolution& r = c.resolved;
  auto arity = [&](size_t min, size_t max, const std::string& sig) {
    if (c.args.size() >= min && c.args.size() <= max) return true;
    std::string want = min == max ? std::to_string(min) : std::to_string(min) + " to " +
                                                              std::to_string(max);
    diags_
        .Error(DiagKind::kBadArguments, c.range,
               "`" + c.callee + "` takes " + want + " argument" + (max == 1 ? "" : "s") + ", got " +
                   std::to_string(c.args.size()))
        .notes.push_back({c.callee_range, "signature: " + sig});
    return false;
  };
  switch (r.kind) {
    case Resolution::Kind::kRequest: {
      const RequestSignature& sig = Request(static_cast<RequestKind>(r.builtin_id));
      std::string text = std::string(sig.name) + "(";
      size_t required = 0;
      for (size_t i = 0; i < sig.params.size(); ++i) {
        text += (i ? ", " : "") + std::string(sig.params[i].name) + ": " +
                sig.params[i].type.ToString() + (sig.params[i].default_value ? " = ..." : "");
        if (!sig.params[i].default_value) required = i + 1;
      }
      text += ") -> " + sig.result.ToString();
      if (!arity(required, sig.params.size(), text)) return sig.result;
      for (size_t i = 0; i < c.args.size(); ++i) {
        Coerce(*c.args[i], sig.params[i].type,
               ("argument `" + std::string(sig.params[i].name) + "`").c_str());
      }
      return sig.result;
    }
    case Resolution::Kind::kFn: {
      const FnDecl& f = *r.fn;
      std::string text = f.name + "(";
      for (size_t i = 0; i < f.params.size(); ++i)
        text += (i ? ", " : "") + f.params[i]->name + ": " + f.params[i]->type.ToString();
      text += ") -> " + f.result_type.ToString();
      if (!arity(f.params.size(), f.params.size(), text)) return f.result_type;
      for (size_t i = 0; i < c.args.size(); ++i) {
        Coerce(*c.args[i], f.params[i]->type, ("argument `" + f.params[i]->name + "`").c_str());
      }
      return f.result_type;
    }
    case Resolution::Kind::kBuiltinFn: {
      if (r.builtin_id == static_cast<int>(BuiltinFn::kLen)) {
        if (!arity(1, 1, "len(b: bytes) -> u32")) return Type::Int(32, false);
        Coerce(*c.args[0], Type::Bytes(), "argument of `len`");
        return Type::Int(32, false);
      }
      if (r.builtin_id != static_cast<int>(BuiltinFn::kMin) &&
          r.builtin_id != static_cast<int>(BuiltinFn::kMax)) {
        return CheckDataBuiltin(c, static_cast<BuiltinFn>(r.builtin_id), args);
      }
      if (!arity(2, 2, c.callee + "(a, b): the common integer type")) return Type::Error();
      if (args[0].IsError() || args[1].IsError()) return Type::Error();
      if (!args[0].IsInteger() || !args[1].IsInteger()) {
        diags_.Error(DiagKind::kTypeMismatch, c.range, "`" + c.callee + "` takes integers");
        return Type::Error();
      }
      Type t = Unify(args[0], args[1], *c.args[0], *c.args[1], c.callee);
      if (!t.IsError() && c.args[0]->constant && c.args[1]->constant) {
        const __int128 a = ConstToWide(*c.args[0]->constant, c.args[0]->type);
        const __int128 b = ConstToWide(*c.args[1]->constant, c.args[1]->type);
        const bool is_min = r.builtin_id == static_cast<int>(BuiltinFn::kMin);
        c.constant = ConstValue{static_cast<uint64_t>(is_min ? std::min(a, b) : std::max(a, b))};
      }
      return t;
    }
    case Resolution::Kind::kTypeCast: {
      const Type to = r.cast_type;
      if (!arity(1, 1, c.callee + "(value)")) return to;
      const Type from = args[0];
      if (from.IsError()) return to;
      auto numeric = [](const Type& t) {
        return t.IsInteger() || t.kind == Type::Kind::kFd || t.kind == Type::Kind::kDuration;
      };
      if (!numeric(from) || !(to.IsInteger() || to.kind == Type::Kind::kFd ||
                              to.kind == Type::Kind::kDuration)) {
        diags_.Error(DiagKind::kTypeMismatch, c.range,
                     "cannot convert `" + from.ToString() + "` to `" + to.ToString() + "`");
        return to;
      }
      if (c.args[0]->constant) {
        const __int128 v = ConstToWide(*c.args[0]->constant, from);
        if (to.kind == Type::Kind::kDuration && !DurationInRange(v)) {
          diags_.Error(DiagKind::kLiteralOutOfRange, c.range,
                       "duration out of range: " + std::string(kDurationRange));
          return Type::Error();
        }
        c.constant = to.kind == Type::Kind::kInt ? WrapTo(v, to) : ConstValue{static_cast<uint64_t>(v)};
      }
      return to;
    }
    default: return Type::Error();
  }
}

}  // namespace uringc::sema::types_internal
