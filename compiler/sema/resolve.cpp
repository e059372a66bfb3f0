// The `resolve` pass: binds every name to what it denotes. Lookup order: local scopes (innermost
// first), the module's own `const`/`fn`, the `const`/`fn` of imported modules (two different
// ones is AmbiguousName), then predefined constants, requests, builtins and type casts. Also
// checks that `break`/`continue` sit in a loop of the same task and that `return e` is in a fn.
#include <algorithm>
#include <map>
#include <set>

#include "sema/passes.h"
#include "sema/requests.h"

namespace uringc::sema {
namespace {

using namespace ast;

class Resolver {
 public:
  Resolver(Program& p, DiagnosticList& d) : program_(p), diags_(d) {}

  void Run() {
    own_.resize(program_.modules.size());
    for (uint32_t m = 0; m < program_.modules.size(); ++m) CollectGlobals(m);
    for (uint32_t m = 0; m < program_.modules.size(); ++m) {
      module_ = m;
      if (!program_.modules[m].ast) continue;
      for (auto& decl : program_.modules[m].ast->decls) ResolveDecl(*decl);
    }
  }

 private:
  void CollectGlobals(uint32_t m) {
    if (!program_.modules[m].ast) return;
    for (auto& decl : program_.modules[m].ast->decls) {
      if (decl->kind == Decl::Kind::kImport) continue;
      auto [it, inserted] = own_[m].emplace(decl->name, decl.get());
      if (!inserted) {
        Diagnostic& d = diags_.Error(DiagKind::kRedefinition, decl->name_range,
                                     "`" + decl->name + "` is already defined in this module");
        d.notes.push_back({it->second->name_range, "previous definition here"});
      }
    }
  }

  // ----- declarations -----
  void ResolveDecl(Decl& decl) {
    next_id_ = 1;
    scopes_.clear();
    loop_depth_ = 0;
    if (auto* c = decl.As<ConstDecl>()) {
      if (c->type) ResolveType(*c->type);
      ResolveExpr(*c->value);
    } else if (auto* f = decl.As<FnDecl>()) {
      in_fn_ = true;
      Push();
      for (size_t i = 0; i < f->params.size(); ++i) {
        ResolveType(*f->param_types[i]);
        Declare(*f->params[i]);
      }
      if (f->result) ResolveType(*f->result);
      ResolveBlock(*f->body, /*new_scope=*/false);
      Pop();
    } else if (auto* g = decl.As<GraphDecl>()) {
      in_fn_ = false;
      Push();
      for (size_t i = 0; i < g->params.size(); ++i) {
        ResolveType(*g->param_types[i]);
        Declare(*g->params[i]);
      }
      for (size_t i = 0; i < g->outputs.size(); ++i) {
        ResolveType(*g->output_types[i]);
        Declare(*g->outputs[i]);
      }
      ResolveBlock(*g->body, /*new_scope=*/false);
      Pop();
    }
  }

  void ResolveType(TypeRef& t) {
    const bool qualified_ok = t.qualifier.empty() || t.qualifier == "shared" ||
                              (t.qualifier == "provided" && t.name.empty());
    if (!qualified_ok || (!t.qualifier.empty() && !t.name.empty() && t.name != "bytes")) {
      diags_.Error(DiagKind::kNotAType, t.qualifier_range,
                   "`" + t.qualifier + " " + (t.name.empty() ? "buffers" : t.name) +
                       "` is not a type")
          .notes.push_back({t.qualifier_range,
                            "the qualifiers are `shared`, on `buffers[N] of SIZE` (graph "
                            "parameters in the ring's parameter region) and on `bytes` (a view "
                            "into them), and `provided`, on `buffers[N] of SIZE` (a pool the "
                            "kernel picks from, for `recv_each`)"});
      return;
    }
    if (t.name.empty()) {  // buffers[count] of size: checked in the types pass
      if (t.count) ResolveExpr(*t.count);
      if (t.size) ResolveExpr(*t.size);
      return;
    }
    if (auto type = TypeByName(t.name)) {
      t.resolved = *type;
      if (!t.qualifier.empty()) t.resolved.mem = Type::Mem::kShared;
    } else {
      diags_.Error(DiagKind::kNotAType, t.range, "`" + t.name + "` is not a type")
          .notes.push_back({t.range,
                            "types are u8..u64, i8..i64, bool, fd, duration, bytes, shared bytes "
                            "and `[shared] buffers[N] of SIZE`"});
    }
  }

