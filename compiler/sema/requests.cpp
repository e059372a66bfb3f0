// The request table and the predefined names (see requests.h). Numeric values are Linux x86-64
// UAPI values (errno.h, fcntl.h, poll.h, socket.h); BPF controllers only run on Linux.
#include "sema/requests.h"

namespace uringc::sema {
namespace {

const Type kI32 = Type::Int(32, true);
const Type kU32 = Type::Int(32, false);
const Type kU64 = Type::Int(64, false);

}  // namespace

const std::vector<RequestSignature>& Requests() {
  using K = RequestKind;
  const Type fd = Type::Fd(), bytes = Type::Bytes();
  static const std::vector<RequestSignature> kTable = {
      {K::kNop, "nop", "IORING_OP_NOP", {}, kI32},
      {K::kRead, "read", "IORING_OP_READ",
       {{"f", fd, {}}, {"into", bytes, {}}, {"off", kU64, -1}}, kI32, 1},
      {K::kWrite, "write", "IORING_OP_WRITE",
       {{"f", fd, {}}, {"data", bytes, {}}, {"off", kU64, -1}}, kI32, 1},
      {K::kRecv, "recv", "IORING_OP_RECV",
       {{"s", fd, {}}, {"into", bytes, {}}, {"flags", kU32, 0}}, kI32, 1},
      {K::kSend, "send", "IORING_OP_SEND",
       {{"s", fd, {}}, {"data", bytes, {}}, {"flags", kU32, 0}}, kI32, 1},
      {K::kAccept, "accept", "IORING_OP_ACCEPT", {{"s", fd, {}}, {"flags", kU32, 0}}, fd, -1,
       true},
      {K::kConnect, "connect", "IORING_OP_CONNECT", {{"s", fd, {}}, {"addr", bytes, {}}}, kI32},
      {K::kSocket, "socket", "IORING_OP_SOCKET",
       {{"domain", kU32, {}}, {"type", kU32, {}}, {"proto", kU32, 0}}, fd, -1, true},
      {K::kClose, "close", "IORING_OP_CLOSE", {{"f", fd, {}}}, kI32},
      {K::kFsync, "fsync", "IORING_OP_FSYNC", {{"f", fd, {}}, {"datasync", Type::Bool(), 0}},
       kI32},
      {K::kOpenat, "openat", "IORING_OP_OPENAT",
       {{"dir", fd, {}}, {"path", bytes, {}}, {"flags", kU32, 0}, {"mode", kU32, 0}}, fd, -1,
       true},
      {K::kPoll, "poll", "IORING_OP_POLL_ADD", {{"f", fd, {}}, {"events", kU32, {}}}, kI32},
      {K::kSleep, "sleep", "IORING_OP_TIMEOUT", {{"d", Type::Duration(), {}}}, kI32},
      {K::kCancel, "cancel", "IORING_OP_ASYNC_CANCEL", {{"f", fd, {}}}, kI32},
      {K::kOpenat2, "openat2", "IORING_OP_OPENAT2",
       {{"dir", fd, {}}, {"path", bytes, {}}, {"flags", kU32, 0}, {"mode", kU32, 0},
        {"resolve", kU64, 0}},
       fd, -1, true},
      {K::kBind, "bind", "IORING_OP_BIND", {{"s", fd, {}}, {"addr", bytes, {}}}, kI32},
      {K::kListen, "listen", "IORING_OP_LISTEN", {{"s", fd, {}}, {"backlog", kU32, 128}}, kI32},
      {K::kShutdown, "shutdown", "IORING_OP_SHUTDOWN", {{"s", fd, {}}, {"how", kU32, {}}},
       kI32},
      {K::kStatx, "statx", "IORING_OP_STATX",
       {{"dir", fd, {}}, {"path", bytes, {}}, {"into", bytes, {}}, {"mask", kU32, 0x7ff},
        {"flags", kU32, 0}},
       kI32},
      {K::kSplice, "splice", "IORING_OP_SPLICE",
       {{"from", fd, {}}, {"to", fd, {}}, {"len", kU32, {}}, {"from_off", kU64, -1},
        {"to_off", kU64, -1}, {"flags", kU32, 0}},
       kI32},
      // A driver's own command on f (a ublk I/O command, a socket's SIOCINQ): `op` is its
      // cmd_op, `w0` and `w1` the 16 bytes of its payload as two little-endian words.
      {K::kUringCmd, "uring_cmd", "IORING_OP_URING_CMD",
       {{"f", fd, {}}, {"op", kU32, {}}, {"w0", kU64, 0}, {"w1", kU64, 0}}, kI32},
  };
  return kTable;
}

const RequestSignature& Request(RequestKind kind) {
  return Requests()[static_cast<size_t>(kind)];
}

const RequestSignature* FindRequest(std::string_view name) {
  for (const RequestSignature& r : Requests())
    if (r.name == name) return &r;
  return nullptr;
}

std::optional<BuiltinFn> FindBuiltinFn(std::string_view name) {
  if (name == "len") return BuiltinFn::kLen;
  if (name == "min") return BuiltinFn::kMin;
  if (name == "max") return BuiltinFn::kMax;
  if (name == "copy_bytes") return BuiltinFn::kCopy;
  if (name == "equal_bytes") return BuiltinFn::kEq;
  if (name == "copy_from_user") return BuiltinFn::kCopyFromUser;
  if (name == "address_of") return BuiltinFn::kAddressOf;
  if (name.size() > 4 && ParseDataAccess(name.substr(4))) {
    if (name.substr(0, 4) == "get_") return BuiltinFn::kGet;
    if (name.substr(0, 4) == "put_") return BuiltinFn::kPut;
  }
  return std::nullopt;
}

std::optional<DataAccess> ParseDataAccess(std::string_view s) {
  if (s.size() < 2 || (s[0] != 'u' && s[0] != 'i')) return std::nullopt;
  DataAccess d;
  d.is_signed = s[0] == 'i';
  if (s.substr(1) == "8") return d;
  for (uint8_t bits : {16, 32, 64}) {
    const std::string b = std::to_string(bits);
    if (s.substr(1, b.size()) != b) continue;
    const std::string_view end = s.substr(1 + b.size());
    if (end != "le" && end != "be") return std::nullopt;
    d.bits = bits;
    d.big_endian = end == "be";
    return d;
  }
  return std::nullopt;
}

const std::vector<BuiltinConst>& BuiltinConstants() {
  const Type fd = Type::Fd();
  static const std::vector<BuiltinConst> kTable = {
      {"EPERM", kI32, 1},       {"ENOENT", kI32, 2},       {"EINTR", kI32, 4},
      {"EIO", kI32, 5},         {"EBADF", kI32, 9},        {"EAGAIN", kI32, 11},
      {"ENOMEM", kI32, 12},     {"EFAULT", kI32, 14},      {"EBUSY", kI32, 16},
      {"EEXIST", kI32, 17},     {"EINVAL", kI32, 22},      {"ENOSPC", kI32, 28},
      {"EPIPE", kI32, 32},      {"ETIME", kI32, 62},       {"ENOBUFS", kI32, 105},
      {"ECONNRESET", kI32, 104}, {"ETIMEDOUT", kI32, 110}, {"ECONNREFUSED", kI32, 111},
      {"EALREADY", kI32, 114},  {"ECANCELED", kI32, 125},
      {"EXDEV", kI32, 18},      {"ENOTDIR", kI32, 20},     {"EISDIR", kI32, 21},
      {"EFBIG", kI32, 27},      {"ENAMETOOLONG", kI32, 36}, {"EMSGSIZE", kI32, 90},
      {"ESPIPE", kI32, 29},
      {"AT_FDCWD", fd, -100},   {"CUR", kU64, -1},
      {"O_RDONLY", kU32, 0},    {"O_WRONLY", kU32, 1},     {"O_RDWR", kU32, 2},
      {"O_CREAT", kU32, 0100},  {"O_TRUNC", kU32, 01000},  {"O_APPEND", kU32, 02000},
      {"POLLIN", kU32, 0x1},    {"POLLOUT", kU32, 0x4},    {"POLLERR", kU32, 0x8},
      {"POLLHUP", kU32, 0x10},
      {"RESOLVE_NO_XDEV", kU64, 0x01},   {"RESOLVE_NO_MAGICLINKS", kU64, 0x02},
      {"RESOLVE_NO_SYMLINKS", kU64, 0x04}, {"RESOLVE_BENEATH", kU64, 0x08},
      {"RESOLVE_IN_ROOT", kU64, 0x10},   {"RESOLVE_CACHED", kU64, 0x20},
      {"AF_UNIX", kU32, 1},     {"AF_INET", kU32, 2},      {"AF_INET6", kU32, 10},
      {"SOCK_STREAM", kU32, 1}, {"SOCK_DGRAM", kU32, 2},
      {"SHUT_RD", kU32, 0},     {"SHUT_WR", kU32, 1},      {"SHUT_RDWR", kU32, 2},
      {"STATX_TYPE", kU32, 0x1}, {"STATX_MODE", kU32, 0x2}, {"STATX_MTIME", kU32, 0x40},
      {"STATX_SIZE", kU32, 0x200}, {"STATX_BASIC_STATS", kU32, 0x7ff},
      {"AT_SYMLINK_NOFOLLOW", kU32, 0x100}, {"AT_EMPTY_PATH", kU32, 0x1000},
      {"S_IFMT", kU32, 0xf000}, {"S_IFREG", kU32, 0x8000}, {"S_IFDIR", kU32, 0x4000},
      {"SPLICE_F_MOVE", kU32, 1}, {"SPLICE_F_NONBLOCK", kU32, 2}, {"SPLICE_F_MORE", kU32, 4},
  };
  return kTable;
}

const BuiltinConst* FindBuiltinConst(std::string_view name, int* index) {
  const auto& t = BuiltinConstants();
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].name == name) {
      if (index) *index = static_cast<int>(i);
      return &t[i];
    }
  }
  return nullptr;
}

std::optional<Type> TypeByName(std::string_view name) {
  if (name == "bool") return Type::Bool();
  if (name == "fd") return Type::Fd();
  if (name == "duration") return Type::Duration();
  if (name == "bytes") return Type::Bytes();
  if (name.size() >= 2 && (name[0] == 'u' || name[0] == 'i')) {
    const std::string_view bits = name.substr(1);
    for (int b : {8, 16, 32, 64}) {
      if (bits == std::to_string(b)) return Type::Int(static_cast<uint8_t>(b), name[0] == 'i');
    }
  }
  return std::nullopt;
}

std::optional<uint64_t> UnitScale(std::string_view unit, bool* is_duration) {
  struct U { std::string_view name; uint64_t scale; bool duration; };
  static const U kUnits[] = {{"ns", 1, true},          {"us", 1000, true},
                             {"ms", 1000000, true},     {"s", 1000000000, true},
                             {"B", 1, false},           {"KiB", 1ull << 10, false},
                             {"MiB", 1ull << 20, false}, {"GiB", 1ull << 30, false}};
  for (const U& u : kUnits) {
    if (u.name == unit) {
      *is_duration = u.duration;
      return u.scale;
    }
  }
  return std::nullopt;
}

}  // namespace uringc::sema
