// Finding what is at a source position: the identifier under an editor's cursor, as the AST node
// that names it (a binding where it is declared, a name or a call's callee where it is used, a
// declaration's name). The language server's hover and go-to-definition start here. It walks
// the tree itself, checking every child for null, so it works on the partial AST the parser
// recovers from a file with syntax errors.
#pragma once

#include <cstdint>

#include "ast/ast.h"

namespace uringc::ast {

struct Located {
  enum class Kind : uint8_t {
    kNone,
    kBinding,  ///< where a name is declared: a parameter, output, `let`, `as n`, loop variable
    kName,     ///< a name used in an expression
    kCallee,   ///< the callee of a call (request, fn, builtin, cast)
    kDecl,     ///< the name of a const, fn, graph or import
    kType,     ///< a type as written (`u32`, `shared bytes`, `buffers[4] of 64`)
  };
  Kind kind = Kind::kNone;
  SourceRange range;  ///< the identifier's range
  const Binding* binding = nullptr;
  const NameExpr* name = nullptr;
  const CallExpr* call = nullptr;
  const Decl* decl = nullptr;
  const TypeRef* type = nullptr;
};

/// The innermost identifier of `file` whose range contains byte `offset` (its end included, so a
/// cursor just after a word finds it); kind kNone when there is none.
Located Locate(const File& file, uint32_t offset);

}  // namespace uringc::ast
