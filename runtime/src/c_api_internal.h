// What the C API's files share (c_api.cpp, c_api_ublk.cpp): the handle behind struct uringc_ctl,
// reading a caller's options struct, and the per-thread error of a failed constructor.
#pragma once

#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <string_view>

#include "uringc/controller.h"
#include "uringc/result.h"
#include "uringc/uringc.h"

struct uringc_ctl {
  /// The controller, when this handle owns it; a ublk server takes it over (uringc_ublk__start)
  /// and `ctl` then points at the server's.
  std::unique_ptr<uringc::Controller> owned;
  uringc::Controller* ctl = nullptr;
  std::string last_error;
  std::string_view last_kind;  // a name of diag/kinds.def, "" with no error
  std::string engine_reason = "kernel: a BPF object";
};

namespace uringc::c_api {

/// Copies the caller's options (of their compiled size) into a zeroed struct of ours; false
/// when `sz` is too small or fields this library does not know are set.
template <typename T>
bool ReadOpts(const T* in, T* out) {
  *out = T{};
  if (!in) return true;
  if (in->sz < sizeof(size_t)) return false;
  const size_t n = in->sz < sizeof(T) ? in->sz : sizeof(T);
  for (size_t i = sizeof(T); i < in->sz; ++i)
    if (reinterpret_cast<const char*>(in)[i] != 0) return false;
  memcpy(out, in, n);
  return true;
}

/// The error an escaping exception stands for.
Error FromException(std::exception_ptr e);

/// A constructor failed: uringc_last_error() and uringc_last_error_kind() say `e`, errno is set.
void SetConstructorError(const Error& e);

}  // namespace uringc::c_api
