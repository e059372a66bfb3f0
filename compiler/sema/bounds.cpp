// The `bounds` pass: every buffer index and slice gets a verdict (ast::Bounds). A simple interval
// analysis bounds each integer: constants, `let` values, loop and task variables, and request
// results (a read/recv into `b` returns at most len(b) bytes, so `buf[c][..n]` after
// `let n = recv(s, buf[c])?` is proven). Provably out of bounds is an error; anything not proven
// is marked for a run-time check (code generation clamps lengths, checks indices).
#include <map>

#include "ast/visit.h"
#include "sema/passes.h"
#include "sema/requests.h"
#include "sema/type_rules.h"

namespace uringc::sema {
namespace {

using namespace ast;
using Wide = __int128;

struct Interval {
  Wide lo, hi;
};

std::string Str(Wide v) {
  if (v < 0) return "-" + std::to_string(static_cast<uint64_t>(-v));
  return std::to_string(static_cast<uint64_t>(v));
}

Interval RangeOf(const Type& t) {
  if (t.kind == Type::Kind::kBool) return {0, 1};
  return {MinOf(t), MaxOf(t)};
}

class BoundsChecker {
 public:
  explicit BoundsChecker(DiagnosticList& d) : diags_(d) {}

  void Body(Block& b) {
    values_.clear();
    lengths_.clear();
    WalkStmt(b);
  }

 private:
  // ----- intervals -----
  Interval Clip(Interval v, const Type& t) {
    Interval r = RangeOf(t);
    if (v.lo < r.lo || v.hi > r.hi) return r;  // may wrap: know nothing more than the type
    return v;
  }

