// Buffers parameters at the host boundary. Inside the controller no accepted program touches
// memory outside its buffers; that promise holds only if the host's memory is as long as the
// program was compiled for. So the object declares each buffers parameter's size
// (`.rodata __u64 uringc_buffer_bytes_<name>`), SetBuffer takes a pointer and a length and
// refuses less, the plain setters refuse buffers parameters (an integer is no memory), and Load
// refuses a buffers parameter that was never given memory.
#include <algorithm>
#include <cstring>

#include "uringc/controller.h"

namespace uringc {

Result<void> Controller::ReadBufferParams() {
  const size_t n = strlen(kBufferBytesGlobalPrefix);
  const size_t shared_n = strlen(kSharedBytesGlobalPrefix);
  for (const GlobalVar& v : globals_.vars()) {
    if (v.name.compare(0, shared_n, kSharedBytesGlobalPrefix) == 0) {
      const std::string param = v.name.substr(shared_n);
      auto bytes = GetInt(v.name);
      auto off = GetInt(kSharedOffsetGlobalPrefix + param);
      if (!v.read_only() || v.size != 8 || !bytes || *bytes <= 0 || !off || *off < 0) {
        return MakeError(DiagKind::kBadParameter, EINVAL,
                         "`" + v.name + "` and `" + kSharedOffsetGlobalPrefix + param +
                             "` must be `const volatile __u64` (the bytes of shared buffers "
                             "parameter `" + param + "` and their offset in the region)");
      }
      shared_.push_back(
          {param, static_cast<uint64_t>(*off), static_cast<uint64_t>(*bytes)});
      continue;
    }
    if (v.name.compare(0, n, kBufferBytesGlobalPrefix) != 0) continue;
    const std::string param = v.name.substr(n);
    auto bytes = GetInt(v.name);
    auto p = globals_.Find(param);
    if (!v.read_only() || v.size != 8 || !bytes || *bytes <= 0 || !p || p->size != 8 ||
        (p->kind != ValueKind::kUnsigned && p->kind != ValueKind::kSigned &&
         p->kind != ValueKind::kPointer)) {
      return MakeError(DiagKind::kBadParameter, EINVAL,
                       "`" + v.name +
                           "` must be a `const volatile __u64` of at least 1 "
                           "(the bytes of the 64-bit buffers parameter `" +
                           param + "`)");
    }
    buffers_.push_back({param, static_cast<uint64_t>(*bytes)});
  }
  return {};
}

Result<std::span<uint8_t>> Controller::SharedBuffer(const std::string& name) const {
  for (const SharedBufferParam& s : shared_) {
    if (s.name != name) continue;
    if (!loaded_ || region_ == nullptr) {
      return MakeError(DiagKind::kApiMisuse, EINVAL,
                       "shared buffers parameter `" + name +
                           "` lives in the ring's parameter region: load the controller first");
    }
    if (s.offset + s.bytes > region_size_) {
      return MakeError(DiagKind::kRingNotSupported, EINVAL,
                       "shared buffers parameter `" + name + "` ends past the ring's region");
    }
    return std::span<uint8_t>(region_ + s.offset, s.bytes);
  }
  return MakeError(DiagKind::kBadParameter, EINVAL,
                   "`" + name + "` is not a shared buffers parameter");
}

Result<uint64_t> Controller::BufferBytes(const std::string& name) const {
  for (const BufferParam& b : buffers_)
    if (b.name == name) return b.bytes;
  auto v = globals_.Find(name);
  if (!v) return v.error();
  std::string names;
  for (const BufferParam& b : buffers_) names += (names.empty() ? "`" : ", `") + b.name + "`";
  return MakeError(DiagKind::kBadParameter, EINVAL,
                   "`" + name + "` (" + v->type_name + ") is not a buffers parameter (" +
                       (names.empty() ? "the controller declares none" : "those are " + names) +
                       ")");
}

Result<void> Controller::CheckNotBuffer(const GlobalVar& v) const {
  for (const SharedBufferParam& s : shared_) {
    if (v.name == kSharedOffsetGlobalPrefix + s.name || v.name == kSharedBytesGlobalPrefix + s.name) {
      return MakeError(DiagKind::kBadParameter, EPERM,
                       "`" + v.name + "` says where the program was compiled to keep `" + s.name +
                           "`; it cannot be changed");
    }
  }
  for (const BufferParam& b : buffers_) {
    if (v.name == b.name) {
      return MakeError(DiagKind::kBadParameter, EINVAL,
                       "`" + b.name + "` is a buffers parameter of " + std::to_string(b.bytes) +
                           " bytes: give it memory with "
                           "SetBuffer (C: uringc_ctl__set_buffer), a pointer and a length, "
                           "not a number");
    }
    if (v.name == kBufferBytesGlobalPrefix + b.name) {
      return MakeError(DiagKind::kBadParameter, EPERM,
                       "`" + v.name + "` is the size the program was compiled for `" + b.name +
                           "`; it cannot be changed");
    }
  }
  return {};
}

Result<void> Controller::SetBuffer(const std::string& name, void* data, size_t size) {
  auto need = BufferBytes(name);
  if (!need) return need.error();
  if (data == nullptr)
    return MakeError(DiagKind::kBadParameter, EINVAL,
                     "buffers parameter `" + name + "`: no memory (NULL)");
  if (size < *need) {
    return MakeError(DiagKind::kBadParameter, ENOBUFS,
                     "buffers parameter `" + name + "` needs " + std::to_string(*need) +
                         " bytes of host memory (as compiled) and " + std::to_string(size) +
                         " were given");
  }
  auto v = globals_.Find(name);
  if (!v) return v.error();
  const uint64_t addr = reinterpret_cast<uintptr_t>(data);
  std::vector<uint8_t> bytes(sizeof(addr));
  memcpy(bytes.data(), &addr, sizeof(addr));
  return Write(*v, bytes);
}

Result<void> Controller::CheckBuffersSet() {
  for (const BufferParam& b : buffers_) {
    auto addr = GetBytes(b.name);  // 8 bytes: a __u64 or a pointer
    if (!addr) return addr.error();
    if (std::all_of(addr->begin(), addr->end(), [](uint8_t x) { return x == 0; })) {
      return MakeError(DiagKind::kBadParameter, EINVAL,
                       "buffers parameter `" + b.name + "` has no memory: give it " +
                           std::to_string(b.bytes) +
                           " bytes with SetBuffer (C: "
                           "uringc_ctl__set_buffer) before load (`uringc run` allocates "
                           "them)");
    }
  }
  return {};
}

}  // namespace uringc
