// The language's operators as enums, from the AST to the back end. The parser maps each token to
// one through the spelling table in operators.cpp, and the AST and rgir printers print it back
// through the same table; everything in between switches on the enum without `default:`, so
// -Wswitch names the places a new operator has to reach.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace uringc {

enum class UnaryOp : uint8_t {
  kNeg,  ///< `-x`
  kNot,  ///< `!b`
};

enum class BinaryOp : uint8_t {
  kAdd,         ///< `+`
  kSub,         ///< `-`
  kMul,         ///< `*`
  kDiv,         ///< `/`
  kRem,         ///< `%`
  kBitAnd,      ///< `&`
  kBitOr,       ///< `|`
  kBitXor,      ///< `^`
  kShl,         ///< `<<`
  kShr,         ///< `>>`
  kEq,          ///< `==`
  kNe,          ///< `!=`
  kLt,          ///< `<`
  kLe,          ///< `<=`
  kGt,          ///< `>`
  kGe,          ///< `>=`
  kLogicalAnd,  ///< `&&`
  kLogicalOr,   ///< `||`
};

/// The operator as written in source: `-`, `!`, `+`, `<=`, `&&`.
std::string_view Spelling(UnaryOp op);
std::string_view Spelling(BinaryOp op);
/// An assignment as written: `=` for a plain one, `+=` for a compound one with kAdd.
std::string AssignSpelling(std::optional<BinaryOp> compound_op);

/// The operator spelled `text`, or nullopt when no operator is spelled so.
std::optional<UnaryOp> UnaryOpNamed(std::string_view text);
std::optional<BinaryOp> BinaryOpNamed(std::string_view text);

/// `==`, `!=`, `<`, `<=`, `>`, `>=`: bool result, operands compared in their common type.
bool IsComparison(BinaryOp op);
/// `&&`, `||`: bool operands, the right one evaluated only when it decides the result.
bool IsShortCircuit(BinaryOp op);

}  // namespace uringc
