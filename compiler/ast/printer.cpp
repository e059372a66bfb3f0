// The AST printer (see printer.h): a recursive walk writing `Kind details @line:col [: type]`.
#include "ast/printer.h"

namespace uringc::ast {
namespace {

class Printer {
 public:
  explicit Printer(const SourceManager& sources) : sources_(sources) {}
  std::string out;

  void Line(int depth, const std::string& text, const SourceRange& r, const Type* t = nullptr) {
    out.append(depth * 2, ' ');
    out += text;
    if (const SourceFile* f = sources_.Get(r.file)) {
      LineCol lc = f->LineColOf(r.begin);
      out += " @" + std::to_string(lc.line) + ":" + std::to_string(lc.column);
    }
    if (t && t->kind != Type::Kind::kError) out += " : " + t->ToString();
    out += '\n';
  }

  void BindingLine(int d, const char* what, const Binding& b, const TypeRef* t) {
    std::string text = std::string(what) + " " + b.name;
    if (t) text += " as " + (t->name.empty() ? std::string("buffers") : t->name);
    Line(d, text, b.range, &b.type);
    if (t && t->count) {
      Expr(d + 1, *t->count);
      Expr(d + 1, *t->size);
    }
  }

  void Decl(int d, const ast::Decl& decl) {
    if (auto* i = decl.As<ImportDecl>()) return Line(d, "Import " + i->name, i->range);
    if (auto* c = decl.As<ConstDecl>()) {
      Line(d, "Const " + c->name, c->range);
      return Expr(d + 1, *c->value);
    }
    if (auto* f = decl.As<FnDecl>()) {
      Line(d, "Fn " + f->name + " -> " + f->result_type.ToString(), f->range);
      for (size_t i = 0; i < f->params.size(); ++i)
        BindingLine(d + 1, "Param", *f->params[i], f->param_types[i].get());
      return Stmt(d + 1, *f->body);
    }
    if (auto* g = decl.As<GraphDecl>()) {
      Line(d, "Graph " + g->name, g->range);
      for (size_t i = 0; i < g->params.size(); ++i)
        BindingLine(d + 1, "Param", *g->params[i], g->param_types[i].get());
      for (size_t i = 0; i < g->outputs.size(); ++i)
        BindingLine(d + 1, "Output", *g->outputs[i], g->output_types[i].get());
      return Stmt(d + 1, *g->body);
    }
  }

  void WithinNode(int d, const Within* w) {
    if (!w) return;
    Line(d, "Within", w->range);
    Expr(d + 1, *w->duration);
    if (w->action) Stmt(d + 1, *w->action);
  }

  void Stmt(int d, const ast::Stmt& s) {
    std::string unreachable = s.reachable ? "" : " (unreachable)";
    switch (s.kind) {
      case ast::Stmt::Kind::kDecl: {
        auto& x = *s.As<DeclStmt>();
        BindingLine(d, x.binding->kind == Binding::Kind::kVar ? "Var" : "Let", *x.binding,
                    x.type.get());
        if (x.init) Expr(d + 1, *x.init);
        break;
      }
      case ast::Stmt::Kind::kAssign: {
        auto& x = *s.As<AssignStmt>();
        Line(d, "Assign " + AssignSpelling(x.compound_op) + unreachable, x.range);
        Expr(d + 1, *x.target);
        Expr(d + 1, *x.value);
        break;
      }
      case ast::Stmt::Kind::kExpr:
        Line(d, "ExprStmt" + unreachable, s.range);
        Expr(d + 1, *s.As<ExprStmt>()->expr);
        break;
      case ast::Stmt::Kind::kIf: {
        auto& x = *s.As<IfStmt>();
        Line(d, "If" + unreachable, x.range);
        Expr(d + 1, *x.cond);
        Stmt(d + 1, *x.then_block);
        if (x.else_stmt) Stmt(d + 1, *x.else_stmt);
        break;
      }
      case ast::Stmt::Kind::kBlock:
        Line(d, "Block" + unreachable, s.range);
        for (auto& st : s.As<Block>()->stmts) Stmt(d + 1, *st);
        break;
      case ast::Stmt::Kind::kWhile:
        Line(d, "While" + unreachable, s.range);
        Expr(d + 1, *s.As<WhileStmt>()->cond);
        Stmt(d + 1, *s.As<WhileStmt>()->body);
        break;
      case ast::Stmt::Kind::kLoop:
        Line(d, "Loop" + unreachable, s.range);
        Stmt(d + 1, *s.As<LoopStmt>()->body);
        break;
      case ast::Stmt::Kind::kRepeat:
        Line(d, "Repeat" + unreachable, s.range);
        Expr(d + 1, *s.As<RepeatStmt>()->count);
        Stmt(d + 1, *s.As<RepeatStmt>()->body);
        break;
      case ast::Stmt::Kind::kFor: {
        auto& x = *s.As<ForStmt>();
        Line(d, "For " + x.var->name + unreachable, x.range);
        Expr(d + 1, *x.lo);
        Expr(d + 1, *x.hi);
        Stmt(d + 1, *x.body);
        break;
      }
      case ast::Stmt::Kind::kForEach: {
        auto& x = *s.As<ForEachStmt>();
        Line(d, "ForEach " + x.var->name + unreachable, x.range);
        Expr(d + 1, *x.source);
        Stmt(d + 1, *x.body);
        break;
      }
      case ast::Stmt::Kind::kParallel: {
        auto& x = *s.As<ParallelStmt>();
        Line(d, "Parallel " + x.var->name + unreachable, x.range);
        Expr(d + 1, *x.lo);
        Expr(d + 1, *x.hi);
        Stmt(d + 1, *x.body);
        break;
      }
      case ast::Stmt::Kind::kAll:
        Line(d, "All" + unreachable, s.range);
        Stmt(d + 1, *s.As<AllStmt>()->body);
        break;
      case ast::Stmt::Kind::kAny:
        Line(d, "Any" + unreachable, s.range);
        for (auto& arm : s.As<AnyStmt>()->arms) {
          Line(d + 1, "Arm" + (arm->binding ? " as " + arm->binding->name : ""), arm->range);
          Expr(d + 2, *arm->call);
          Stmt(d + 2, *arm->body);
        }
        break;
      case ast::Stmt::Kind::kTry: {
        auto& x = *s.As<TryStmt>();
        Line(d, "Try catch " + x.error->name + unreachable, x.range);
        Stmt(d + 1, *x.body);
        Stmt(d + 1, *x.handler);
        break;
      }
      case ast::Stmt::Kind::kJump: {
        static const char* kNames[] = {"Break", "Continue", "Stop", "Fail", "Return"};
        auto& x = *s.As<JumpStmt>();
        Line(d, kNames[static_cast<int>(x.jump)] + unreachable, x.range);
        if (x.value) Expr(d + 1, *x.value);
        break;
      }
    }
    WithinNode(d + 1, s.within.get());
  }

