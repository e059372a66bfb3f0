// The `fds` pass: a file descriptor obtained from `accept`, `openat` or `socket` and held in a
// variable should be closed on every path that leaves the variable's scope: the end of its
// block, `break`/`continue` out of it, `return`, and errors raised by `?` or `fail` that no
// `try` in the same body catches. A branch that runs only when the request failed (the then-branch
// of `if x < 0`, the else-branch of `if x >= 0`, also through `&&`, `||` and `!`) has nothing to
// close.
// `stop` ends the whole graph and is not a leak. Passing the fd to a fn does not count as closing.
#include <map>
#include <set>

#include "ast/visit.h"
#include "sema/passes.h"
#include "sema/requests.h"

namespace uringc::sema {
namespace {

using namespace ast;
using Open = std::set<const Binding*>;

// The comparison that holds for `b, a` when `op` holds for `a, b`: `<` and `>`, `<=` and `>=`
// swap; the other operators come back unchanged (FailedWhen asks only about those four).
BinaryOp Mirrored(BinaryOp op) {
  if (op == BinaryOp::kLt) return BinaryOp::kGt;
  if (op == BinaryOp::kLe) return BinaryOp::kGe;
  if (op == BinaryOp::kGt) return BinaryOp::kLt;
  if (op == BinaryOp::kGe) return BinaryOp::kLe;
  return op;
}

// The request that produced `init` when it opens an fd (`accept(l)`, `accept(l)?`).
const RequestSignature* OpensFd(const Expr* init) {
  if (!init) return nullptr;
  if (auto* p = init->As<PropagateExpr>()) init = p->operand.get();
  auto* c = init->As<CallExpr>();
  if (!c || c->resolved.kind != Resolution::Kind::kRequest) return nullptr;
  const RequestSignature& sig = Request(static_cast<RequestKind>(c->resolved.builtin_id));
  return sig.opens_fd ? &sig : nullptr;
}

class Fds {
 public:
  explicit Fds(DiagnosticList& d) : diags_(d) {}

  void Body(Block& body) {
    depth_.clear();
    reported_.clear();
    try_states_.clear();
    loop_depths_.clear();
    Open open;
    Walk(body, open, 0);
  }

 private:
  void Leak(const Binding* b, SourceRange at, const std::string& how) {
    if (!reported_.insert(b).second) return;
    diags_
        .Warning(DiagKind::kFdLeak, b->range,
                 "`" + b->name + "` holds a file descriptor that is not closed when " + how)
        .notes.push_back({at, "leaves here without `close(" + b->name + ")`"});
  }

  // The fds in `open` declared deeper than `depth` leak at `at`.
  void LeakDeeper(const Open& open, int depth, SourceRange at, const std::string& how) {
    for (const Binding* b : open)
      if (depth_[b] > depth) Leak(b, at, how);
  }

  // Effects of the expressions of one statement: closes, then raises (`?`), then within-actions.
  void Exprs(const Expr* e, Open& open, int depth) {
    if (!e) return;
    std::vector<const Expr*> raises;
    std::vector<const CallExpr*> timed;
    VisitExprs(*e, [&](const Expr& x) {
      if (x.kind == Expr::Kind::kPropagate) raises.push_back(&x);
      auto* c = x.As<CallExpr>();
      if (!c) return;
      if (c->within && c->within->action) timed.push_back(c);
    });
    for (const Expr* r : raises) Raise(open, r->range, depth);
    for (const CallExpr* c : timed) {
      Open t = open;
      Walk(const_cast<Stmt&>(*c->within->action), t, depth);
    }
    VisitExprs(*e, [&](const Expr& x) {
      auto* c = x.As<CallExpr>();
      if (!c || c->resolved.kind != Resolution::Kind::kRequest || c->args.empty()) return;
      if (Request(static_cast<RequestKind>(c->resolved.builtin_id)).kind != RequestKind::kClose)
        return;
      if (auto* n = c->args[0]->As<NameExpr>()) open.erase(n->resolved.binding);
    });
  }