  // ----- scopes -----
  void Push() { scopes_.emplace_back(); }
  void Pop() { scopes_.pop_back(); }
  void Declare(Binding& b) {
    b.id = next_id_++;
    auto [it, inserted] = scopes_.back().emplace(b.name, &b);
    if (!inserted) {
      Diagnostic& d = diags_.Error(DiagKind::kRedefinition, b.range,
                                   "`" + b.name + "` is already declared in this block");
      d.notes.push_back({it->second->range, "previous declaration here"});
      it->second = &b;
    }
  }

  Binding* LookupLocal(const std::string& name) {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
      auto it = s->find(name);
      if (it != s->end()) return it->second;
    }
    return nullptr;
  }

  // A module-level const or fn visible from the current module; `ambiguous` when two imports
  // define it. Graphs are entry points and not visible as names.
  const Decl* LookupGlobal(const std::string& name, SourceRange use, bool* failed) {
    auto own = own_[module_].find(name);
    if (own != own_[module_].end()) return own->second;
    std::vector<const Decl*> found;
    for (uint32_t imp : program_.modules[module_].imports) {
      auto it = own_[imp].find(name);
      if (it == own_[imp].end() || it->second->kind == Decl::Kind::kGraph) continue;
      if (std::find(found.begin(), found.end(), it->second) == found.end())
        found.push_back(it->second);
    }
    if (found.size() > 1) {
      Diagnostic& d = diags_.Error(DiagKind::kAmbiguousName, use,
                                   "`" + name + "` is defined by more than one import");
      for (const Decl* decl : found) d.notes.push_back({decl->name_range, "defined here"});
      *failed = true;
      return nullptr;
    }
    return found.empty() ? nullptr : found.front();
  }

  // ----- statements -----
  void ResolveBlock(Block& b, bool new_scope = true) {
    if (new_scope) Push();
    for (auto& s : b.stmts) ResolveStmt(*s);
    if (new_scope) Pop();
  }

  void ResolveWithin(Within* w) {
    if (!w) return;
    ResolveExpr(*w->duration);
    if (w->action) ResolveStmt(*w->action);
  }

  // A loop body or a concurrent task: loops outside a task are not reachable by break.
  void InLoop(Block& body) {
    ++loop_depth_;
    ResolveBlock(body);
    --loop_depth_;
  }
  void InTask(Stmt& body) {
    const int saved = loop_depth_;
    loop_depth_ = 0;
    ResolveStmt(body);
    loop_depth_ = saved;
  }

