// See type_rules.h.
#include "sema/type_rules.h"

namespace uringc::sema {

bool ImplicitIntOk(const Type& from, const Type& to) {
  if (from.kind != Type::Kind::kInt || to.kind != Type::Kind::kInt) return false;
  if (from.is_signed == to.is_signed) return to.bits >= from.bits;
  return !from.is_signed && to.is_signed && to.bits > from.bits;
}

__int128 MinOf(const Type& t) {
  if (t.kind == Type::Kind::kFd) return INT32_MIN;
  if (t.kind == Type::Kind::kIntLit) return INT64_MIN;
  if (t.kind != Type::Kind::kInt || !t.is_signed) return 0;
  return -(static_cast<__int128>(1) << (t.bits - 1));
}

__int128 MaxOf(const Type& t) {
  if (t.kind == Type::Kind::kFd) return INT32_MAX;
  if (t.kind == Type::Kind::kBool) return 1;
  if (t.kind == Type::Kind::kIntLit || t.kind == Type::Kind::kDuration) return UINT64_MAX;
  if (t.kind != Type::Kind::kInt) return 0;
  return (static_cast<__int128>(1) << (t.bits - (t.is_signed ? 1 : 0))) - 1;
}

__int128 ConstToWide(const ast::ConstValue& v, const Type& t) {
  if (t.kind == Type::Kind::kFd) return static_cast<int32_t>(v.bits);
  if (t.kind == Type::Kind::kIntLit) {
    return t.is_signed ? static_cast<__int128>(v.AsSigned()) : static_cast<__int128>(v.bits);
  }
  if (t.kind != Type::Kind::kInt) return v.bits;
  const uint64_t mask = t.bits == 64 ? ~0ull : ((1ull << t.bits) - 1);
  const uint64_t bits = v.bits & mask;
  if (t.is_signed && t.bits < 64 && (bits >> (t.bits - 1)) & 1) {
    return static_cast<__int128>(bits) - (static_cast<__int128>(1) << t.bits);
  }
  if (t.is_signed && t.bits == 64) return static_cast<int64_t>(bits);
  return bits;
}

bool FitsIn(__int128 value, const Type& t) { return value >= MinOf(t) && value <= MaxOf(t); }

ast::ConstValue WrapTo(__int128 value, const Type& t) {
  uint64_t bits = static_cast<uint64_t>(value);
  if (t.kind == Type::Kind::kInt && t.bits < 64) bits &= (1ull << t.bits) - 1;
  if (t.kind == Type::Kind::kInt && t.is_signed && t.bits < 64 && ((bits >> (t.bits - 1)) & 1))
    bits |= ~((1ull << t.bits) - 1);
  return {bits};
}

std::optional<__int128> FoldBinary(BinaryOp op, __int128 a, __int128 b, bool* div_by_zero) {
  *div_by_zero = false;
  __int128 r = 0;
  constexpr __int128 kLimit = static_cast<__int128>(1) << 80;  // keep products exact
  auto clamp_ok = [&](__int128 x) { return x > -kLimit && x < kLimit; };
  if (!clamp_ok(a) || !clamp_ok(b)) return std::nullopt;
  switch (op) {
    case BinaryOp::kAdd: r = a + b; break;
    case BinaryOp::kSub: r = a - b; break;
    case BinaryOp::kMul:
      if ((a > (static_cast<__int128>(1) << 70) || a < -(static_cast<__int128>(1) << 70)) &&
          b != 0 && b != 1)
        return std::nullopt;
      r = a * b;
      break;
    case BinaryOp::kDiv:
    case BinaryOp::kRem:
      if (b == 0) {
        *div_by_zero = true;
        return std::nullopt;
      }
      r = op == BinaryOp::kDiv ? a / b : a % b;
      break;
    case BinaryOp::kBitAnd: r = a & b; break;
    case BinaryOp::kBitOr: r = a | b; break;
    case BinaryOp::kBitXor: r = a ^ b; break;
    case BinaryOp::kShl:
      if (b < 0 || b >= 64) return std::nullopt;
      r = a << static_cast<int>(b);
      break;
    case BinaryOp::kShr:
      if (b < 0 || b >= 64) return std::nullopt;
      r = a >> static_cast<int>(b);
      break;
    case BinaryOp::kEq: r = a == b; break;
    case BinaryOp::kNe: r = a != b; break;
    case BinaryOp::kLt: r = a < b; break;
    case BinaryOp::kLe: r = a <= b; break;
    case BinaryOp::kGt: r = a > b; break;
    case BinaryOp::kGe: r = a >= b; break;
    case BinaryOp::kLogicalAnd: r = a && b; break;
    case BinaryOp::kLogicalOr: r = a || b; break;
  }
  if (!clamp_ok(r)) return std::nullopt;
  return r;
}

}  // namespace uringc::sema
