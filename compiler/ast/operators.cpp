// The one table between operators and their spellings (see operators.h).
#include "ast/operators.h"

#include <array>
#include <utility>

namespace uringc {
namespace {

constexpr std::array<std::pair<UnaryOp, std::string_view>, 2> kUnarySpellings = {{
    {UnaryOp::kNeg, "-"},
    {UnaryOp::kNot, "!"},
}};

constexpr std::array<std::pair<BinaryOp, std::string_view>, 18> kBinarySpellings = {{
    {BinaryOp::kAdd, "+"},         {BinaryOp::kSub, "-"},         {BinaryOp::kMul, "*"},
    {BinaryOp::kDiv, "/"},         {BinaryOp::kRem, "%"},         {BinaryOp::kBitAnd, "&"},
    {BinaryOp::kBitOr, "|"},       {BinaryOp::kBitXor, "^"},      {BinaryOp::kShl, "<<"},
    {BinaryOp::kShr, ">>"},        {BinaryOp::kEq, "=="},         {BinaryOp::kNe, "!="},
    {BinaryOp::kLt, "<"},          {BinaryOp::kLe, "<="},         {BinaryOp::kGt, ">"},
    {BinaryOp::kGe, ">="},         {BinaryOp::kLogicalAnd, "&&"}, {BinaryOp::kLogicalOr, "||"},
}};

// Each table lists its enum in declaration order, so an operator's spelling is at its value.
template <class Table>
constexpr bool InEnumOrder(const Table& table) {
  for (size_t i = 0; i < table.size(); ++i)
    if (static_cast<size_t>(table[i].first) != i) return false;
  return true;
}
static_assert(InEnumOrder(kUnarySpellings));
static_assert(InEnumOrder(kBinarySpellings));

template <class Op, class Table>
std::optional<Op> Named(const Table& table, std::string_view text) {
  for (const auto& [op, spelling] : table)
    if (spelling == text) return op;
  return std::nullopt;
}

}  // namespace

std::string_view Spelling(UnaryOp op) { return kUnarySpellings[static_cast<size_t>(op)].second; }
std::string_view Spelling(BinaryOp op) { return kBinarySpellings[static_cast<size_t>(op)].second; }

std::string AssignSpelling(std::optional<BinaryOp> compound_op) {
  return compound_op ? std::string(Spelling(*compound_op)) + "=" : "=";
}

std::optional<UnaryOp> UnaryOpNamed(std::string_view text) {
  return Named<UnaryOp>(kUnarySpellings, text);
}
std::optional<BinaryOp> BinaryOpNamed(std::string_view text) {
  return Named<BinaryOp>(kBinarySpellings, text);
}

bool IsComparison(BinaryOp op) {
  switch (op) {
    case BinaryOp::kEq:
    case BinaryOp::kNe:
    case BinaryOp::kLt:
    case BinaryOp::kLe:
    case BinaryOp::kGt:
    case BinaryOp::kGe: return true;
    case BinaryOp::kAdd:
    case BinaryOp::kSub:
    case BinaryOp::kMul:
    case BinaryOp::kDiv:
    case BinaryOp::kRem:
    case BinaryOp::kBitAnd:
    case BinaryOp::kBitOr:
    case BinaryOp::kBitXor:
    case BinaryOp::kShl:
    case BinaryOp::kShr:
    case BinaryOp::kLogicalAnd:
    case BinaryOp::kLogicalOr: return false;
  }
  return false;
}

bool IsShortCircuit(BinaryOp op) {
  return op == BinaryOp::kLogicalAnd || op == BinaryOp::kLogicalOr;
}

}  // namespace uringc
