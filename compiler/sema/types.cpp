// The `types` pass: computes the type of every expression and folds constants, then checks each
// use against what it needs (docs/language.md sections 3-11). Integer literals stay untyped
// (`IntLit`) until a context fixes their width; `let x = 5` defaults to u64 (i64 if negative).
// This file: the pass's order, signatures, constants and statements; expressions are in
// types_expr.cpp, the Checker they share in type_checker.h.
#include "sema/type_checker.h"

namespace uringc::sema {
namespace types_internal {

void Checker::Run() {
  // Fn signatures first: calls may precede the fn they call. Then the constants, which graph
  // signatures (`buffers[N] of SIZE`) may name, in dependency order (const_order.cpp).
  for (auto& m : program_.modules) {
    if (!m.ast) continue;
    for (auto& decl : m.ast->decls) {
      if (auto* f = decl->As<FnDecl>()) CheckFnSignature(*f);
    }
  }
  for (ConstDecl* c : OrderConstants(program_, cycle_names_)) CheckConst(*c);
  for (auto& m : program_.modules) {
    if (!m.ast) continue;
    for (auto& decl : m.ast->decls) {
      if (auto* g = decl->As<GraphDecl>()) CheckGraphSignature(*g);
    }
  }
  for (auto& m : program_.modules) {
    if (!m.ast) continue;
    for (auto& decl : m.ast->decls) {
      if (auto* f = decl->As<FnDecl>()) {
        fn_ = f;
        CheckBlock(*f->body);
      }
      if (auto* g = decl->As<GraphDecl>()) {
        fn_ = nullptr;
        CheckBlock(*g->body);
      }
    }
  }
}

Type Checker::ResolveTypeRef(TypeRef& t, bool allow_buffers, const char* where) {
  if (!t.name.empty()) return t.resolved;  // named (resolve pass); Error if unknown
  if (!allow_buffers) {
    diags_.Error(DiagKind::kBadBuffers, t.range,
                 std::string("`buffers` cannot be ") + where +
                     "; only graph parameters are buffers (use `bytes` for a view)");
    return Type::Error();
  }
  uint64_t count = 0, size = 0;
  if (!ConstantCount(*t.count, "buffer count", 1, 65536, &count) ||
      !ConstantCount(*t.size, "buffer size", 1, 1ull << 30, &size)) {
    return Type::Error();
  }
  t.resolved = Type::Buffers(static_cast<uint32_t>(count), size,
                             t.qualifier.empty()          ? Type::Mem::kHost
                             : t.qualifier == "provided" ? Type::Mem::kProvided
                                                          : Type::Mem::kShared);
  if (t.resolved.mem == Type::Mem::kProvided &&
      (count > kMaxProvidedBuffers || (count & (count - 1)) != 0 || size > UINT32_MAX)) {
    diags_.Error(DiagKind::kBadBuffers, t.range,
                 "a provided pool is a power of two of buffers, at most " +
                     std::to_string(kMaxProvidedBuffers) +
                     " (the kernel's buffer ring), not " + std::to_string(count));
    return Type::Error();
  }
  if (t.resolved.mem != Type::Mem::kHost && count * size > kMaxSharedBytes) {
    diags_.Error(DiagKind::kBadBuffers, t.range,
                 "shared buffers live in the ring's parameter region, which holds at most " +
                     std::to_string(kMaxSharedBytes >> 20) + " MiB; these are " +
                     std::to_string(count * size) + " bytes");
    return Type::Error();
  }
  return t.resolved;
}

bool Checker::ConstantCount(Expr& e, const char* what, uint64_t min, uint64_t max, uint64_t* out) {
  Type t = Check(e);
  if (t.IsError()) return false;
  if (!t.IsInteger() || !e.constant) {
    diags_.Error(e.constant ? DiagKind::kTypeMismatch : DiagKind::kNotConstant, e.range,
                 std::string("the ") + what + " must be a constant integer");
    return false;
  }
  const uint64_t v = e.constant->bits;
  if ((t.is_signed && e.constant->AsSigned() < 0) || v < min || v > max) {
    diags_.Error(DiagKind::kBadBuffers, e.range,
                 std::string("the ") + what + " must be between " + std::to_string(min) + " and " +
                     std::to_string(max) + ", not " + std::to_string(e.constant->AsSigned()));
    return false;
  }
  *out = v;
  return true;
}

void Checker::CheckFnSignature(FnDecl& f) {
  for (size_t i = 0; i < f.params.size(); ++i) {
    f.params[i]->type = ResolveTypeRef(*f.param_types[i], false, "passed to a fn");
  }
  if (f.result) {
    Type r = ResolveTypeRef(*f.result, false, "returned");
    if (!r.IsError() && !r.IsResult()) {
      diags_.Error(DiagKind::kBadReturnType, f.result->range,
                   "a fn returns a signed integer or `fd` (negative values are errors), not `" +
                       r.ToString() + "`");
    } else if (!r.IsError()) {
      f.result_type = r;
    }
  }
}

void Checker::CheckGraphSignature(GraphDecl& g) {
  uint64_t shared = 0;
  int provided = 0;
  for (size_t i = 0; i < g.params.size(); ++i) {
    Type t = ResolveTypeRef(*g.param_types[i], true, "");
    if (t.kind == Type::Kind::kBytes) {
      diags_.Error(DiagKind::kBadBuffers, g.param_types[i]->range,
                   "a graph parameter cannot be `bytes`; declare `buffers[N] of SIZE`");
      t = Type::Error();
    }
    g.params[i]->type = t;
    if (t.IsBuffers(Type::Mem::kProvided) && ++provided > 1) {
      diags_.Error(DiagKind::kBadBuffers, g.param_types[i]->range,
                   "a graph has at most one `provided` pool (one buffer ring); share it "
                   "between its streams");
    }
    if (t.kind == Type::Kind::kBuffers && t.mem != Type::Mem::kHost) {
      shared += t.count * t.size;
      if (shared > kMaxSharedBytes) {
        diags_.Error(DiagKind::kBadBuffers, g.param_types[i]->range,
                     "the graph's shared buffers together exceed the " +
                         std::to_string(kMaxSharedBytes >> 20) +
                         " MiB the ring's parameter region holds");
      }
    }
  }
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    Type t = ResolveTypeRef(*g.output_types[i], false, "an output");
    if (t.kind == Type::Kind::kBytes) {
      diags_.Error(DiagKind::kTypeMismatch, g.output_types[i]->range,
                   "an output is an integer, `bool`, `fd` or `duration`, not `bytes`");
      t = Type::Error();
    }
    g.outputs[i]->type = t;
  }
}

void Checker::CheckConst(ConstDecl& c) {
  if (checked_.count(&c) || checking_.count(&c)) return;
  checking_[&c] = true;
  Type declared = c.type ? ResolveTypeRef(*c.type, false, "a constant") : Type::Error();
  Type t = Check(*c.value);
  if (!t.IsError() && !c.value->constant) {
    diags_.Error(DiagKind::kNotConstant, c.value->range,
                 "the value of `" + c.name + "` must be known at compile time");
  }
  if (c.type && !declared.IsError()) Coerce(*c.value, declared, "constant");
  checking_.erase(&c);
  checked_.insert(&c);
}

void Checker::CheckBlock(Block& b) {
  for (auto& s : b.stmts) CheckStmt(*s);
}

void Checker::CheckWithin(Within* w) {
  if (!w) return;
  Check(*w->duration);
  Coerce(*w->duration, Type::Duration(), "timeout");
  if (w->action) CheckStmt(*w->action);
}

// `for chunk in recv_each(s, pool)`: a socket and the graph's `provided` pool; the chunk is a
// shared view of the buffer the kernel filled.
void Checker::CheckForEach(ForEachStmt& x) {
  CallExpr& c = *x.source;
  c.type = Type::Void();
  for (auto& a : c.args) Check(*a);
  x.var->type = Type::Bytes(Type::Mem::kShared);
  if (c.callee == "recv_each") {
    if (c.args.size() != 2) {
      diags_.Error(DiagKind::kBadArguments, c.range,
                   "`recv_each` takes 2 arguments (s: fd, pool: provided buffers), not " +
                       std::to_string(c.args.size()));
    } else {
      Coerce(*c.args[0], Type::Fd(), "socket");
      const Type& pool = c.args[1]->type;
      if (!pool.IsError() &&
          (pool.kind != Type::Kind::kBuffers || pool.mem != Type::Mem::kProvided)) {
        diags_.Error(DiagKind::kTypeMismatch, c.args[1]->range,
                     "`recv_each` receives into the graph's `provided buffers[N] of SIZE` "
                     "parameter, not `" + pool.ToString() + "`");
      }
    }
  }
  CheckWithin(c.within.get());
  CheckBlock(*x.body);
}

void Checker::CheckStmt(Stmt& s) {
  switch (s.kind) {
    case Stmt::Kind::kDecl: CheckDecl(*s.As<DeclStmt>()); break;
    case Stmt::Kind::kAssign: CheckAssign(*s.As<AssignStmt>()); break;
    case Stmt::Kind::kExpr: Check(*s.As<ExprStmt>()->expr); break;
    case Stmt::Kind::kIf: {
      auto& x = *s.As<IfStmt>();
      CheckCondition(*x.cond);
      CheckBlock(*x.then_block);
      if (x.else_stmt) CheckStmt(*x.else_stmt);
      break;
    }
    case Stmt::Kind::kBlock: CheckBlock(*s.As<Block>()); break;
    case Stmt::Kind::kWhile:
      CheckCondition(*s.As<WhileStmt>()->cond);
      CheckBlock(*s.As<WhileStmt>()->body);
      break;
    case Stmt::Kind::kLoop: CheckBlock(*s.As<LoopStmt>()->body); break;
    case Stmt::Kind::kRepeat: {
      auto& x = *s.As<RepeatStmt>();
      Type t = Check(*x.count);
      if (!t.IsError() && (!t.IsInteger() || (t.kind == Type::Kind::kInt && t.is_signed) ||
                           (t.kind == Type::Kind::kIntLit && t.is_signed))) {
        diags_.Error(DiagKind::kTypeMismatch, x.count->range,
                     "`repeat` needs an unsigned count, not `" + t.ToString() + "`");
      }
      CheckBlock(*x.body);
      break;
    }
    case Stmt::Kind::kFor: {
      auto& x = *s.As<ForStmt>();
      x.var->type = CheckRange(*x.lo, *x.hi, "for");
      CheckBlock(*x.body);
      break;
    }
    case Stmt::Kind::kForEach: CheckForEach(*s.As<ForEachStmt>()); break;
    case Stmt::Kind::kParallel: {
      auto& x = *s.As<ParallelStmt>();
      x.var->type = CheckRange(*x.lo, *x.hi, "parallel");
      if (x.lo->constant && x.hi->constant) {
        // In 128 bits: the ends may be any two 64-bit constants.
        const __int128 n = static_cast<__int128>(x.hi->constant->AsSigned()) -
                           x.lo->constant->AsSigned();
        if (n < 0 || n > static_cast<__int128>(kMaxTasks)) {
          const std::string count = n < 0 ? "-" + std::to_string(static_cast<uint64_t>(-n))
                                           : std::to_string(static_cast<uint64_t>(n));
          diags_.Error(DiagKind::kTooManyTasks, x.hi->range,
                       "`parallel` makes " + count + " tasks; the range must give 0 to " +
                           std::to_string(kMaxTasks));
        }
      } else {
        for (Expr* e : {x.lo.get(), x.hi.get()}) {
          if (!e->constant && !e->type.IsError()) {
            diags_.Error(DiagKind::kNotConstant, e->range,
                         "the task count of `parallel` must be a constant (tasks have static "
                         "storage in the controller)");
          }
        }
      }
      CheckBlock(*x.body);
      break;
    }
    case Stmt::Kind::kAll: CheckBlock(*s.As<AllStmt>()->body); break;
    case Stmt::Kind::kAny:
      for (auto& arm : s.As<AnyStmt>()->arms) {
        Type t = Check(*arm->call);
        if (!arm->call->IsAwait() && arm->call->resolved.kind != Resolution::Kind::kUnresolved) {
          diags_.Error(DiagKind::kTypeMismatch, arm->call->range,
                       "an `any` arm starts with a request or a fn call");
        }
        if (arm->binding) arm->binding->type = t;
        CheckBlock(*arm->body);
      }
      break;
    case Stmt::Kind::kTry: {
      auto& x = *s.As<TryStmt>();
      CheckBlock(*x.body);
      x.error->type = Type::Int(32, true);
      CheckBlock(*x.handler);
      break;
    }
    case Stmt::Kind::kJump: {
      auto& x = *s.As<JumpStmt>();
      if (!x.value) break;
      Check(*x.value);
      if (x.jump == JumpStmt::Jump::kFail) {
        Coerce(*x.value, Type::Int(32, true), "errno");
      } else if (x.jump == JumpStmt::Jump::kReturn && fn_) {
        Coerce(*x.value, fn_->result_type, "return value");
      }
      break;
    }
  }
  CheckWithin(s.within.get());
}

Type Checker::CheckRange(Expr& lo, Expr& hi, const char* what) {
  Type a = Check(lo), b = Check(hi);
  if (a.IsError() || b.IsError()) return Type::Error();
  Type t = Unify(a, b, lo, hi, "..");
  if (t.kind == Type::Kind::kIntLit) t = Type::Int(32, false);
  if (!t.IsError() && !t.IsInteger()) {
    diags_.Error(DiagKind::kTypeMismatch, lo.range,
                 std::string("`") + what + "` ranges over integers, not `" + t.ToString() + "`");
    return Type::Error();
  }
  return t;
}

void Checker::CheckCondition(Expr& e) {
  Check(e);
  Coerce(e, Type::Bool(), "condition");
}

void Checker::CheckDecl(DeclStmt& d) {
  Type declared = d.type ? ResolveTypeRef(*d.type, false, "a variable") : Type::Error();
  Type init = d.init ? Check(*d.init) : Type::Error();
  if (d.binding->kind == Binding::Kind::kLet && !d.init) {
    diags_.Error(DiagKind::kMissingInitializer, d.range,
                 "`let " + d.binding->name + "` needs a value; use `var` to assign later");
  }
  if (!d.type && !d.init) {
    diags_.Error(DiagKind::kMissingType, d.range,
                 "`var " + d.binding->name + "` needs a type or an initial value");
  }
  if (d.type) {
    if (d.init) Coerce(*d.init, declared, "initial value");
    d.binding->type = declared;
    return;
  }
  if (init.kind == Type::Kind::kIntLit) {
    init = Type::Int(64, init.is_signed);
    Coerce(*d.init, init, "initial value");
  }
  if (init.kind == Type::Kind::kVoid || init.kind == Type::Kind::kBuffers) {
    diags_.Error(DiagKind::kTypeMismatch, d.init->range,
                 "`" + init.ToString() + "` cannot be stored in a variable");
    init = Type::Error();
  }
  d.binding->type = init;
}

void Checker::CheckAssign(AssignStmt& a) {
  Type value = Check(*a.value);
  Type target = Check(*a.target);
  auto* name = a.target->As<NameExpr>();
  if (!name) {
    diags_.Error(DiagKind::kNotAssignable, a.target->range, "only a variable can be assigned");
    return;
  }
  const Resolution& r = name->resolved;
  if (r.kind == Resolution::Kind::kUnresolved) return;
  if (r.kind != Resolution::Kind::kBinding || !r.binding->IsMutable()) {
    Diagnostic& d = diags_.Error(
        DiagKind::kAssignToImmutable, a.target->range,
        "`" + name->name + "` cannot be assigned" +
            (r.kind == Resolution::Kind::kBinding && r.binding->kind == Binding::Kind::kLet
                 ? "; declare it with `var`"
                 : ""));
    if (r.kind == Resolution::Kind::kBinding)
      d.notes.push_back({r.binding->range, "declared here"});
    return;
  }
  if (target.IsError() || value.IsError()) return;
  if (!a.compound_op) {
    Coerce(*a.value, target, "assigned value");
    return;
  }
  const BinaryOp op = *a.compound_op;
  if (target.kind == Type::Kind::kDuration && (op == BinaryOp::kAdd || op == BinaryOp::kSub)) {
    Coerce(*a.value, target, "assigned value");
    return;
  }
  if (!target.IsInteger()) {
    diags_.Error(DiagKind::kTypeMismatch, a.range,
                 "`" + AssignSpelling(op) + "` needs an integer variable, not `" +
                     target.ToString() + "`");
    return;
  }
  if (op == BinaryOp::kShl || op == BinaryOp::kShr) {
    if (!value.IsInteger()) Coerce(*a.value, target, "shift amount");
    return;
  }
  Coerce(*a.value, target, "assigned value");
}

}  // namespace types_internal

void CheckTypes(Program& program, DiagnosticList& diagnostics) {
  types_internal::Checker(program, diagnostics).Run();
}

}  // namespace uringc::sema