  void Raise(const Open& open, SourceRange at, int depth) {
    if (!try_states_.empty()) {
      try_states_.back().insert(open.begin(), open.end());
      return;
    }
    (void)depth;
    for (const Binding* b : open) Leak(b, at, "an error is raised here");
  }

  bool Walk(Stmt& s, Open& open, int depth) {
    bool completes = true;
    switch (s.kind) {
      case Stmt::Kind::kDecl: {
        auto& x = *s.As<DeclStmt>();
        Exprs(x.init.get(), open, depth);
        if (OpensFd(x.init.get())) {
          open.insert(x.binding.get());
          depth_[x.binding.get()] = depth;
        }
        break;
      }
      case Stmt::Kind::kAssign:
        Exprs(s.As<AssignStmt>()->value.get(), open, depth);
        break;
      case Stmt::Kind::kExpr: Exprs(s.As<ExprStmt>()->expr.get(), open, depth); break;
      case Stmt::Kind::kIf: {
        auto& x = *s.As<IfStmt>();
        Exprs(x.cond.get(), open, depth);
        Open a = open, b = open;
        for (const Binding* failed : FailedWhen(*x.cond, true)) a.erase(failed);
        for (const Binding* failed : FailedWhen(*x.cond, false)) b.erase(failed);
        const bool ca = Walk(*x.then_block, a, depth + 1);
        const bool cb = x.else_stmt ? Walk(*x.else_stmt, b, depth + 1) : true;
        open.clear();
        if (ca) open.insert(a.begin(), a.end());
        if (cb) open.insert(b.begin(), b.end());
        completes = ca || cb;
        break;
      }
      case Stmt::Kind::kBlock: {
        auto& b = *s.As<Block>();
        for (auto& c : b.stmts) {
          if (!Walk(*c, open, depth + 1)) {
            completes = false;
            break;
          }
        }
        if (completes) {
          SourceRange end{b.range.file, b.range.end > 0 ? b.range.end - 1 : 0, b.range.end};
          LeakDeeper(open, depth, end, "its block ends");
        }
        for (auto it = open.begin(); it != open.end();)
          it = depth_[*it] > depth ? open.erase(it) : std::next(it);
        break;
      }
      case Stmt::Kind::kWhile: Loop(*s.As<WhileStmt>()->body, s.As<WhileStmt>()->cond.get(), open, depth); break;
      case Stmt::Kind::kRepeat: Loop(*s.As<RepeatStmt>()->body, s.As<RepeatStmt>()->count.get(), open, depth); break;
      case Stmt::Kind::kFor: Loop(*s.As<ForStmt>()->body, s.As<ForStmt>()->hi.get(), open, depth); break;
      case Stmt::Kind::kLoop: Loop(*s.As<LoopStmt>()->body, nullptr, open, depth); break;
      case Stmt::Kind::kForEach:
        for (auto& a : s.As<ForEachStmt>()->source->args) Exprs(a.get(), open, depth);
        if (Within* w = s.As<ForEachStmt>()->source->within.get()) {
          Exprs(w->duration.get(), open, depth);
          Open t = open;
          if (w->action) Walk(*w->action, t, depth + 1);
        }
        Loop(*s.As<ForEachStmt>()->body, nullptr, open, depth);
        break;
      case Stmt::Kind::kParallel: {
        Open t = open;
        Walk(*s.As<ParallelStmt>()->body, t, depth + 1);
        break;
      }
      case Stmt::Kind::kAll:
        for (auto& branch : s.As<AllStmt>()->body->stmts) {
          Open t = open;
          Walk(*branch, t, depth + 1);
        }
        break;
      case Stmt::Kind::kAny:
        for (auto& arm : s.As<AnyStmt>()->arms) {
          Open t = open;
          Exprs(arm->call.get(), t, depth);
          Walk(*arm->body, t, depth + 1);
        }
        break;
      case Stmt::Kind::kTry: {
        auto& x = *s.As<TryStmt>();
        try_states_.emplace_back();
        Open a = open;
        const bool ca = Walk(*x.body, a, depth + 1);
        Open raised = try_states_.back();
        try_states_.pop_back();
        const bool cb = Walk(*x.handler, raised, depth + 1);
        open.clear();
        if (ca) open.insert(a.begin(), a.end());
        if (cb) open.insert(raised.begin(), raised.end());
        completes = ca || cb;
        break;
      }
      case Stmt::Kind::kJump: {
        auto& x = *s.As<JumpStmt>();
        Exprs(x.value.get(), open, depth);
        switch (x.jump) {
          case JumpStmt::Jump::kBreak:
          case JumpStmt::Jump::kContinue:
            if (!loop_depths_.empty())
              LeakDeeper(open, loop_depths_.back(), x.range, "the loop iteration ends here");
            break;
          case JumpStmt::Jump::kFail: Raise(open, x.range, depth); break;
          case JumpStmt::Jump::kReturn:
            for (const Binding* b : open) Leak(b, x.range, "the function returns here");
            break;
          case JumpStmt::Jump::kStop: break;
        }
        completes = false;
        break;
      }
    }
    if (s.within && s.within->action) {
      Open t = open;
      Walk(*s.within->action, t, depth);
    }
    return completes;
  }

