// Generic pre-order traversal of statements and expressions, for passes that only need "every
// expression under this statement" (finding calls, awaits). Passes with their own control-flow
// logic walk the tree themselves.
#pragma once

#include <functional>

#include "ast/ast.h"

namespace uringc::ast {

/// Calls `on_expr` for every expression under `s` (including `within` durations and actions,
/// `any` arm calls), outer before inner. `on_stmt`, if given, is called for every statement.
void VisitExprs(const Stmt& s, const std::function<void(const Expr&)>& on_expr,
                const std::function<void(const Stmt&)>& on_stmt = nullptr);
void VisitExprs(const Expr& e, const std::function<void(const Expr&)>& on_expr,
                const std::function<void(const Stmt&)>& on_stmt = nullptr);

}  // namespace uringc::ast