  void ResolveStmt(Stmt& s) {
    switch (s.kind) {
      case Stmt::Kind::kDecl: {
        auto& x = *s.As<DeclStmt>();
        if (x.type) ResolveType(*x.type);
        if (x.init) ResolveExpr(*x.init);
        Declare(*x.binding);
        break;
      }
      case Stmt::Kind::kAssign: {
        auto& x = *s.As<AssignStmt>();
        ResolveExpr(*x.value);
        ResolveExpr(*x.target, /*is_read=*/false);
        break;
      }
      case Stmt::Kind::kExpr: ResolveExpr(*s.As<ExprStmt>()->expr); break;
      case Stmt::Kind::kIf: {
        auto& x = *s.As<IfStmt>();
        ResolveExpr(*x.cond);
        ResolveBlock(*x.then_block);
        if (x.else_stmt) ResolveStmt(*x.else_stmt);
        break;
      }
      case Stmt::Kind::kBlock: ResolveBlock(*s.As<Block>()); break;
      case Stmt::Kind::kWhile:
        ResolveExpr(*s.As<WhileStmt>()->cond);
        InLoop(*s.As<WhileStmt>()->body);
        break;
      case Stmt::Kind::kLoop: InLoop(*s.As<LoopStmt>()->body); break;
      case Stmt::Kind::kRepeat:
        ResolveExpr(*s.As<RepeatStmt>()->count);
        InLoop(*s.As<RepeatStmt>()->body);
        break;
      case Stmt::Kind::kFor: {
        auto& x = *s.As<ForStmt>();
        ResolveExpr(*x.lo);
        ResolveExpr(*x.hi);
        Push();
        Declare(*x.var);
        InLoop(*x.body);
        Pop();
        break;
      }
      case Stmt::Kind::kForEach: {
        auto& x = *s.As<ForEachStmt>();
        if (x.source->callee != "recv_each") {
          diags_.Error(DiagKind::kUndefinedName, x.source->callee_range,
                       "`" + x.source->callee + "` is not a stream")
              .notes.push_back({x.source->callee_range,
                                "a `for` loop takes a range `a..b` or the stream "
                                "`recv_each(socket, pool)`"});
        }
        for (auto& a : x.source->args) ResolveExpr(*a);
        if (Within* w = x.source->within.get()) {
          ResolveExpr(*w->duration);
          ++loop_depth_;  // its ACTION runs inside the loop: `break` leaves it
          if (w->action) ResolveStmt(*w->action);
          --loop_depth_;
        }
        Push();
        Declare(*x.var);
        InLoop(*x.body);
        Pop();
        break;
      }
      case Stmt::Kind::kParallel: {
        auto& x = *s.As<ParallelStmt>();
        ResolveExpr(*x.lo);
        ResolveExpr(*x.hi);
        Push();
        Declare(*x.var);
        InTask(*x.body);
        Pop();
        break;
      }
      case Stmt::Kind::kAll:
        Push();
        for (auto& branch : s.As<AllStmt>()->body->stmts) InTask(*branch);
        Pop();
        break;
      case Stmt::Kind::kAny:
        for (auto& arm : s.As<AnyStmt>()->arms) {
          ResolveExpr(*arm->call);
          Push();
          if (arm->binding) Declare(*arm->binding);
          ResolveBlock(*arm->body);
          Pop();
        }
        break;
      case Stmt::Kind::kTry: {
        auto& x = *s.As<TryStmt>();
        ResolveBlock(*x.body);
        Push();
        Declare(*x.error);
        ResolveBlock(*x.handler);
        Pop();
        break;
      }
      case Stmt::Kind::kJump: {
        auto& x = *s.As<JumpStmt>();
        if (x.value) ResolveExpr(*x.value);
        if ((x.jump == JumpStmt::Jump::kBreak || x.jump == JumpStmt::Jump::kContinue) &&
            loop_depth_ == 0) {
          diags_
              .Error(DiagKind::kBreakOutsideLoop, x.range,
                     std::string("`") + (x.jump == JumpStmt::Jump::kBreak ? "break" : "continue") +
                         "` is not inside a loop of this task")
              .notes.push_back({x.range,
                                "a concurrent branch (`parallel`, `all`) cannot leave a "
                                "loop outside it"});
        }
        if (x.jump == JumpStmt::Jump::kReturn && x.value && !in_fn_) {
          diags_.Error(DiagKind::kBadReturn, x.range,
                       "`return` with a value outside a `fn`; graphs report through outputs");
        }
        break;
      }
    }
    ResolveWithin(s.within.get());
  }

  // ----- expressions -----
  void ResolveExpr(Expr& e, bool is_read = true) {
    switch (e.kind) {
      case Expr::Kind::kInt:
      case Expr::Kind::kString:
      case Expr::Kind::kBool: break;
      case Expr::Kind::kName: ResolveName(*e.As<NameExpr>(), is_read); break;
      case Expr::Kind::kCall: ResolveCall(*e.As<CallExpr>()); break;
      case Expr::Kind::kIndex:
        ResolveExpr(*e.As<IndexExpr>()->base);
        ResolveExpr(*e.As<IndexExpr>()->index);
        break;
      case Expr::Kind::kSlice: {
        auto& x = *e.As<SliceExpr>();
        ResolveExpr(*x.base);
        if (x.lo) ResolveExpr(*x.lo);
        if (x.hi) ResolveExpr(*x.hi);
        break;
      }
      case Expr::Kind::kPropagate: ResolveExpr(*e.As<PropagateExpr>()->operand); break;
      case Expr::Kind::kUnary: ResolveExpr(*e.As<UnaryExpr>()->operand); break;
      case Expr::Kind::kBinary:
        ResolveExpr(*e.As<BinaryExpr>()->lhs);
        ResolveExpr(*e.As<BinaryExpr>()->rhs);
        break;
    }
  }

