// The `flow` pass: walks each body in control-flow order. Statements that can never run get an
// UnreachableCode warning (and `reachable = false`); a `var` read before it is assigned on some
// path is UninitializedVariable; `let`/`var`/arm names that are never read are UnusedVariable
// (names starting with `_` are exempt). Loops are not iterated: a loop body may run zero times,
// so its assignments do not count after it.
#include <set>

#include "ast/visit.h"
#include "sema/passes.h"

namespace uringc::sema {
namespace {

using namespace ast;
using Set = std::set<const Binding*>;

Set Union(const Set& a, const Set& b) {
  Set r = a;
  r.insert(b.begin(), b.end());
  return r;
}
Set Intersect(const Set& a, const Set& b) {
  Set r;
  for (auto* x : a)
    if (b.count(x)) r.insert(x);
  return r;
}

// Whether `s` contains a `break` that leaves the loop around it (not a nested loop's; a break
// cannot cross into a concurrent task, resolve reports that).
bool HasBreak(const Stmt& s);

bool ExprHasBreak(const Expr& e) {
  bool found = false;
  VisitExprs(e, [&](const Expr& x) {
    auto* c = x.As<CallExpr>();
    if (c && c->within && c->within->action && HasBreak(*c->within->action)) found = true;
  });
  return found;
}

bool HasBreak(const Stmt& s) {
  if (s.within && s.within->action && HasBreak(*s.within->action)) return true;
  switch (s.kind) {
    case Stmt::Kind::kJump: return s.As<JumpStmt>()->jump == JumpStmt::Jump::kBreak;
    case Stmt::Kind::kWhile: case Stmt::Kind::kLoop: case Stmt::Kind::kRepeat:
    case Stmt::Kind::kFor: case Stmt::Kind::kParallel: case Stmt::Kind::kAll:
    case Stmt::Kind::kForEach:
      return false;
    case Stmt::Kind::kBlock:
      for (auto& c : s.As<Block>()->stmts)
        if (HasBreak(*c)) return true;
      return false;
    case Stmt::Kind::kIf: {
      auto& x = *s.As<IfStmt>();
      return ExprHasBreak(*x.cond) || HasBreak(*x.then_block) ||
             (x.else_stmt && HasBreak(*x.else_stmt));
    }
    case Stmt::Kind::kTry: return HasBreak(*s.As<TryStmt>()->body) || HasBreak(*s.As<TryStmt>()->handler);
    case Stmt::Kind::kAny:
      for (auto& arm : s.As<AnyStmt>()->arms)
        if (ExprHasBreak(*arm->call) || HasBreak(*arm->body)) return true;
      return false;
    case Stmt::Kind::kDecl: return s.As<DeclStmt>()->init && ExprHasBreak(*s.As<DeclStmt>()->init);
    case Stmt::Kind::kAssign: return ExprHasBreak(*s.As<AssignStmt>()->value);
    case Stmt::Kind::kExpr: return ExprHasBreak(*s.As<ExprStmt>()->expr);
  }
  return false;
}

class Flow {
 public:
  explicit Flow(DiagnosticList& d) : diags_(d) {}

  void Body(Block& body, const std::vector<std::unique_ptr<Binding>>* params) {
    bindings_.clear();
    Set un;
    Walk(body, un);
    (void)params;
    for (const Binding* b : bindings_) {
      if (b->used || b->name.empty() || b->name[0] == '_') continue;
      diags_.Warning(DiagKind::kUnusedVariable, b->range,
                     "`" + b->name + "` is never read; remove it or name it `_" + b->name + "`");
    }
  }

 private:
  void Uses(const Expr* e, Set& un) {
    if (!e) return;
    VisitExprs(*e, [&](const Expr& x) {
      auto* n = x.As<NameExpr>();
      if (!n || n->resolved.kind != Resolution::Kind::kBinding) return;
      const Binding* b = n->resolved.binding;
      if (un.erase(b)) {
        diags_
            .Error(DiagKind::kUninitializedVariable, n->range,
                   "`" + b->name + "` is read before it is assigned on some path")
            .notes.push_back({b->range, "declared here without a value"});
      }
    });
  }

  void Declare(const Binding& b) { bindings_.push_back(&b); }

  // Walks `s` (reachable), updating `un` (vars not yet definitely assigned). Returns whether s
  // can complete normally.
  bool Walk(Stmt& s, Set& un) {
    const Set before = un;
    bool completes = WalkInner(s, un);
    if (s.within) {
      Uses(s.within->duration.get(), un);
      if (s.within->action) {
        Set t = before;
        const bool action_completes = Walk(*s.within->action, t);
        if (action_completes) un = completes ? Union(un, t) : t;
        completes = completes || action_completes;
      }
    }
    return completes;
  }

