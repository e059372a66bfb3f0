// The request kinds the generated "requests" controller can issue, shared by the generator
// (request_program.cpp) and the kernel test that drives it (no LLVM needed to include this).
#pragma once

#include <cstdint>

namespace uringc::testing {

/// Selected at load time through `.rodata` `op`; the verifier prunes the other cases.
enum class RequestOp : uint32_t {
  kNop = 0,
  kRead,
  kWrite,
  kRecv,
  kSend,
  kAccept,
  kConnect,
  kClose,
  kFsync,
  kOpenat,
  kPollAdd,
  kTimeout,
  kLinkTimeout,  ///< poll_add(fd, POLLIN) linked to link_timeout(addr): two completions
  kAsyncCancel,  ///< poll_add(fd, POLLIN), then async_cancel of it: two completions
  kCount,
};

/// Number of completions an op produces.
constexpr uint32_t RequestCompletions(RequestOp op) {
  return op == RequestOp::kLinkTimeout || op == RequestOp::kAsyncCancel ? 2 : 1;
}

}  // namespace uringc::testing
