// What the identifier under the cursor refers to, for hover and go-to-definition alike: sema's
// resolution when the file was checked, else (a file with syntax errors) a look-up of the name
// among the declarations of the root module and its imports, the requests and the builtins.
#pragma once

#include <string>

#include "ast/locate.h"
#include "lsp/analysis.h"

namespace uringc::lsp {

struct Target {
  const ast::Binding* binding = nullptr;  ///< a parameter, output, local, `as n`, ...
  const ast::Decl* decl = nullptr;        ///< a const, fn, graph or import
  int request = -1;                       ///< a sema::RequestKind
  int builtin_const = -1;                 ///< an index into sema::BuiltinConstants()
  std::string builtin;                    ///< a builtin fn or a cast, by name
  const ast::TypeRef* type = nullptr;     ///< a type as written
  SourceRange range;                      ///< of the identifier under the cursor
  bool Found() const {
    return binding || decl || request >= 0 || builtin_const >= 0 || !builtin.empty() || type;
  }
};

/// What the identifier at byte `offset` of the root module refers to; Found() is false when
/// there is no identifier there or it names nothing known.
Target FindTarget(const Analysis& a, uint32_t offset);

}  // namespace uringc::lsp
