// See visit.h.
#include "ast/visit.h"

namespace uringc::ast {
namespace {

using ExprFn = std::function<void(const Expr&)>;
using StmtFn = std::function<void(const Stmt&)>;

void VisitWithin(const ast::Within* w, const ExprFn& e, const StmtFn& s) {
  if (!w) return;
  VisitExprs(*w->duration, e, s);
  if (w->action) VisitExprs(*w->action, e, s);
}

}  // namespace

void VisitExprs(const Expr& e, const ExprFn& f, const StmtFn& s) {
  f(e);
  switch (e.kind) {
    case Expr::Kind::kInt:
    case Expr::Kind::kBool:
    case Expr::Kind::kString:
    case Expr::Kind::kName: break;
    case Expr::Kind::kCall: {
      auto& c = *e.As<CallExpr>();
      for (auto& a : c.args) VisitExprs(*a, f, s);
      VisitWithin(c.within.get(), f, s);
      break;
    }
    case Expr::Kind::kIndex:
      VisitExprs(*e.As<IndexExpr>()->base, f, s);
      VisitExprs(*e.As<IndexExpr>()->index, f, s);
      break;
    case Expr::Kind::kSlice: {
      auto& x = *e.As<SliceExpr>();
      VisitExprs(*x.base, f, s);
      if (x.lo) VisitExprs(*x.lo, f, s);
      if (x.hi) VisitExprs(*x.hi, f, s);
      break;
    }
    case Expr::Kind::kPropagate: VisitExprs(*e.As<PropagateExpr>()->operand, f, s); break;
    case Expr::Kind::kUnary: VisitExprs(*e.As<UnaryExpr>()->operand, f, s); break;
    case Expr::Kind::kBinary:
      VisitExprs(*e.As<BinaryExpr>()->lhs, f, s);
      VisitExprs(*e.As<BinaryExpr>()->rhs, f, s);
      break;
  }
}

void VisitExprs(const Stmt& st, const ExprFn& f, const StmtFn& s) {
  if (s) s(st);
  switch (st.kind) {
    case Stmt::Kind::kDecl:
      if (auto& i = st.As<DeclStmt>()->init) VisitExprs(*i, f, s);
      break;
    case Stmt::Kind::kAssign:
      VisitExprs(*st.As<AssignStmt>()->target, f, s);
      VisitExprs(*st.As<AssignStmt>()->value, f, s);
      break;
    case Stmt::Kind::kExpr: VisitExprs(*st.As<ExprStmt>()->expr, f, s); break;
    case Stmt::Kind::kIf: {
      auto& x = *st.As<IfStmt>();
      VisitExprs(*x.cond, f, s);
      VisitExprs(*x.then_block, f, s);
      if (x.else_stmt) VisitExprs(*x.else_stmt, f, s);
      break;
    }
    case Stmt::Kind::kBlock:
      for (auto& c : st.As<Block>()->stmts) VisitExprs(*c, f, s);
      break;
    case Stmt::Kind::kWhile:
      VisitExprs(*st.As<WhileStmt>()->cond, f, s);
      VisitExprs(*st.As<WhileStmt>()->body, f, s);
      break;
    case Stmt::Kind::kLoop: VisitExprs(*st.As<LoopStmt>()->body, f, s); break;
    case Stmt::Kind::kRepeat:
      VisitExprs(*st.As<RepeatStmt>()->count, f, s);
      VisitExprs(*st.As<RepeatStmt>()->body, f, s);
      break;
    case Stmt::Kind::kFor:
      VisitExprs(*st.As<ForStmt>()->lo, f, s);
      VisitExprs(*st.As<ForStmt>()->hi, f, s);
      VisitExprs(*st.As<ForStmt>()->body, f, s);
      break;
    case Stmt::Kind::kForEach:
      for (auto& a : st.As<ForEachStmt>()->source->args) VisitExprs(*a, f, s);
      VisitWithin(st.As<ForEachStmt>()->source->within.get(), f, s);
      VisitExprs(*st.As<ForEachStmt>()->body, f, s);
      break;
    case Stmt::Kind::kParallel:
      VisitExprs(*st.As<ParallelStmt>()->lo, f, s);
      VisitExprs(*st.As<ParallelStmt>()->hi, f, s);
      VisitExprs(*st.As<ParallelStmt>()->body, f, s);
      break;
    case Stmt::Kind::kAll: VisitExprs(*st.As<AllStmt>()->body, f, s); break;
    case Stmt::Kind::kAny:
      for (auto& arm : st.As<AnyStmt>()->arms) {
        VisitExprs(*arm->call, f, s);
        VisitExprs(*arm->body, f, s);
      }
      break;
    case Stmt::Kind::kTry:
      VisitExprs(*st.As<TryStmt>()->body, f, s);
      VisitExprs(*st.As<TryStmt>()->handler, f, s);
      break;
    case Stmt::Kind::kJump:
      if (auto& v = st.As<JumpStmt>()->value) VisitExprs(*v, f, s);
      break;
  }
  VisitWithin(st.within.get(), f, s);
}

}  // namespace uringc::ast