  Interval Value(const Expr& e) {
    if (e.constant && (e.type.IsInteger() || e.type.kind == Type::Kind::kFd)) {
      const Wide v = ConstToWide(*e.constant, e.type);
      return {v, v};
    }
    const Interval full = RangeOf(e.type);
    switch (e.kind) {
      case Expr::Kind::kName: {
        auto* n = e.As<NameExpr>();
        if (n->resolved.kind == Resolution::Kind::kBinding) {
          auto it = values_.find(n->resolved.binding);
          if (it != values_.end()) return it->second;
        }
        return full;
      }
      case Expr::Kind::kCall: {
        auto* c = e.As<CallExpr>();
        if (c->resolved.kind == Resolution::Kind::kRequest) {
          const RequestSignature& sig = Request(static_cast<RequestKind>(c->resolved.builtin_id));
          if (sig.result_bounded_by >= 0 &&
              static_cast<size_t>(sig.result_bounded_by) < c->args.size()) {
            return {-4095, Length(*c->args[sig.result_bounded_by]).hi};
          }
          return full;
        }
        if (c->resolved.kind == Resolution::Kind::kBuiltinFn && !c->args.empty()) {
          if (c->resolved.builtin_id == static_cast<int>(BuiltinFn::kLen))
            return Length(*c->args[0]);
          if (c->args.size() == 2) {
            Interval a = Value(*c->args[0]), b = Value(*c->args[1]);
            if (c->resolved.builtin_id == static_cast<int>(BuiltinFn::kMin))
              return {std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
            return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
          }
        }
        if (c->resolved.kind == Resolution::Kind::kTypeCast && c->args.size() == 1) {
          return Clip(Value(*c->args[0]), e.type);
        }
        return full;
      }
      case Expr::Kind::kPropagate: {
        Interval v = Value(*e.As<PropagateExpr>()->operand);
        return Clip({std::max<Wide>(0, v.lo), std::max<Wide>(0, v.hi)}, e.type);
      }
      case Expr::Kind::kBinary: {
        auto* b = e.As<BinaryExpr>();
        if (!e.type.IsInteger()) return full;
        Interval l = Value(*b->lhs), r = Value(*b->rhs);
        const BinaryOp op = b->op;
        if (op == BinaryOp::kAdd) return Clip({l.lo + r.lo, l.hi + r.hi}, e.type);
        if (op == BinaryOp::kSub) return Clip({l.lo - r.hi, l.hi - r.lo}, e.type);
        if (op == BinaryOp::kMul && l.lo >= 0 && r.lo >= 0 && l.hi < (Wide(1) << 64) &&
            r.hi < (Wide(1) << 64))
          return Clip({l.lo * r.lo, l.hi * r.hi}, e.type);
        if (op == BinaryOp::kDiv && l.lo >= 0 && r.lo > 0) return {l.lo / r.hi, l.hi / r.lo};
        if (op == BinaryOp::kRem && l.lo >= 0 && r.lo > 0) return {0, std::min(l.hi, r.hi - 1)};
        if (op == BinaryOp::kBitAnd && (l.lo >= 0 || r.lo >= 0))
          return {0, l.lo >= 0 && r.lo >= 0 ? std::min(l.hi, r.hi) : (l.lo >= 0 ? l.hi : r.hi)};
        return full;  // any other operator, a new one too: any value of the type (sound, loose)
      }
      default: return full;
    }
  }

  // Possible lengths of a `bytes` expression.
  Interval Length(const Expr& e) {
    const Interval unknown{0, UINT32_MAX};
    if (auto* i = e.As<IndexExpr>()) {
      const Type& t = i->base->type;
      if (t.kind == Type::Kind::kBuffers) return {Wide(t.size), Wide(t.size)};
      return unknown;
    }
    if (auto* s = e.As<SliceExpr>()) {
      Interval base = Length(*s->base);
      Interval lo = s->lo ? Value(*s->lo) : Interval{0, 0};
      Interval hi = s->hi ? Value(*s->hi) : base;
      // After a run-time clamp the length is within [0, base.hi]; when proven, within hi - lo.
      Wide max = std::min(base.hi, hi.hi) - std::max<Wide>(0, lo.lo);
      Wide min = std::max<Wide>(0, hi.lo - lo.hi);
      if (s->bounds != ast::Bounds::kProven) min = 0;
      return {min, std::max<Wide>(0, max)};
    }
    if (auto* n = e.As<NameExpr>(); n && n->resolved.kind == Resolution::Kind::kBinding) {
      auto it = lengths_.find(n->resolved.binding);
      if (it != lengths_.end()) return it->second;
    }
    return unknown;
  }

  // ----- checks -----
  void NoteDecl(Diagnostic& d, const Expr& base) {
    const Expr* root = &base;
    while (true) {
      if (auto* i = root->As<IndexExpr>()) root = i->base.get();
      else if (auto* s = root->As<SliceExpr>()) root = s->base.get();
      else break;
    }
    if (auto* n = root->As<NameExpr>(); n && n->resolved.kind == Resolution::Kind::kBinding) {
      d.notes.push_back({n->resolved.binding->range,
                         "`" + n->name + "` declared here as `" +
                             n->resolved.binding->type.ToString() + "`"});
    }
  }

  void CheckIndex(IndexExpr& x) {
    const Type& t = x.base->type;
    if (t.kind != Type::Kind::kBuffers || x.index->type.IsError()) return;
    Interval i = Value(*x.index);
    if (i.lo >= Wide(t.count) || i.hi < 0) {
      Diagnostic& d =
          diags_.Error(DiagKind::kBufferIndexOutOfRange, x.index->range,
                       "buffer index is " + (i.lo == i.hi ? Str(i.lo) : "at least " + Str(i.lo)) +
                           ", but there are only " + std::to_string(t.count) + " buffers");
      NoteDecl(d, *x.base);
      return;
    }
    x.bounds = i.lo >= 0 && i.hi < Wide(t.count) ? ast::Bounds::kProven : ast::Bounds::kRuntime;
  }

  void CheckSlice(SliceExpr& x) {
    if (x.base->type.kind != Type::Kind::kBytes) return;
    if ((x.lo && x.lo->type.IsError()) || (x.hi && x.hi->type.IsError())) return;
    Interval len = Length(*x.base);
    Interval lo = x.lo ? Value(*x.lo) : Interval{0, 0};
    Interval hi = x.hi ? Value(*x.hi) : len;
    std::string problem;
    const Expr* at = x.hi ? x.hi.get() : &x;
    if (x.hi && hi.lo > len.hi) {
      problem = "slice end is at least " + Str(hi.lo) + " but `" + x.base->type.ToString() +
                "` holds at most " + Str(len.hi) + " bytes";
    } else if (x.lo && lo.lo > len.hi) {
      at = x.lo.get();
      problem = "slice start is at least " + Str(lo.lo) + " but the bytes hold at most " +
                Str(len.hi);
    } else if (x.lo && x.hi && lo.lo > hi.hi) {
      at = x.lo.get();
      problem = "slice start (at least " + Str(lo.lo) + ") is after its end (at most " +
                Str(hi.hi) + ")";
    } else if (hi.hi < 0) {
      problem = "slice end is negative";
    }
    if (!problem.empty()) {
      Diagnostic& d = diags_.Error(DiagKind::kBufferOverrun, at->range, problem);
      NoteDecl(d, *x.base);
      return;
    }
    const bool proven = lo.lo >= 0 && hi.hi <= len.lo && lo.hi <= hi.lo;
    x.bounds = proven ? ast::Bounds::kProven : ast::Bounds::kRuntime;
  }

  // Checks every index/slice in `e` (inner first, so lengths of bases are known).
  void CheckExpr(ast::Expr& e) {
    std::vector<ast::Expr*> order;
    VisitExprs(e, [&](const ast::Expr& x) { order.push_back(const_cast<ast::Expr*>(&x)); });
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      if (auto* i = (*it)->As<IndexExpr>()) CheckIndex(*i);
      if (auto* s = (*it)->As<SliceExpr>()) CheckSlice(*s);
    }
  }

