// The requests of the language (docs/language.md section 6): names, signatures, result types
// and the io_uring opcode each becomes. Sema checks calls against this table; rgir and code
// generation read the opcode and argument order from it. One row per request.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "ast/types.h"

namespace uringc::sema {

enum class RequestKind : uint8_t {
  kNop, kRead, kWrite, kRecv, kSend, kAccept, kConnect, kSocket, kClose, kFsync, kOpenat,
  kPoll, kSleep, kCancel, kOpenat2, kBind, kListen, kShutdown, kStatx, kSplice, kUringCmd
};

struct RequestParam {
  std::string_view name;
  Type type;
  /// Value used when the argument is omitted; nullopt = required. For `off` of read/write,
  /// -1 means "the file position".
  std::optional<int64_t> default_value;
};

struct RequestSignature {
  RequestKind kind;
  std::string_view name;        ///< as written in .uring
  std::string_view io_uring_op; ///< "IORING_OP_READ"
  std::vector<RequestParam> params;
  Type result;                  ///< i32, or fd for accept/socket/openat
  /// Index of the `bytes` parameter whose length bounds the (non-negative) result, or -1.
  int result_bounded_by = -1;
  /// The result is a new file descriptor that should be closed (FdLeak tracks it).
  bool opens_fd = false;
};

/// Every request, indexed by RequestKind.
const std::vector<RequestSignature>& Requests();
const RequestSignature& Request(RequestKind kind);
/// The request called `name`, or nullptr.
const RequestSignature* FindRequest(std::string_view name);

/// Builtin functions that are not requests (computed inside the controller): len, min, max;
/// address_of(view) -> u64 (the user address of a view of a host `buffers` parameter);
/// get_<T>(view, off) and put_<T>(view, off, value) for the integer types T (`u8`, `i8`, and
/// `u16le`, `i32be`, ... for the wider ones); copy_bytes(dst, src) -> u32; equal_bytes(a, b);
/// copy_from_user(dst, addr) -> i32 (the host's memory at a user address into a shared view).
/// Those from kGet on read or write a view's bytes (build_expr.cpp's HasEffects relies on it).
enum class BuiltinFn : uint8_t {
  kLen, kMin, kMax, kAddressOf, kGet, kPut, kCopy, kEq, kCopyFromUser
};

/// The integer a get_/put_ builtin reads or writes: `get_u32be` is {32, unsigned, big endian}.
struct DataAccess {
  uint8_t bits = 8;
  bool is_signed = false;
  bool big_endian = false;
};
/// Parses the part after `get_`/`put_` (`u8`, `i16le`, `u64be`); nullopt when it is none.
std::optional<DataAccess> ParseDataAccess(std::string_view suffix);

/// The most bytes of shared buffers a graph may have: they live in the ring's parameter region,
/// whose size the verifier must know and whose offsets it tracks up to 2^29.
inline constexpr uint64_t kMaxSharedBytes = 256ull << 20;
/// The fewest bytes statx's `into` view may have: a whole struct statx.
inline constexpr uint32_t kStatxBytes = 256;
/// The most buffers of a `provided` pool: the entries of one io_uring buffer ring.
inline constexpr uint64_t kMaxProvidedBuffers = 32768;
/// The most bytes one byte-string literal may hold.
inline constexpr uint64_t kMaxLiteralBytes = 4096;
std::optional<BuiltinFn> FindBuiltinFn(std::string_view name);

/// Predefined constants: errno names (positive), AT_FDCWD, O_*, POLL*, AF_*, SOCK_*.
struct BuiltinConst {
  std::string_view name;
  Type type;
  int64_t value;
};
const std::vector<BuiltinConst>& BuiltinConstants();
const BuiltinConst* FindBuiltinConst(std::string_view name, int* index = nullptr);

/// `u8`..`i64`, `bool`, `fd`, `duration`, `bytes`; nullopt for anything else.
std::optional<Type> TypeByName(std::string_view name);

/// Multiplier of a literal unit: durations to nanoseconds, sizes to bytes. `is_duration` says
/// which kind. nullopt for an unknown unit.
std::optional<uint64_t> UnitScale(std::string_view unit, bool* is_duration);

}  // namespace uringc::sema
