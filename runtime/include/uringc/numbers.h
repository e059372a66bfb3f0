// Numbers as the host writes them: `--arg` values, `uringc_ctl__set`, and the byte sizes and
// counts of `uringc run`'s options. One strict syntax, so `010` is not silently octal 8 and
// ` -1` is not silently 2^64-1: decimal digits without a leading zero, or 0x / 0o / 0b followed by
// hex, octal or binary digits; a leading `-` only where the caller allows it; nothing else (no
// `+`, no whitespace, no digit separators). A byte size may end in k/K/KiB, M/MiB, G/GiB or
// T/TiB (powers of 1024). Values that do not fit 64 bits are refused, never wrapped.
#pragma once

#include <cstdint>
#include <string_view>

#include "uringc/result.h"

namespace uringc {

/// An integer's sign and magnitude (the magnitude may be up to 2^64-1 either way; the caller
/// checks its type's range).
struct ParsedInt {
  bool negative = false;
  uint64_t magnitude = 0;
};

/// Parses an integer in the syntax above. EINVAL for bad syntax (the message says what is
/// accepted), ERANGE when the magnitude needs more than 64 bits.
Result<ParsedInt> ParseInteger(std::string_view text);

/// A non-negative integer (no `-`).
Result<uint64_t> ParseUnsigned(std::string_view text);

/// A non-negative integer with an optional binary-unit suffix; ERANGE when the product exceeds
/// 64 bits.
Result<uint64_t> ParseByteSize(std::string_view text);

}  // namespace uringc
