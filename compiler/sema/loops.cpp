// The `loops` pass. A loop may run without a bound only when every iteration awaits a request:
// the wait happens between two `loop_step` calls, so the BPF program itself never spins. A loop
// with a path back to its head that awaits nothing must have a constant bound (`repeat N`,
// `for i in A..B` with constants), because the verifier rejects loops it cannot bound.
// Also records has_request on every loop (code generation: state machine vs. bounded BPF loop).
#include "ast/visit.h"
#include "sema/passes.h"

namespace uringc::sema {
namespace {

using namespace ast;

// Whether evaluating `e` awaits (a request or a fn that awaits).
bool ExprAwaits(const Expr& e) {
  bool awaits = false;
  VisitExprs(e, [&](const Expr& x) {
    if (auto* c = x.As<CallExpr>()) {
      if (c->resolved.kind == Resolution::Kind::kRequest ||
          (c->resolved.kind == Resolution::Kind::kFn && c->resolved.fn->has_request))
        awaits = true;
    }
  });
  return awaits;
}

bool StmtContainsAwait(const Stmt& s) {
  bool awaits = false;
  VisitExprs(
      s, [&](const Expr& x) { awaits = awaits || ExprAwaits(x); },
      [&](const Stmt& st) { awaits = awaits || st.kind == Stmt::Kind::kForEach; });
  return awaits;
}

class Loops {
 public:
  explicit Loops(DiagnosticList& d) : diags_(d) {}

  void Walk(Stmt& s) {
    // Visit every statement; check each loop.
    VisitExprs(s, [](const Expr&) {}, [&](const Stmt& st) {
      auto& x = const_cast<Stmt&>(st);
      switch (x.kind) {
        case Stmt::Kind::kWhile: CheckLoop(x, *x.As<WhileStmt>()->body, false, "while",
                                           &x.As<WhileStmt>()->has_request); break;
        case Stmt::Kind::kLoop: CheckLoop(x, *x.As<LoopStmt>()->body, false, "loop",
                                          &x.As<LoopStmt>()->has_request); break;
        case Stmt::Kind::kRepeat: {
          auto& r = *x.As<RepeatStmt>();
          CheckLoop(x, *r.body, r.count->constant.has_value(), "repeat", &r.has_request);
          break;
        }
        case Stmt::Kind::kFor: {
          auto& f = *x.As<ForStmt>();
          CheckLoop(x, *f.body, f.lo->constant && f.hi->constant, "for", &f.has_request);
          break;
        }
        default: break;
      }
    });
  }

 private:
  // Does every path through `s` await before it completes normally or reaches `continue`?
  // `*bad` gets the first `continue` reached without an await.
  // Returns the "awaited" state after s, given `awaited` before it.
  bool Flow(const Stmt& s, bool awaited, const Stmt** bad) {
    auto expr = [&](const Expr* e) { return awaited || (e && ExprAwaits(*e)); };
    bool out = awaited;
    switch (s.kind) {
      case Stmt::Kind::kDecl: out = expr(s.As<DeclStmt>()->init.get()); break;
      case Stmt::Kind::kAssign:
        out = expr(s.As<AssignStmt>()->value.get()) || expr(s.As<AssignStmt>()->target.get());
        break;
      case Stmt::Kind::kExpr: out = expr(s.As<ExprStmt>()->expr.get()); break;
      case Stmt::Kind::kIf: {
        auto& x = *s.As<IfStmt>();
        const bool c = expr(x.cond.get());
        const bool t = Flow(*x.then_block, c, bad);
        const bool e = x.else_stmt ? Flow(*x.else_stmt, c, bad) : c;
        out = t && e;
        break;
      }
      case Stmt::Kind::kBlock:
        for (auto& st : s.As<Block>()->stmts) {
          out = Flow(*st, out, bad);
          if (st->kind == Stmt::Kind::kJump) break;
        }
        break;
      case Stmt::Kind::kJump: {
        auto& x = *s.As<JumpStmt>();
        if (x.jump == JumpStmt::Jump::kContinue && !expr(x.value.get()) && *bad == nullptr) {
          *bad = &s;
        }
        out = true;  // the path ends here: it never reaches the end of the body
        break;
      }
      case Stmt::Kind::kWhile: out = expr(s.As<WhileStmt>()->cond.get()); break;
      case Stmt::Kind::kRepeat: out = expr(s.As<RepeatStmt>()->count.get()); break;
      case Stmt::Kind::kFor: out = expr(s.As<ForStmt>()->lo.get()); break;
      case Stmt::Kind::kForEach: out = true; break;  // it awaits its first completion
      case Stmt::Kind::kLoop:
        // An inner loop may run zero times: only its own checks apply.
        break;
      case Stmt::Kind::kParallel:
      case Stmt::Kind::kAll:
      case Stmt::Kind::kAny:
      case Stmt::Kind::kTry:
        // A join or race awaits its tasks when any of them awaits.
        out = awaited || StmtContainsAwait(s);
        break;
    }
    if (s.within) out = true;  // a deadline arms an IORING_OP_TIMEOUT: an await
    return out;
  }

  void CheckLoop(Stmt& loop, const Block& body, bool constant_bound, const char* what,
                 bool* has_request) {
    *has_request = StmtContainsAwait(body);
    if (constant_bound) return;
    const Stmt* bad = nullptr;
    const bool end_awaited = Flow(body, false, &bad);
    if (end_awaited && bad == nullptr) return;
    const bool never = !*has_request;
    Diagnostic& d = diags_.Error(
        DiagKind::kUnboundedLoop, loop.range,
        std::string("`") + what + "` " +
            (never ? "contains no request" : "can start its next iteration without a request") +
            " and has no constant bound; the BPF verifier only accepts loops it can bound: "
            "await a request in every iteration, or use `repeat N` / `for i in A..B` with "
            "constants");
    if (bad) d.notes.push_back({bad->range, "this `continue` is reached without a request"});
  }

  DiagnosticList& diags_;
};

}  // namespace

void CheckLoops(Program& program, DiagnosticList& diagnostics) {
  Loops loops(diagnostics);
  ForEachBody(program, [&](ast::Block& body, const FnParams*) { loops.Walk(body); });
}

}  // namespace uringc::sema