  static const char* BoundsName(Bounds b) {
    return b == Bounds::kProven ? " proven" : b == Bounds::kRuntime ? " clamp" : "";
  }

  void Expr(int d, const ast::Expr& e) {
    switch (e.kind) {
      case ast::Expr::Kind::kInt: {
        auto& x = *e.As<IntLit>();
        Line(d, "Int " + std::to_string(x.value) + (x.unit.empty() ? "" : " " + x.unit), x.range,
             &e.type);
        break;
      }
      case ast::Expr::Kind::kBool:
        Line(d, std::string("Bool ") + (e.As<BoolLit>()->value ? "true" : "false"), e.range,
             &e.type);
        break;
      case ast::Expr::Kind::kName:
        Line(d, "Name " + e.As<NameExpr>()->name, e.range, &e.type);
        break;
      case ast::Expr::Kind::kString:
        Line(d, "String " + std::to_string(e.As<StringLit>()->value.size()) + " bytes", e.range,
             &e.type);
        break;
      case ast::Expr::Kind::kCall: {
        auto& x = *e.As<CallExpr>();
        Line(d, "Call " + x.callee, x.range, &e.type);
        for (auto& a : x.args) Expr(d + 1, *a);
        WithinNode(d + 1, x.within.get());
        break;
      }
      case ast::Expr::Kind::kIndex: {
        auto& x = *e.As<IndexExpr>();
        Line(d, std::string("Index") + BoundsName(x.bounds), x.range, &e.type);
        Expr(d + 1, *x.base);
        Expr(d + 1, *x.index);
        break;
      }
      case ast::Expr::Kind::kSlice: {
        auto& x = *e.As<SliceExpr>();
        Line(d, std::string("Slice") + BoundsName(x.bounds), x.range, &e.type);
        Expr(d + 1, *x.base);
        if (x.lo) Expr(d + 1, *x.lo); else Line(d + 1, "(start)", x.range);
        if (x.hi) Expr(d + 1, *x.hi); else Line(d + 1, "(end)", x.range);
        break;
      }
      case ast::Expr::Kind::kPropagate:
        Line(d, "Propagate", e.range, &e.type);
        Expr(d + 1, *e.As<PropagateExpr>()->operand);
        break;
      case ast::Expr::Kind::kUnary:
        Line(d, "Unary " + std::string(Spelling(e.As<UnaryExpr>()->op)), e.range, &e.type);
        Expr(d + 1, *e.As<UnaryExpr>()->operand);
        break;
      case ast::Expr::Kind::kBinary:
        Line(d, "Binary " + std::string(Spelling(e.As<BinaryExpr>()->op)), e.range, &e.type);
        Expr(d + 1, *e.As<BinaryExpr>()->lhs);
        Expr(d + 1, *e.As<BinaryExpr>()->rhs);
        break;
    }
  }

 private:
  const SourceManager& sources_;
};

}  // namespace

std::string PrintAst(const File& file, const SourceManager& sources) {
  Printer p(sources);
  p.out = "File\n";
  for (auto& d : file.decls) p.Decl(1, *d);
  return p.out;
}

}  // namespace uringc::ast
