// The types of the language (docs/language.md section 3) as a small value type. The AST carries
// them (filled in by sema), the request signatures use them, and rgir copies them onto variables,
// so code generation sees the same types the checker did.
#pragma once

#include <cstdint>
#include <string>

namespace uringc {

struct Type {
  enum class Kind : uint8_t {
    kError,     ///< an expression whose type could not be computed (already diagnosed)
    kVoid,      ///< a statement-only value
    kInt,       ///< u8..u64, i8..i64 (bits, is_signed)
    kIntLit,    ///< an integer literal not yet fixed to a width; adapts to its context
    kBool,
    kFd,        ///< a file descriptor, or -errno from a failed request
    kDuration,  ///< nanoseconds
    kBytes,     ///< a view into one buffer: (buffer, start, length)
    kBuffers,   ///< `buffers[count] of size`: host memory, graph parameters only
  };
  Kind kind = Kind::kError;
  uint8_t bits = 0;
  bool is_signed = false;
  uint32_t count = 0;  ///< kBuffers: number of buffers
  uint64_t size = 0;   ///< kBuffers: bytes per buffer

  static Type Error() { return {}; }
  static Type Int(uint8_t bits, bool is_signed) { return {Kind::kInt, bits, is_signed}; }
  static Type IntLit() { return {Kind::kIntLit, 64, false}; }
  static Type Bool() { return {Kind::kBool}; }
  static Type Fd() { return {Kind::kFd}; }
  static Type Duration() { return {Kind::kDuration}; }
  static Type Bytes() { return {Kind::kBytes}; }
  static Type Buffers(uint32_t count, uint64_t size) {
    return {Kind::kBuffers, 0, false, count, size};
  }

  bool IsError() const { return kind == Kind::kError; }
  bool IsInteger() const { return kind == Kind::kInt || kind == Kind::kIntLit; }
  /// A request-like result: negative values are -errno (signed integers and fd).
  bool IsResult() const { return (kind == Kind::kInt && is_signed) || kind == Kind::kFd; }
  bool operator==(const Type&) const = default;

  /// The name as written in source: `u32`, `fd`, `buffers[4] of 65536`.
  std::string ToString() const;
};

}  // namespace uringc