  bool WalkInner(Stmt& s, Set& un) {
    switch (s.kind) {
      case Stmt::Kind::kDecl: {
        auto& x = *s.As<DeclStmt>();
        Uses(x.init.get(), un);
        Declare(*x.binding);
        if (!x.init) un.insert(x.binding.get());
        return true;
      }
      case Stmt::Kind::kAssign: {
        auto& x = *s.As<AssignStmt>();
        Uses(x.value.get(), un);
        if (x.compound_op) Uses(x.target.get(), un);
        if (auto* n = x.target->As<NameExpr>()) un.erase(n->resolved.binding);
        return true;
      }
      case Stmt::Kind::kExpr: Uses(s.As<ExprStmt>()->expr.get(), un); return true;
      case Stmt::Kind::kIf: {
        auto& x = *s.As<IfStmt>();
        Uses(x.cond.get(), un);
        Set a = un, b = un;
        const bool ca = Walk(*x.then_block, a);
        const bool cb = x.else_stmt ? Walk(*x.else_stmt, b) : true;
        if (ca && cb) un = Union(a, b);
        else if (ca) un = a;
        else if (cb) un = b;
        return ca || cb;
      }
      case Stmt::Kind::kBlock: {
        bool completes = true;
        for (auto& c : s.As<Block>()->stmts) {
          if (!completes) {
            MarkUnreachable(*c);
            continue;
          }
          completes = Walk(*c, un);
          if (!completes) first_unreachable_reported_ = false;
        }
        return completes;
      }
      case Stmt::Kind::kWhile: {
        auto& x = *s.As<WhileStmt>();
        Uses(x.cond.get(), un);
        Set t = un;
        Walk(*x.body, t);
        return true;
      }
      case Stmt::Kind::kRepeat: {
        auto& x = *s.As<RepeatStmt>();
        Uses(x.count.get(), un);
        Set t = un;
        Walk(*x.body, t);
        return true;
      }
      case Stmt::Kind::kFor: {
        auto& x = *s.As<ForStmt>();
        Uses(x.lo.get(), un);
        Uses(x.hi.get(), un);
        Set t = un;
        Walk(*x.body, t);
        return true;
      }
      case Stmt::Kind::kForEach: {
        auto& x = *s.As<ForEachStmt>();
        for (auto& a : x.source->args) Uses(a.get(), un);
        if (Within* w = x.source->within.get()) {
          Uses(w->duration.get(), un);
          Set a = un;
          if (w->action) Walk(*w->action, a);
        }
        Set t = un;
        Walk(*x.body, t);
        return true;
      }
      case Stmt::Kind::kLoop: {
        auto& x = *s.As<LoopStmt>();
        Set t = un;
        Walk(*x.body, t);
        return HasBreak(*x.body);
      }
      case Stmt::Kind::kParallel: {
        auto& x = *s.As<ParallelStmt>();
        Set t = un;
        Walk(*x.body, t);
        return true;
      }
      case Stmt::Kind::kAll: {
        Set after = un;
        bool all_complete = true;
        for (auto& branch : s.As<AllStmt>()->body->stmts) {
          Set t = un;
          all_complete = Walk(*branch, t) && all_complete;
          after = Intersect(after, t);
        }
        un = after;
        return all_complete;
      }
      case Stmt::Kind::kAny: {
        Set after;
        bool any_completes = false;
        for (auto& arm : s.As<AnyStmt>()->arms) {
          Set t = un;
          Uses(arm->call.get(), t);
          if (arm->binding) Declare(*arm->binding);
          if (Walk(*arm->body, t)) {
            after = any_completes ? Union(after, t) : t;
            any_completes = true;
          }
        }
        if (any_completes) un = after;
        return any_completes || s.As<AnyStmt>()->arms.empty();
      }
      case Stmt::Kind::kTry: {
        auto& x = *s.As<TryStmt>();
        Set a = un, b = un;
        const bool ca = Walk(*x.body, a);
        const bool cb = Walk(*x.handler, b);
        if (ca && cb) un = Union(a, b);
        else if (ca) un = a;
        else if (cb) un = b;
        return ca || cb;
      }
      case Stmt::Kind::kJump:
        Uses(s.As<JumpStmt>()->value.get(), un);
        return false;
    }
    return true;
  }

  void MarkUnreachable(Stmt& s) {
    if (!first_unreachable_reported_) {
      diags_.Warning(DiagKind::kUnreachableCode, s.range,
                     "this code is never run: the statement before it always leaves the block");
      first_unreachable_reported_ = true;
    }
    VisitExprs(s, [](const Expr&) {}, [](const Stmt& x) { const_cast<Stmt&>(x).reachable = false; });
    // Names declared in dead code are not reported as unused.
    VisitExprs(s, [](const Expr&) {}, [&](const Stmt& x) {
      if (auto* d = x.As<DeclStmt>()) d->binding->used = true;
    });
  }

  DiagnosticList& diags_;
  std::vector<const Binding*> bindings_;
  bool first_unreachable_reported_ = false;
};

}  // namespace

void CheckFlow(Program& program, DiagnosticList& diagnostics) {
  Flow flow(diagnostics);
  ForEachBody(program, [&](ast::Block& body, const FnParams* params) { flow.Body(body, params); });
}

}  // namespace uringc::sema
