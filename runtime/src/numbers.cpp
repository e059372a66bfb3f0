// The host's number syntax (see numbers.h): a hand-written scanner instead of strtoull, which
// takes leading whitespace, a `+`, a `-` on unsigned values (wrapping them) and `0` as octal.
#include "uringc/numbers.h"

#include <string>

namespace uringc {
namespace {

constexpr const char* kSyntax =
    "write a decimal integer without leading zeros, or 0x (hex), 0o (octal) or 0b (binary) "
    "digits";

Error BadSyntax(std::string_view text, const std::string& why) {
  return MakeError(DiagKind::kBadParameter, EINVAL,
                   "`" + std::string(text) + "` is not a number (" + why + "): " + kSyntax);
}

int DigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

}  // namespace

Result<ParsedInt> ParseInteger(std::string_view text) {
  ParsedInt out;
  std::string_view s = text;
  if (s.empty()) return BadSyntax(text, "it is empty");
  if (s[0] == '-') {
    out.negative = true;
    s.remove_prefix(1);
  }
  unsigned base = 10;
  if (s.size() >= 2 && s[0] == '0') {
    const char p = s[1];
    if (p == 'x' || p == 'X') base = 16;
    else if (p == 'o' || p == 'O') base = 8;
    else if (p == 'b' || p == 'B') base = 2;
    else if (p >= '0' && p <= '9') return BadSyntax(text, "a leading zero");
    if (base != 10) s.remove_prefix(2);
  }
  if (s.empty()) return BadSyntax(text, "no digits");
  uint64_t v = 0;
  for (char c : s) {
    const int d = DigitValue(c);
    if (d >= static_cast<int>(base)) {
      return BadSyntax(text, "`" + std::string(1, c) + "` is not a base-" + std::to_string(base) +
                                 " digit");
    }
    if (__builtin_mul_overflow(v, base, &v) || __builtin_add_overflow(v, d, &v)) {
      return MakeError(DiagKind::kBadParameter, ERANGE,
                       "`" + std::string(text) + "` does not fit in 64 bits");
    }
  }
  out.magnitude = v;
  return out;
}

Result<uint64_t> ParseUnsigned(std::string_view text) {
  auto n = ParseInteger(text);
  if (!n) return n.error();
  if (n->negative) {
    return MakeError(DiagKind::kBadParameter, ERANGE,
                     "`" + std::string(text) + "`: a negative number is not allowed here");
  }
  return n->magnitude;
}

Result<uint64_t> ParseByteSize(std::string_view text) {
  struct Unit {
    std::string_view suffix;
    unsigned shift;
  };
  static constexpr Unit kUnits[] = {{"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40},
                                    {"k", 10},   {"K", 10},   {"M", 20},   {"G", 30},
                                    {"T", 40}};
  std::string_view digits = text;
  unsigned shift = 0;
  // The unit letters (k, K, M, G, T, i, B after i) are no hex digits, so `0x1f` stays a number.
  for (const Unit& u : kUnits) {
    if (digits.size() > u.suffix.size() &&
        digits.substr(digits.size() - u.suffix.size()) == u.suffix) {
      digits.remove_suffix(u.suffix.size());
      shift = u.shift;
      break;
    }
  }
  auto n = ParseUnsigned(digits);
  if (!n) {
    if (n.error().code != -EINVAL) return n.error();
    return MakeError(DiagKind::kBadParameter, EINVAL,
                     "`" + std::string(text) + "` is not a number: " + kSyntax +
                         ", optionally followed by k, M, G or T (KiB, MiB, GiB, TiB)");
  }
  if (shift && (*n >> (64 - shift)) != 0) {
    return MakeError(DiagKind::kBadParameter, ERANGE,
                     "`" + std::string(text) + "` does not fit in 64 bits");
  }
  return *n << shift;
}

}  // namespace uringc
