// The language's integer rules as pure functions: which conversions are implicit, whether a
// literal fits a type, and constant folding with the wrap-around of each width. Used by the
// `types` and `bounds` passes; no diagnostics here.
#pragma once

#include <optional>

#include "ast/ast.h"

namespace uringc::sema {

/// `from` converts to `to` without a cast: same signedness and not narrower, or unsigned to a
/// strictly wider signed type.
bool ImplicitIntOk(const Type& from, const Type& to);

/// The value of a constant of type `t` as a 128-bit integer (signed types sign-extend).
__int128 ConstToWide(const ast::ConstValue& v, const Type& t);

/// Whether `value` is representable in integer type `t`.
bool FitsIn(__int128 value, const Type& t);

/// `value` wrapped to the width of `t` (two's complement), stored as 64-bit pattern.
ast::ConstValue WrapTo(__int128 value, const Type& t);

/// Smallest and largest value of integer type `t`.
__int128 MinOf(const Type& t);
__int128 MaxOf(const Type& t);

/// Folds `a op b` for integer (or duration, bool) operands already converted to `t` (the
/// operands' common type; for comparisons, the operand type). Sets `*div_by_zero` for `/ 0`,
/// `% 0`. For IntLit the result is exact, and nullopt when outside [-2^63, 2^64).
std::optional<__int128> FoldBinary(BinaryOp op, __int128 a, __int128 b, bool* div_by_zero);

}  // namespace uringc::sema