  void Bind(const Binding& b, const ast::Expr* init) {
    if (b.kind != Binding::Kind::kLet || init == nullptr) return;
    if (b.type.kind == Type::Kind::kBytes) {
      lengths_[&b] = Length(*init);
    } else if (b.type.IsInteger()) {
      values_[&b] = Clip(Value(*init), b.type);
    }
  }

  void WalkStmt(ast::Stmt& s) {
    // Expressions directly under this statement, then nested statements in order.
    switch (s.kind) {
      case ast::Stmt::Kind::kDecl: {
        auto& x = *s.As<DeclStmt>();
        if (x.init) {
          CheckExpr(*x.init);
          Bind(*x.binding, x.init.get());
        }
        break;
      }
      case ast::Stmt::Kind::kAssign:
        CheckExpr(*s.As<AssignStmt>()->target);
        CheckExpr(*s.As<AssignStmt>()->value);
        break;
      case ast::Stmt::Kind::kExpr: CheckExpr(*s.As<ExprStmt>()->expr); break;
      case ast::Stmt::Kind::kIf: {
        auto& x = *s.As<IfStmt>();
        CheckExpr(*x.cond);
        WalkStmt(*x.then_block);
        if (x.else_stmt) WalkStmt(*x.else_stmt);
        break;
      }
      case ast::Stmt::Kind::kBlock:
        for (auto& c : s.As<Block>()->stmts) WalkStmt(*c);
        break;
      case ast::Stmt::Kind::kWhile:
        CheckExpr(*s.As<WhileStmt>()->cond);
        WalkStmt(*s.As<WhileStmt>()->body);
        break;
      case ast::Stmt::Kind::kLoop: WalkStmt(*s.As<LoopStmt>()->body); break;
      case ast::Stmt::Kind::kRepeat:
        CheckExpr(*s.As<RepeatStmt>()->count);
        WalkStmt(*s.As<RepeatStmt>()->body);
        break;
      case ast::Stmt::Kind::kFor: {
        auto& x = *s.As<ForStmt>();
        CheckExpr(*x.lo);
        CheckExpr(*x.hi);
        RangeVar(*x.var, *x.lo, *x.hi);
        WalkStmt(*x.body);
        break;
      }
      case ast::Stmt::Kind::kForEach: {
        auto& x = *s.As<ForEachStmt>();
        for (auto& a : x.source->args) CheckExpr(*a);
        if (Within* w = x.source->within.get()) {
          CheckExpr(*w->duration);
          if (w->action) WalkStmt(*w->action);
        }
        WalkStmt(*x.body);
        break;
      }
      case ast::Stmt::Kind::kParallel: {
        auto& x = *s.As<ParallelStmt>();
        RangeVar(*x.var, *x.lo, *x.hi);
        WalkStmt(*x.body);
        break;
      }
      case ast::Stmt::Kind::kAll: WalkStmt(*s.As<AllStmt>()->body); break;
      case ast::Stmt::Kind::kAny:
        for (auto& arm : s.As<AnyStmt>()->arms) {
          CheckExpr(*arm->call);
          if (arm->binding && arm->binding->type.IsInteger())
            values_[arm->binding.get()] = Clip(Value(*arm->call), arm->binding->type);
          WalkStmt(*arm->body);
        }
        break;
      case ast::Stmt::Kind::kTry:
        WalkStmt(*s.As<TryStmt>()->body);
        WalkStmt(*s.As<TryStmt>()->handler);
        break;
      case ast::Stmt::Kind::kJump:
        if (auto& v = s.As<JumpStmt>()->value) CheckExpr(*v);
        break;
    }
    if (s.within && s.within->action) WalkStmt(*s.within->action);
  }

  void RangeVar(const Binding& var, const ast::Expr& lo, const ast::Expr& hi) {
    if (!var.type.IsInteger()) return;
    Interval l = Value(lo), h = Value(hi);
    if (h.hi - 1 < l.lo) return;  // empty range: the body never runs
    values_[&var] = Clip({l.lo, h.hi - 1}, var.type);
  }

  DiagnosticList& diags_;
  std::map<const Binding*, Interval> values_;
  std::map<const Binding*, Interval> lengths_;
};

}  // namespace

void CheckBounds(Program& program, DiagnosticList& diagnostics) {
  BoundsChecker bounds(diagnostics);
  ForEachBody(program, [&](ast::Block& body, const FnParams*) { bounds.Body(body); });
}

}  // namespace uringc::sema
