// The `types` pass: computes the type of every expression and folds constants, then checks each
// use against what it needs (docs/language.md sections 3-11). Integer literals stay untyped
// (`IntLit`) until a context fixes their width; `let x = 5` defaults to u64 (i64 if negative).
#include "sema/type_checker.h"

namespace uringc::sema {
void CheckTypes(Program& program, DiagnosticList& diagnostics) {
  types_internal::Checker(program, diagnostics).Run();
}

}  // namespace uringc::sema