  void Loop(Block& body, const Expr* head, Open& open, int depth) {
    Exprs(head, open, depth);
    loop_depths_.push_back(depth);
    Open t = open;
    Walk(body, t, depth + 1);
    loop_depths_.pop_back();
    open.insert(t.begin(), t.end());  // a close inside the loop may not run
    for (auto it = open.begin(); it != open.end();)
      it = depth_[*it] > depth ? open.erase(it) : std::next(it);
  }

  // The bindings whose request certainly failed (a negative result) when `cond` is `outcome`:
  // `x < 0` (also `x <= 0`, `0 > x`, `0 >= x`) when true, `x >= 0` (`x > 0`, `0 <= x`, `0 < x`)
  // when false; `&&` when true and `||` when false know what either side knows, the other way
  // round what both sides know; `!` swaps the outcome.
  static Open FailedWhen(const Expr& cond, bool outcome) {
    if (auto* u = cond.As<UnaryExpr>()) {
      switch (u->op) {
        case UnaryOp::kNot: return FailedWhen(*u->operand, !outcome);
        case UnaryOp::kNeg: return {};
      }
      return {};
    }
    auto* b = cond.As<BinaryExpr>();
    if (!b) return {};
    if (IsShortCircuit(b->op)) {
      Open l = FailedWhen(*b->lhs, outcome), r = FailedWhen(*b->rhs, outcome);
      if ((b->op == BinaryOp::kLogicalAnd) == outcome) {  // both sides hold: either side's facts
        l.insert(r.begin(), r.end());
        return l;
      }
      Open both;  // one side holds, which one is unknown: the facts of both
      for (const Binding* x : l)
        if (r.count(x)) both.insert(x);
      return both;
    }
    auto name_of = [](const Expr& e) -> const Binding* {
      auto* n = e.As<NameExpr>();
      return n && n->resolved.kind == Resolution::Kind::kBinding ? n->resolved.binding : nullptr;
    };
    auto zero = [](const Expr& e) { return e.constant && e.constant->bits == 0; };
    // Normalize to `x OP 0`.
    const Binding* x = nullptr;
    BinaryOp op = b->op;
    if (zero(*b->rhs)) {
      x = name_of(*b->lhs);
    } else if (zero(*b->lhs)) {
      x = name_of(*b->rhs);
      op = Mirrored(op);
    }
    if (!x) return {};
    const bool fails_when_true = op == BinaryOp::kLt || op == BinaryOp::kLe;
    const bool fails_when_false = op == BinaryOp::kGt || op == BinaryOp::kGe;
    if ((fails_when_true && outcome) || (fails_when_false && !outcome)) return {x};
    return {};
  }

  DiagnosticList& diags_;
  std::map<const Binding*, int> depth_;
  std::set<const Binding*> reported_;
  std::vector<Open> try_states_;
  std::vector<int> loop_depths_;
};

}  // namespace

void CheckFds(Program& program, DiagnosticList& diagnostics) {
  Fds fds(diagnostics);
  ForEachBody(program, [&](ast::Block& body, const FnParams*) { fds.Body(body); });
}

}  // namespace uringc::sema
