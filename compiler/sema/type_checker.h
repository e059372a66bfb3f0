// The type checker of the `types` pass, shared by types.cpp (declarations and statements) and
// types_expr.cpp (expressions, constant folding, conversions). Internal to sema/.
#pragma once

#include <map>
#include <set>
#include <vector>

#include "sema/passes.h"
#include "sema/requests.h"
#include "sema/type_rules.h"

namespace uringc::sema::types_internal {

using namespace ast;

constexpr uint64_t kMaxTasks = 4096;

/// const_order.cpp: every module's constants, each after the constants its value names, found
/// by an iterative depth-first search (a chain of thousands of constants must not recurse once
/// per link). The names that close a cycle go into `cycle_names`: checking them reports the
/// cycle instead of following it, so checking in this order never nests.
std::vector<ConstDecl*> OrderConstants(Program& program, std::set<const NameExpr*>& cycle_names);

class Checker {
 public:
  Checker(Program& p, DiagnosticList& d) : program_(p), diags_(d) {}

  void Run();

 private:
  // ----- signatures -----
  Type ResolveTypeRef(TypeRef& t, bool allow_buffers, const char* where);
  bool ConstantCount(Expr& e, const char* what, uint64_t min, uint64_t max, uint64_t* out);
  void CheckFnSignature(FnDecl& f);
  void CheckGraphSignature(GraphDecl& g);
  void CheckConst(ConstDecl& c);

  // ----- statements -----
  void CheckBlock(Block& b);
  void CheckWithin(Within* w);
  void CheckStmt(Stmt& s);
  void CheckForEach(ForEachStmt& x);
  Type CheckRange(Expr& lo, Expr& hi, const char* what);
  void CheckCondition(Expr& e);
  void CheckDecl(DeclStmt& d);
  void CheckAssign(AssignStmt& a);

  // ----- expressions -----
  Type Check(Expr& e);
  Type CheckCall(CallExpr& c);
  Type CheckDataBuiltin(CallExpr& c, BuiltinFn fn, const std::vector<Type>& args);
  bool CheckDataView(Expr& e, bool need_write, const std::string& what);
  void CheckHostBufferView(Expr& e);
  Type CheckBinary(BinaryExpr& b);
  Type Unify(Type a, Type b, Expr& lhs, Expr& rhs, const std::string& op);
  void Coerce(Expr& e, Type target, const char* what);

  Program& program_;
  DiagnosticList& diags_;
  const FnDecl* fn_ = nullptr;
  std::map<const ConstDecl*, bool> checking_;
  std::set<const ConstDecl*> checked_;   // checked once; an erroneous value is not re-checked
  std::set<const NameExpr*> cycle_names_;  // a constant's use of one still being defined
};

}  // namespace uringc::sema::types_internal
