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
    kBuffers,   ///< `buffers[count] of size`: graph parameters only
  };
  /// Where the bytes of a kBuffers or kBytes live, which says what the graph may do with them.
  enum class Mem : uint8_t {
    kHost,    ///< `buffers`, `bytes`: the host's memory; only requests touch the bytes
    kShared,  ///< `shared`: the ring's parameter region; the graph reads and writes the bytes
    kConst,   ///< a byte-string literal (in the region too): read, never written
    kProvided,  ///< `provided buffers`: in the region, handed out by the kernel (recv_each)
  };
  Kind kind = Kind::kError;
  uint8_t bits = 0;
  bool is_signed = false;
  uint32_t count = 0;  ///< kBuffers: number of buffers
  uint64_t size = 0;   ///< kBuffers: bytes per buffer
  Mem mem = Mem::kHost;  ///< kBuffers, kBytes

  static Type Error() { return {}; }
  static Type Int(uint8_t bits, bool is_signed) { return {Kind::kInt, bits, is_signed}; }
  static Type IntLit() { return {Kind::kIntLit, 64, false}; }
  static Type Void() { return {Kind::kVoid}; }
  static Type Bool() { return {Kind::kBool}; }
  static Type Fd() { return {Kind::kFd}; }
  static Type Duration() { return {Kind::kDuration}; }
  static Type Bytes(Mem m = Mem::kHost) { return {Kind::kBytes, 0, false, 0, 0, m}; }
  static Type Buffers(uint32_t count, uint64_t size, Mem m = Mem::kHost) {
    return {Kind::kBuffers, 0, false, count, size, m};
  }

  bool IsError() const { return kind == Kind::kError; }
  bool IsInteger() const { return kind == Kind::kInt || kind == Kind::kIntLit; }
  /// A request-like result: negative values are -errno (signed integers and fd).
  bool IsResult() const { return (kind == Kind::kInt && is_signed) || kind == Kind::kFd; }
  /// A view whose bytes the graph may read (shared or a literal) or write (shared only).
  bool IsReadableBytes() const { return kind == Kind::kBytes && mem != Mem::kHost; }
  bool IsWritableBytes() const { return kind == Kind::kBytes && mem == Mem::kShared; }
  /// A buffers parameter kept in `m` (host memory, the parameter region, a provided pool).
  bool IsBuffers(Mem m) const { return kind == Kind::kBuffers && mem == m; }
  bool operator==(const Type&) const = default;

  /// The name as written in source: `u32`, `fd`, `buffers[4] of 65536`.
  std::string ToString() const;
};

}  // namespace uringc
