// Handing --args to a controller (see apply_args.h).
#include "apply_args.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "uringc/error_diagnostic.h"

namespace uringc {

Resources::~Resources() {
  for (auto& [p, n] : buffers) munmap(p, n);
}

namespace {

// Maps `size` zeroed bytes (reserved lazily, so a large declared size costs what is touched)
// for buffers parameter `name`; SetBuffer refuses fewer bytes than the object declares.
Result<void> GiveBuffer(Controller& ctl, const std::string& name, uint64_t size, Resources& res) {
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED) {
    return MakeError(DiagKind::kOutOfMemory, ENOMEM,
                     "cannot allocate " + std::to_string(size) +
                         " bytes for buffers "
                         "parameter `" +
                         name + "`: " + strerror(errno));
  }
  res.buffers.emplace_back(p, size);
  return ctl.SetBuffer(name, p, size);
}

// `--arg NAME=tcp-addr:HOST:PORT` (or unix-addr:PATH): the address's bytes at the start of
// buffers parameter NAME; a shared one is written once the region exists (WriteSharedBytes).
Result<void> GiveAddress(Controller& ctl, const RunArg& a, Resources& res) {
  auto bytes = SocketAddressBytes(a.name, a.mode, a.value);
  if (!bytes) return bytes.error();
  auto fail = [&](const std::string& why) {
    return MakeError(DiagKind::kBadParameter, EINVAL,
                     "--arg " + a.name + "=" + a.mode + ":" + a.value + ": " + why);
  };
  for (const SharedBufferParam& s : ctl.shared_buffer_params()) {
    if (s.name != a.name) continue;
    if (s.bytes < bytes->size()) {
      return fail("the address takes " + std::to_string(bytes->size()) + " bytes and `" +
                  a.name + "` has " + std::to_string(s.bytes));
    }
    res.shared_bytes.emplace_back(a.name, *bytes);
    return {};
  }
  auto need = ctl.BufferBytes(a.name);
  if (!need) return fail(need.error().message);
  if (*need < bytes->size()) {
    return fail("the address takes " + std::to_string(bytes->size()) + " bytes and `" + a.name +
                "` has " + std::to_string(*need));
  }
  URINGC_TRY(GiveBuffer(ctl, a.name, *need, res));
  std::memcpy(res.buffers.back().first, bytes->data(), bytes->size());
  return {};
}

}  // namespace

Result<void> WriteSharedBytes(Controller& ctl, const Resources& res) {
  for (const auto& [name, bytes] : res.shared_bytes) {
    auto span = ctl.SharedBuffer(name);
    if (!span) return span.error();
    std::memcpy(span->data(), bytes.data(), std::min(bytes.size(), span->size()));
  }
  return {};
}

Result<void> ApplyArg(Controller& ctl, const RunArg& a, Resources& res) {
  switch (a.kind) {
    case RunArg::Kind::kValue:
      return ctl.Set(a.name, a.value);
    case RunArg::Kind::kSocket:
      if (IsAddressKind(a.mode)) return GiveAddress(ctl, a, res);
      [[fallthrough]];
    case RunArg::Kind::kFile: {
      const bool socket = a.kind == RunArg::Kind::kSocket;
      auto v = ctl.globals().Find(a.name);
      if (!v) return v.error();
      if (v->type_name != kFdTypeName || v->size != 4 || v->kind != ValueKind::kSigned) {
        const std::string text = socket ? a.mode + ":" + a.value : a.value + ":" + a.mode;
        return MakeError(DiagKind::kBadParameter, EINVAL,
                         "--arg " + a.name + "=" + text + ": `" + a.name + "` is " +
                             v->type_name + ", not an fd parameter, so no " +
                             (socket ? "socket is made" : "file is opened") +
                             " for it (it goes to a parameter of type `" + kFdTypeName +
                             "`: an `fd` in .uring, `const volatile " + kFdTypeName + "` in C)");
      }
      std::string where;
      auto fd = socket ? res.sockets.Open(a.name, a.mode, a.value, &where)
                       : res.files.Open(a.name, a.value, a.mode);
      if (!fd) return fd.error();
      if (!where.empty()) {
        std::fprintf(stderr, "--arg %s: listening on %s\n", EscapeForTerminal(a.name).c_str(),
                     EscapeForTerminal(where).c_str());
      }
      return ctl.SetInt(a.name, *fd);
    }
    case RunArg::Kind::kBuffer: {
      auto need = ctl.BufferBytes(a.name);
      auto r = need ? GiveBuffer(ctl, a.name, a.size ? a.size : *need, res) : need.error();
      if (!r)
        return MakeError(DiagKind::kBadParameter, r.error().code,
                         "--arg " + a.name + "=buffer: " + r.error().message);
      return {};
    }
  }
  return {};
}

Result<void> GiveDeclaredBuffers(Controller& ctl, Resources& res,
                                 const std::vector<std::string>& skip) {
  for (const BufferParam& b : ctl.buffer_params()) {
    if (std::find(skip.begin(), skip.end(), b.name) != skip.end()) continue;
    auto addr = ctl.GetBytes(b.name);  // the address set by --arg, or 0
    if (addr && *addr == std::vector<uint8_t>(addr->size(), 0)) {
      URINGC_TRY(GiveBuffer(ctl, b.name, b.bytes, res));
    }
  }
  return {};
}

void PrintOutputs(Controller& ctl) {
  for (const GlobalVar& v : ctl.globals().vars()) {
    if (v.read_only() || v.name.rfind("uringc_", 0) == 0) continue;
    auto text = ctl.Format(v.name);
    std::printf("  %s = %s\n", EscapeForTerminal(v.name).c_str(),
                text ? EscapeForTerminal(*text).c_str() : "?");
  }
}

}  // namespace uringc
