// Shared by the kernel tests: embedded objects, the kernel ABI they were built for, and the rule
// that a kernel without io_uring_bpf_ops skips a test on the host but fails it in the VM
// (URINGC_REQUIRE_BPF_OPS=1).
#pragma once

#include <bpf/libbpf.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "uringc/features.h"
#include "uringc/result.h"

// The kernel ABI this binary's objects were built for: the kernel tests are built once for 7.2
// and once for 7.1 (vm.trixie-backports-7.1), from the same sources.
#ifndef URINGC_TEST_OBJECT_ABI
#define URINGC_TEST_OBJECT_ABI "7.2"
#endif

namespace uringc_test {

inline bool FeatureRequired() {
  const char* v = std::getenv("URINGC_REQUIRE_BPF_OPS");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

/// URINGC_TEST_ENGINE=host: the compiled-program tests run their programs on the host engine
/// (the --target=host builds linked into the binary) instead of loading them into the kernel.
/// CTest registers them once per engine (`kernel.*` and `host.*`); the VM runs both.
inline bool OnHostEngine() {
  const char* v = std::getenv("URINGC_TEST_ENGINE");
  return v != nullptr && std::strcmp(v, "host") == 0;
}

// A check only the kernel engine has (the verifier's work, its rejections).
#define URINGC_SKIP_ON_HOST_ENGINE()                                                    \
  do {                                                                                  \
    if (uringc_test::OnHostEngine()) GTEST_SKIP() << "the host engine has no verifier"; \
  } while (0)

struct Embedded {
  const unsigned char* begin;
  const unsigned char* end;
  size_t size() const { return static_cast<size_t>(end - begin); }
  std::string str() const { return std::string(reinterpret_cast<const char*>(begin), size()); }
};

/// The ABI an object was built for, read from its BTF the way the runtime reads the kernel's:
/// the struct that io_uring_bpf_ops.loop_step takes first. kNone if the object has no BTF.
inline uringc::BpfOpsAbi ObjectAbi(const unsigned char* begin, const unsigned char* end) {
  bpf_object* obj = bpf_object__open_mem(begin, static_cast<size_t>(end - begin), nullptr);
  if (obj == nullptr) return uringc::BpfOpsAbi::kNone;
  const btf* b = bpf_object__btf(obj);
  const uringc::BpfOpsAbi abi = b ? uringc::AnalyzeKernelBtf(b, "").abi : uringc::BpfOpsAbi::kNone;
  bpf_object__close(obj);
  return abi;
}

/// URINGC_TEST_OBJECT_ABI as detection names it.
inline uringc::BpfOpsAbi BuiltAbi() {
  return std::strcmp(URINGC_TEST_OBJECT_ABI, "7.1") == 0 ? uringc::BpfOpsAbi::kIoRingCtx
                                                         : uringc::BpfOpsAbi::kIouCtx;
}

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
