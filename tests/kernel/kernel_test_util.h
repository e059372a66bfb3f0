// Shared by the kernel tests: embedded objects, and the rule that a kernel without
// io_uring_bpf_ops skips a test on the host but fails it in the VM (URINGC_REQUIRE_BPF_OPS=1).
#pragma once

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "uringc/result.h"

namespace uringc_test {

inline bool FeatureRequired() {
  const char* v = std::getenv("URINGC_REQUIRE_BPF_OPS");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

struct Embedded {
  const unsigned char* begin;
  const unsigned char* end;
  size_t size() const { return static_cast<size_t>(end - begin); }
  std::string str() const { return std::string(reinterpret_cast<const char*>(begin), size()); }
};

}  // namespace uringc_test

// Skips (host) or fails (VM) when a load failed because the kernel lacks io_uring_bpf_ops.
#define URINGC_SKIP_IF_NO_BPF_OPS(result)                                                  \
  do {                                                                                     \
    if (!(result).ok() && (result).error().code == -ESRCH) {                               \
      if (uringc_test::FeatureRequired()) FAIL() << (result).error().message;              \
      GTEST_SKIP() << "kernel lacks io_uring_bpf_ops: " << (result).error().message;       \
    }                                                                                      \
  } while (0)

#define URINGC_EMBEDDED(sym)                                             \
  extern "C" const unsigned char sym[];                                  \
  extern "C" const unsigned char sym##_end[];                            \
  static const uringc_test::Embedded sym##_obj{sym, sym##_end}