  void ResolveName(NameExpr& n, bool is_read) {
    if (Binding* b = LookupLocal(n.name)) {
      n.resolved.kind = Resolution::Kind::kBinding;
      n.resolved.binding = b;
      if (is_read) b->used = true;
      return;
    }
    bool failed = false;
    if (const Decl* g = LookupGlobal(n.name, n.range, &failed)) {
      if (auto* c = g->As<ConstDecl>()) {
        n.resolved.kind = Resolution::Kind::kConst;
        n.resolved.constant = c;
        const_cast<ConstDecl*>(c)->used = true;
        return;
      }
      diags_.Error(DiagKind::kUndefinedName, n.range,
                   "`" + n.name + "` is a " + (g->kind == Decl::Kind::kFn ? "fn" : "graph") +
                       ", not a value; call it with `" + n.name + "(...)`");
      return;
    }
    if (failed) return;
    int index = -1;
    if (FindBuiltinConst(n.name, &index)) {
      n.resolved.kind = Resolution::Kind::kBuiltinConst;
      n.resolved.builtin_id = index;
      return;
    }
    diags_.Error(DiagKind::kUndefinedName, n.range,
                 "no variable or constant named `" + n.name + "`");
  }

  void ResolveCall(CallExpr& c) {
    for (auto& a : c.args) ResolveExpr(*a);
    if (c.within) {
      ResolveExpr(*c.within->duration);
      if (c.within->action) ResolveStmt(*c.within->action);
    }
    if (Binding* b = LookupLocal(c.callee)) {
      diags_
          .Error(DiagKind::kNotCallable, c.callee_range,
                 "`" + c.callee + "` is a variable, not a fn")
          .notes.push_back({b->range, "declared here"});
      return;
    }
    bool failed = false;
    if (const Decl* g = LookupGlobal(c.callee, c.callee_range, &failed)) {
      if (auto* f = g->As<FnDecl>()) {
        c.resolved.kind = Resolution::Kind::kFn;
        c.resolved.fn = f;
        return;
      }
      diags_
          .Error(DiagKind::kNotCallable, c.callee_range,
                 "`" + c.callee + "` is a " +
                     (g->kind == Decl::Kind::kConst ? "constant" : "graph") +
                     "; only fns, requests and builtins can be called")
          .notes.push_back({g->name_range, "defined here"});
      return;
    }
    if (failed) return;
    if (const RequestSignature* r = FindRequest(c.callee)) {
      c.resolved.kind = Resolution::Kind::kRequest;
      c.resolved.builtin_id = static_cast<int>(r->kind);
      return;
    }
    if (auto b = FindBuiltinFn(c.callee)) {
      c.resolved.kind = Resolution::Kind::kBuiltinFn;
      c.resolved.builtin_id = static_cast<int>(*b);
      return;
    }
    if (auto t = TypeByName(c.callee); t && t->kind != Type::Kind::kBytes) {
      c.resolved.kind = Resolution::Kind::kTypeCast;
      c.resolved.cast_type = *t;
      return;
    }
    diags_.Error(DiagKind::kUndefinedName, c.callee_range,
                 "no fn or request named `" + c.callee + "`" +
                     (c.callee.find("_all") != std::string::npos ||
                              c.callee.find("_exact") != std::string::npos
                          ? " (is an `import std.io` or `import std.net` missing?)"
                          : ""));
  }

  Program& program_;
  DiagnosticList& diags_;
  std::vector<std::map<std::string, const Decl*>> own_;
  std::vector<std::map<std::string, Binding*>> scopes_;
  uint32_t module_ = 0;
  uint32_t next_id_ = 1;
  int loop_depth_ = 0;
  bool in_fn_ = false;
};

}  // namespace

void ResolveNames(Program& program, DiagnosticList& diagnostics) {
  Resolver(program, diagnostics).Run();
}

}  // namespace uringc::sema
