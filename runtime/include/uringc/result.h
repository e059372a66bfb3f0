// Result<T>: a value or an Error, the runtime's way of returning failures (GCC 12 has no
// std::expected). An Error carries a negative errno, so the C API can return it unchanged, a kind
// from the diagnostic registry (diag/kinds.def), which tools match and `--diagnostics-format=json`
// prints, and a message a user can act on. No exception ever leaves the runtime.
#pragma once

#include <cerrno>
#include <string>
#include <utility>
#include <variant>

#include "uringc/diag/kinds.h"

namespace uringc {

/// A failure: `code` is a negative errno (-EINVAL, -EPERM...), `message` says what happened and what
/// to do, lowercase, possibly several lines.
struct Error {
  int code = -EINVAL;
  std::string message;
  DiagKind kind = DiagKind::kInternalError;
};

/// Builds an Error; the code is made negative if a positive errno was passed.
inline Error MakeError(DiagKind kind, int code, std::string message) {
  return Error{code > 0 ? -code : (code == 0 ? -EINVAL : code), std::move(message), kind};
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

/// Returns from the enclosing function with the error of a failed Result.
#define URINGC_TRY(expr)                               \
  do {                                                 \
    auto uringc_try_result_ = (expr);                  \
    if (!uringc_try_result_.ok()) return uringc_try_result_.error(); \
  } while (0)

}  // namespace uringc
