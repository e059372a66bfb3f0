// See locate.h. A pre-order walk that records every identifier containing the offset and keeps
// the narrowest; subtrees whose range does not contain the offset are skipped.
#include "ast/locate.h"

namespace uringc::ast {
namespace {

class Locator {
 public:
  explicit Locator(uint32_t offset) : offset_(offset) {}

  void VisitFile(const ast::File& f) {
    for (const auto& d : f.decls)
      if (d) VisitDecl(*d);
  }
  const Located& result() const { return best_; }

 private:
  bool Contains(SourceRange r) const { return r.begin <= offset_ && offset_ <= r.end; }

  void Offer(Located candidate) {
    if (!Contains(candidate.range)) return;
    const uint32_t width = candidate.range.end - candidate.range.begin;
    if (best_.kind == Located::Kind::kNone || width < best_.range.end - best_.range.begin)
      best_ = candidate;
  }

  void Bind(const Binding* b) {
    if (b) Offer({.kind = Located::Kind::kBinding, .range = b->range, .binding = b});
  }
  void Bindings(const std::vector<std::unique_ptr<Binding>>& bs) {
    for (const auto& b : bs) Bind(b.get());
  }

  void VisitTypes(const std::vector<std::unique_ptr<TypeRef>>& types) {
    for (const auto& t : types) VisitType(t.get());
  }
  void VisitType(const TypeRef* t) {
    if (!t) return;
    Offer({.kind = Located::Kind::kType, .range = t->range, .type = t});
    VisitExpr(t->count.get());
    VisitExpr(t->size.get());
  }

  void VisitDecl(const ast::Decl& d) {
    Offer({.kind = Located::Kind::kDecl, .range = d.name_range, .decl = &d});
    if (!Contains(d.range)) return;
    if (auto* c = d.As<ConstDecl>()) {
      VisitType(c->type.get());
      VisitExpr(c->value.get());
    }
    if (auto* f = d.As<FnDecl>()) {
      Bindings(f->params);
      VisitTypes(f->param_types);
      VisitStmt(f->body.get());
    }
    if (auto* g = d.As<GraphDecl>()) {
      Bindings(g->params);
      Bindings(g->outputs);
      VisitTypes(g->param_types);
      VisitTypes(g->output_types);
      VisitStmt(g->body.get());
    }
  }

  void VisitWithin(const ast::Within* w) {
    if (!w) return;
    VisitExpr(w->duration.get());
    VisitStmt(w->action.get());
  }

  void VisitCall(const CallExpr* c) {
    if (!c) return;
    Offer({.kind = Located::Kind::kCallee, .range = c->callee_range, .call = c});
    for (const auto& a : c->args) VisitExpr(a.get());
    VisitWithin(c->within.get());
  }

  void VisitExpr(const ast::Expr* e) {
    if (!e || !Contains(e->range)) return;
    if (auto* n = e->As<NameExpr>())
      Offer({.kind = Located::Kind::kName, .range = n->range, .name = n});
    if (auto* c = e->As<CallExpr>()) VisitCall(c);
    if (auto* x = e->As<IndexExpr>()) { VisitExpr(x->base.get()); VisitExpr(x->index.get()); }
    if (auto* x = e->As<SliceExpr>()) {
      VisitExpr(x->base.get());
      VisitExpr(x->lo.get());
      VisitExpr(x->hi.get());
    }
    if (auto* x = e->As<PropagateExpr>()) VisitExpr(x->operand.get());
    if (auto* x = e->As<UnaryExpr>()) VisitExpr(x->operand.get());
    if (auto* x = e->As<BinaryExpr>()) { VisitExpr(x->lhs.get()); VisitExpr(x->rhs.get()); }
  }

  // `for i in lo..hi { }` and `parallel i in lo..hi { }`.
  template <class Loop>
  void VisitRangeLoop(const Loop& x) {
    Bind(x.var.get());
    VisitExpr(x.lo.get());
    VisitExpr(x.hi.get());
    VisitStmt(x.body.get());
  }

  void VisitStmt(const ast::Stmt* s) {
    if (!s) return;
    VisitWithin(s->within.get());
    if (!Contains(s->range)) return;
    if (auto* x = s->As<DeclStmt>()) {
      Bind(x->binding.get());
      VisitType(x->type.get());
      VisitExpr(x->init.get());
    }
    if (auto* x = s->As<AssignStmt>()) { VisitExpr(x->target.get()); VisitExpr(x->value.get()); }
    if (auto* x = s->As<ExprStmt>()) VisitExpr(x->expr.get());
    if (auto* x = s->As<IfStmt>()) {
      VisitExpr(x->cond.get());
      VisitStmt(x->then_block.get());
      VisitStmt(x->else_stmt.get());
    }
    if (auto* x = s->As<Block>())
      for (const auto& c : x->stmts) VisitStmt(c.get());
    if (auto* x = s->As<WhileStmt>()) { VisitExpr(x->cond.get()); VisitStmt(x->body.get()); }
    if (auto* x = s->As<LoopStmt>()) VisitStmt(x->body.get());
    if (auto* x = s->As<RepeatStmt>()) { VisitExpr(x->count.get()); VisitStmt(x->body.get()); }
    if (auto* x = s->As<ForStmt>()) VisitRangeLoop(*x);
    if (auto* x = s->As<ForEachStmt>()) {
      Bind(x->var.get());
      VisitCall(x->source.get());
      VisitStmt(x->body.get());
    }
    if (auto* x = s->As<ParallelStmt>()) VisitRangeLoop(*x);
    if (auto* x = s->As<AllStmt>()) VisitStmt(x->body.get());
    if (auto* x = s->As<AnyStmt>()) {
      for (const auto& arm : x->arms) {
        if (!arm) continue;
        VisitCall(arm->call.get());
        Bind(arm->binding.get());
        VisitStmt(arm->body.get());
      }
    }
    if (auto* x = s->As<TryStmt>()) {
      VisitStmt(x->body.get());
      Bind(x->error.get());
      VisitStmt(x->handler.get());
    }
    if (auto* x = s->As<JumpStmt>()) VisitExpr(x->value.get());
  }

  uint32_t offset_;
  Located best_;
};

}  // namespace

Located Locate(const File& file, uint32_t offset) {
  Locator l(offset);
  l.VisitFile(file);
  return l.result();
}

}  // namespace uringc::ast
