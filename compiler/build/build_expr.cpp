// Building rgir, expressions: awaits inside an expression (requests, fn calls, `?`) become nodes
// emitted before the expression's value is used, in evaluation order; what remains is a pure
// rgir::Expr over variables, parameters and constants. User fns are inlined here.
#include "build/builder.h"
#include "sema/requests.h"

namespace uringc::build::internal {
namespace {

// True when building `e` emits nodes or its lowering checks an index at run time: requests, fn
// calls, `?`, deadlines, and buffer indices that are not constants.
bool HasEffects(const ast::Expr* e) {
  if (e == nullptr || e->constant) return false;
  switch (e->kind) {
    case ast::Expr::Kind::kInt:
    case ast::Expr::Kind::kBool:
    case ast::Expr::Kind::kName:
    case ast::Expr::Kind::kString:
      return false;
    case ast::Expr::Kind::kCall: {
      auto& c = *e->As<ast::CallExpr>();
      if (c.IsAwait() || c.within) return true;
      // A builtin that reads or writes a view's bytes checks the offset (a raise) or, for a
      // write or a copy, is a node of its own.
      if (c.resolved.kind == ast::Resolution::Kind::kBuiltinFn &&
          c.resolved.builtin_id >= static_cast<int>(sema::BuiltinFn::kGet)) {
        return true;
      }
      for (const auto& a : c.args) {
        if (HasEffects(a.get())) return true;
      }
      return false;
    }
    case ast::Expr::Kind::kPropagate:
      return true;
    case ast::Expr::Kind::kIndex: {
      auto& x = *e->As<ast::IndexExpr>();
      return !x.index->constant || HasEffects(x.base.get());
    }
    case ast::Expr::Kind::kSlice: {
      auto& x = *e->As<ast::SliceExpr>();
      return HasEffects(x.base.get()) || HasEffects(x.lo.get()) || HasEffects(x.hi.get());
    }
    case ast::Expr::Kind::kUnary:
      return HasEffects(e->As<ast::UnaryExpr>()->operand.get());
    case ast::Expr::Kind::kBinary: {
      auto& x = *e->As<ast::BinaryExpr>();
      return HasEffects(x.lhs.get()) || HasEffects(x.rhs.get());
    }
  }
  return true;
}

Type Concrete(Type t) {
  if (t.kind == Type::Kind::kIntLit) return Type::Int(64, t.is_signed);
  return t;
}

}  // namespace

VarId Builder::Declare(const ast::Binding& b, Var::Kind kind) {
  const VarId v = NewVar(b.name, b.type, kind, b.range);
  fns_.back().vars[&b] = v;
  return v;
}

VarId Builder::VarOf(const ast::Binding& b) {
  auto& vars = fns_.back().vars;
  auto it = vars.find(&b);
  if (it != vars.end()) return it->second;
  return Declare(b);  // unreachable for checked programs; keeps building total
}

Expr Builder::Value(const ast::Expr& e) {
  Nest nest(*this, e.range);
  const Type type = Concrete(e.type);
  if (e.constant && e.type.kind != Type::Kind::kBytes) {
    Expr c = Expr::Const(type, e.constant->bits);
    c.range = e.range;
    return c;
  }
  Expr out;
  out.type = type;
  out.range = e.range;
  switch (e.kind) {
    case ast::Expr::Kind::kInt:
    case ast::Expr::Kind::kBool: {
      Expr c = Expr::Const(type, 0);
      c.range = e.range;
      return c;
    }
    case ast::Expr::Kind::kName: {
      auto& n = *e.As<ast::NameExpr>();
      if (n.resolved.kind != ast::Resolution::Kind::kBinding) return Expr::Const(type, 0);
      auto p = params_.find(n.resolved.binding);
      if (p != params_.end()) {
        out.op = Expr::Op::kParam;
        out.id = p->second;
        return out;
      }
      out.op = Expr::Op::kVar;
      out.id = VarOf(*n.resolved.binding);
      return out;
    }
    case ast::Expr::Kind::kCall: return Call(*e.As<ast::CallExpr>());
    case ast::Expr::Kind::kIndex: {
      auto& x = *e.As<ast::IndexExpr>();
      out.op = Expr::Op::kBuffer;
      if (auto* n = x.base->As<ast::NameExpr>()) {
        auto p = params_.find(n->resolved.binding);
        if (p != params_.end()) out.id = p->second;
      }
      out.runtime_check = x.bounds != ast::Bounds::kProven;
      Expr index = Value(*x.index);
      if (out.runtime_check && out.id != kNone) {
        index = CheckedIndex(std::move(index), g_.params[out.id].type.count, x.range);
      }
      out.operands.push_back(std::move(index));
      return out;
    }
    case ast::Expr::Kind::kSlice: {
      auto& x = *e.As<ast::SliceExpr>();
      out.op = Expr::Op::kSlice;
      out.runtime_check = x.bounds != ast::Bounds::kProven;
      Expr base = Value(*x.base);
      Expr lo = x.lo ? Value(*x.lo) : Expr::Const(Type::Int(32, false), 0);
      Expr hi;
      if (x.hi) {
        hi = Value(*x.hi);
      } else {
        hi.op = Expr::Op::kLen;
        hi.type = Type::Int(32, false);
        hi.operands = {base};
      }
      out.operands = {std::move(base), std::move(lo), std::move(hi)};
      return out;
    }
    case ast::Expr::Kind::kPropagate: return Propagate(*e.As<ast::PropagateExpr>());
    case ast::Expr::Kind::kString: {
      const std::string& bytes = e.As<ast::StringLit>()->value;
      auto& lits = g_.literals;
      auto it = std::find(lits.begin(), lits.end(), bytes);
      out.op = Expr::Op::kLiteral;
      out.id = static_cast<uint32_t>(it - lits.begin());
      if (it == lits.end()) lits.push_back(bytes);
      return out;
    }
    case ast::Expr::Kind::kUnary: {
      auto& x = *e.As<ast::UnaryExpr>();
      out.op = Expr::Op::kUnary;
      out.unary_op = x.op;
      out.operands.push_back(Value(*x.operand));
      return out;
    }
    case ast::Expr::Kind::kBinary: {
      auto& x = *e.As<ast::BinaryExpr>();
      if ((x.op == BinaryOp::kLogicalAnd || x.op == BinaryOp::kLogicalOr) &&
          HasEffects(x.rhs.get())) {
        return ShortCircuit(x);
      }
      out.op = Expr::Op::kBinary;
      out.binary_op = x.op;
      out.operands.push_back(Value(*x.lhs));
      out.operands.push_back(Value(*x.rhs));
      return out;
    }
  }
  return out;
}

Expr Builder::Call(const ast::CallExpr& c) {
  const Type type = Concrete(c.type);
  switch (c.resolved.kind) {
    case ast::Resolution::Kind::kRequest: {
      const VarId v = NewVar(c.callee + ".result", type, Var::Kind::kTemp, c.range);
      return Request(c, v);
    }
    case ast::Resolution::Kind::kFn: {
      const VarId v = NewVar(c.callee + ".result", type, Var::Kind::kTemp, c.range);
      return InlineFn(c, v);
    }
    case ast::Resolution::Kind::kBuiltinFn: {
      Expr out;
      out.type = type;
      out.range = c.range;
      switch (static_cast<sema::BuiltinFn>(c.resolved.builtin_id)) {
        case sema::BuiltinFn::kLen: out.op = Expr::Op::kLen; break;
        case sema::BuiltinFn::kMin: out.op = Expr::Op::kMin; break;
        case sema::BuiltinFn::kMax: out.op = Expr::Op::kMax; break;
        case sema::BuiltinFn::kAddressOf: out.op = Expr::Op::kAddressOf; break;
        case sema::BuiltinFn::kGet:
        case sema::BuiltinFn::kPut:
        case sema::BuiltinFn::kCopy:
        case sema::BuiltinFn::kEq:
        case sema::BuiltinFn::kCopyFromUser: return DataBuiltin(c);
      }
      for (auto& a : c.args) out.operands.push_back(Value(*a));
      return out;
    }
    case ast::Resolution::Kind::kTypeCast: {
      Expr out;
      out.op = Expr::Op::kCast;
      out.type = type;
      out.range = c.range;
      out.operands.push_back(Value(*c.args.at(0)));
      return out;
    }
    default: return Expr::Const(type, 0);
  }
}

Expr Builder::Request(const ast::CallExpr& c, VarId into) {
  const sema::RequestSignature& sig =
      sema::Request(static_cast<sema::RequestKind>(c.resolved.builtin_id));
  std::vector<Expr> args;
  for (size_t i = 0; i < sig.params.size(); ++i) {
    if (i < c.args.size()) {
      Expr a = Value(*c.args[i]);
      if (a.type != sig.params[i].type && a.type.kind == Type::Kind::kInt &&
          sig.params[i].type.kind == Type::Kind::kInt) {
        Expr cast;
        cast.op = Expr::Op::kCast;
        cast.type = sig.params[i].type;
        cast.range = a.range;
        cast.operands = {std::move(a)};
        a = std::move(cast);
      }
      args.push_back(std::move(a));
    } else {
      args.push_back(Expr::Const(sig.params[i].type,
                                 static_cast<uint64_t>(sig.params[i].default_value.value_or(0))));
    }
  }
  std::optional<Expr> timeout;
  if (c.within) timeout = Value(*c.within->duration);
  const NodeId n = Emit(Node::Kind::kRequest, c.range);
  Node& node = g_.nodes[n];
  node.request = sig.kind;
  node.args = std::move(args);
  node.timeout = std::move(timeout);
  node.var = into;
  if (c.within && c.within->action) {
    std::vector<Exit> after = pending_;
    pending_ = {{n, true}};
    default_errno_.push_back(Expr::Const(Type::Int(32, true), 62));  // ETIME
    Stmt(*c.within->action);
    default_errno_.pop_back();
    pending_.insert(pending_.end(), after.begin(), after.end());
  }
  if (into == kNone) return Expr::Const(Concrete(c.type), 0);
  return Expr::Var(g_.vars[into].type, into);
}

Expr Builder::InlineFn(const ast::CallExpr& c, VarId into) {
  const ast::FnDecl& fn = *c.resolved.fn;
  if (into == kNone) into = NewVar(c.callee + ".result", fn.result_type, Var::Kind::kTemp, c.range);
  std::vector<Expr> args;
  for (auto& a : c.args) args.push_back(Value(*a));
  inline_calls_.push_back(c.range);
  g_.calls.push_back({c.range, call_ids_.empty() ? kNone : call_ids_.back(), task_.task});
  call_ids_.push_back(static_cast<uint32_t>(g_.calls.size() - 1));
  auto body = [&] {
    fns_.push_back({into, {}, task_.task, task_.tries.size(), task_.scopes.size(), {}});
    default_errno_.push_back(Expr::Const(Type::Int(32, true), 5));  // EIO
    NodeId a = Emit(Node::Kind::kAssign, c.range);
    g_.nodes[a].var = into;
    g_.nodes[a].value = Expr::Const(g_.vars[into].type, 0);
    for (size_t i = 0; i < fn.params.size() && i < args.size(); ++i) {
      const VarId p = Declare(*fn.params[i]);
      a = Emit(Node::Kind::kAssign, c.args[i]->range);
      g_.nodes[a].var = p;
      g_.nodes[a].value = std::move(args[i]);
    }
    Block(*fn.body);
    FnCtx ctx = std::move(fns_.back());
    fns_.pop_back();
    default_errno_.pop_back();
    pending_.insert(pending_.end(), ctx.returns.begin(), ctx.returns.end());
  };
  if (c.within) {
    Deadlined(*c.within, c.range, body, into);
  } else {
    body();
  }
  inline_calls_.pop_back();
  call_ids_.pop_back();
  return Expr::Var(g_.vars[into].type, into);
}

Expr Builder::ShortCircuit(const ast::BinaryExpr& x) {
  const bool is_and = x.op == BinaryOp::kLogicalAnd;
  const VarId t = NewVar(is_and ? "and" : "or", Type::Bool(), Var::Kind::kTemp, x.range);
  auto assign = [&](Expr value, SourceRange range) {
    const NodeId a = Emit(Node::Kind::kAssign, range);
    g_.nodes[a].var = t;
    g_.nodes[a].value = std::move(value);
  };
  assign(Value(*x.lhs), x.lhs->range);
  const NodeId br = Emit(Node::Kind::kBranch, x.range);
  g_.nodes[br].value = Expr::Var(Type::Bool(), t);
  // A branch's first exit is taken when the condition holds, its alternative when it does not.
  const Exit decided{br, is_and};
  pending_ = {{br, !is_and}};
  Expr rhs = Value(*x.rhs);
  if (!Dead()) assign(std::move(rhs), x.rhs->range);
  pending_.push_back(decided);
  return Expr::Var(Type::Bool(), t);
}

Expr Builder::Propagate(const ast::PropagateExpr& p) {
  Expr v = Value(*p.operand);
  if (v.op != Expr::Op::kVar) {
    const VarId t = NewVar("checked", v.type, Var::Kind::kTemp, p.range);
    const NodeId a = Emit(Node::Kind::kAssign, p.range);
    g_.nodes[a].var = t;
    g_.nodes[a].value = std::move(v);
    v = Expr::Var(g_.vars[t].type, t);
  }
  Expr negative;
  negative.op = Expr::Op::kBinary;
  negative.binary_op = BinaryOp::kLt;
  negative.type = Type::Bool();
  negative.range = p.range;
  negative.operands = {v, Expr::Const(v.type, 0)};
  const NodeId br = Emit(Node::Kind::kBranch, p.range);
  g_.nodes[br].value = std::move(negative);
  Expr errno_value;
  errno_value.op = Expr::Op::kCast;
  errno_value.type = Type::Int(32, true);
  Expr neg;
  neg.op = Expr::Op::kUnary;
  neg.unary_op = UnaryOp::kNeg;
  neg.type = v.type;
  neg.operands = {v};
  errno_value.operands = {std::move(neg)};
  RaiseErrno(std::move(errno_value), p.range);
  pending_ = {{br, true}};
  if (Concrete(p.type) == v.type) return v;
  Expr cast;
  cast.op = Expr::Op::kCast;
  cast.type = Concrete(p.type);
  cast.range = p.range;
  cast.operands = {std::move(v)};
  return cast;
}

// A value used twice (checked, then used) is taken into a temporary first, unless reading it
// again cannot give another value (a constant, a parameter, a literal).
Expr Builder::Once(Expr value, const char* name, SourceRange range) {
  if (value.op == Expr::Op::kConst || value.op == Expr::Op::kParam ||
      value.op == Expr::Op::kLiteral) {
    return value;
  }
  const VarId t = NewVar(name, value.type, Var::Kind::kTemp, range);
  const NodeId a = Emit(Node::Kind::kAssign, range);
  g_.nodes[a].var = t;
  g_.nodes[a].value = std::move(value);
  return Expr::Var(g_.vars[t].type, t);
}

namespace {

Expr CastTo(Expr x, Type t) {
  if (x.type == t) return x;
  Expr c;
  c.op = Expr::Op::kCast;
  c.type = t;
  c.range = x.range;
  c.operands = {std::move(x)};
  return c;
}

Expr BinaryOf(BinaryOp op, Type t, Expr a, Expr b, SourceRange range) {
  Expr e;
  e.op = Expr::Op::kBinary;
  e.binary_op = op;
  e.type = t;
  e.range = range;
  e.operands = {std::move(a), std::move(b)};
  return e;
}

}  // namespace

// get_T/put_T raise EFAULT, like a bad buffer index, when the W bytes at `off` are not all inside
// the view (off + W <= len, computed in 64 bits so it cannot wrap); the lowering's own check
// against the region, which the verifier needs, then never fires. put_T is a node of its own
// (an assignment to no variable) and copy_bytes one that assigns its count, so a statement that
// drops their value still runs them.
Expr Builder::DataBuiltin(const ast::CallExpr& c) {
  const auto fn = static_cast<sema::BuiltinFn>(c.resolved.builtin_id);
  Expr out;
  out.type = Concrete(c.type);
  out.range = c.range;
  if (fn == sema::BuiltinFn::kCopyFromUser) {
    out.op = Expr::Op::kCopyFromUser;
    out.operands = {Value(*c.args[0]), CastTo(Value(*c.args[1]), Type::Int(64, false))};
    return Once(std::move(out), "copied", c.range);
  }
  if (fn == sema::BuiltinFn::kCopy || fn == sema::BuiltinFn::kEq) {
    out.op = fn == sema::BuiltinFn::kCopy ? Expr::Op::kCopy : Expr::Op::kEqual;
    for (auto& a : c.args) out.operands.push_back(Value(*a));
    if (fn == sema::BuiltinFn::kEq) return out;
    return Once(std::move(out), "copied", c.range);
  }
  const bool put = fn == sema::BuiltinFn::kPut;
  const sema::DataAccess d = *sema::ParseDataAccess(std::string_view(c.callee).substr(4));
  const Type u64 = Type::Int(64, false);
  Expr view = Value(*c.args[0]);
  Expr off = CastTo(Value(*c.args[1]), Type::Int(32, false));
  // A constant offset into a whole buffer picked by a constant index needs no check.
  const bool proven = view.op == Expr::Op::kBuffer && view.operands[0].op == Expr::Op::kConst &&
                      off.op == Expr::Op::kConst &&
                      off.value + d.bits / 8 <= g_.params[view.id].type.size;
  if (!proven) {
    view = Once(std::move(view), "view", c.args[0]->range);
    off = Once(std::move(off), "offset", c.args[1]->range);
  }
  Expr value;
  if (put) value = CastTo(Value(*c.args[2]), Type::Int(d.bits, d.is_signed));
  if (!proven) {
    Expr len;
    len.op = Expr::Op::kLen;
    len.type = Type::Int(32, false);
    len.range = c.range;
    len.operands = {view};
    Expr end =
        BinaryOf(BinaryOp::kAdd, u64, CastTo(off, u64), Expr::Const(u64, d.bits / 8), c.range);
    Expr inside = BinaryOf(BinaryOp::kLe, Type::Bool(), std::move(end),
                           CastTo(std::move(len), u64), c.range);
    const NodeId br = Emit(Node::Kind::kBranch, c.range);
    g_.nodes[br].value = std::move(inside);
    pending_ = {{br, true}};  // the alternative: not inside
    RaiseErrno(Expr::Const(Type::Int(32, true), 14 /* EFAULT */), c.range);
    pending_ = {{br, false}};
  }
  out.op = put ? Expr::Op::kStore : Expr::Op::kLoad;
  out.value = rgir::DataAccessCode(d.bits, d.big_endian);
  out.operands = {std::move(view), std::move(off)};
  if (!put) return out;
  out.operands.push_back(std::move(value));
  const NodeId a = Emit(Node::Kind::kAssign, c.range);
  g_.nodes[a].value = std::move(out);
  return Expr::Const(Type::Void(), 0);
}

// An unproven buffer index raises EFAULT like a failed request under `?`: to the innermost
// `try`'s catch, else failing the task (only graphs index buffers; fns get `bytes` views). The
// index is taken into a temporary first (a later argument's fn call could change the variables
// it reads), so the value checked is the value used. The BPF lowering keeps its own check at the
// access (the kernel verifier needs one there); after this branch it never fires.
Expr Builder::CheckedIndex(Expr index, uint32_t count, SourceRange range) {
  index = Once(std::move(index), "index", range);
  // Compared as u64, so a negative signed index is out of range too.
  Expr wide;
  wide.op = Expr::Op::kCast;
  wide.type = Type::Int(64, false);
  wide.range = range;
  wide.operands = {index};
  Expr in_range;
  in_range.op = Expr::Op::kBinary;
  in_range.binary_op = BinaryOp::kLt;
  in_range.type = Type::Bool();
  in_range.range = range;
  in_range.operands = {std::move(wide), Expr::Const(Type::Int(64, false), count)};
  const NodeId br = Emit(Node::Kind::kBranch, range);
  g_.nodes[br].value = std::move(in_range);
  pending_ = {{br, true}};
  RaiseErrno(Expr::Const(Type::Int(32, true), 14 /* EFAULT */), range);
  pending_ = {{br, false}};
  return index;
}

}  // namespace uringc::build::internal
