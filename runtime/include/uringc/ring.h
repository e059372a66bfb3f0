// A ring a controller can drive: created with SINGLE_ISSUER|DEFER_TASKRUN (the kernel refuses to
// attach to anything else), sized by the caller, optionally with a parameter region
// (IORING_REGISTER_MEM_REGION) that the controller sees as IOU_REGION_MEM.
//
// liburing 2.3 keeps a private copy of the SQ tail: once a controller submits from BPF, liburing's
// SQ helpers would overwrite the kernel-visible tail with a stale value. So the ring makes its one
// ordinary submission (a NOP, from the creating thread) at creation, which is also the workaround
// for kernels without the 2026-09-23 fix (NULL dereference when the loop runs before the thread's
// first submission), and offers no SQ helpers afterwards.
#pragma once

#include <liburing.h>

#include <cstdint>
#include <memory>
#include <sys/types.h>

#include "uringc/kernel.h"
#include "uringc/result.h"
#include "uringc/ring_layout.h"

namespace uringc {

struct RingOptions {
  uint32_t sq_entries = 64;
  /// 0: the kernel's default (twice sq_entries).
  uint32_t cq_entries = 0;
  /// Added to SINGLE_ISSUER|DEFER_TASKRUN; SQPOLL, IOPOLL, R_DISABLED and NO_SQARRAY are refused.
  uint32_t extra_flags = 0;
  /// IORING_SETUP_SUBMIT_ALL: an SQE whose preparation fails completes with its error and the
  /// kernel submits the rest of the batch. Without it the kernel stops there and a compiled
  /// controller submits the rest itself (a few more calls; docs/embedding.md).
  bool submit_all = true;
  /// Bytes of parameter region to register (rounded up to pages); 0 for none.
  size_t mem_region_size = 0;
  /// The kernel to call; nullptr for the real one.
  KernelInterface* kernel = nullptr;
};

/// The part of a ring a controller keeps after loading: it outlives the Ring, so a controller
/// can tell that its ring was closed (fd == -1) instead of entering a reused descriptor.
struct RingHandle {
  int fd = -1;
  pid_t owner_tid = 0;
  KernelInterface* kernel = nullptr;
};

class Ring {
 public:
  /// Sets up the ring, registers the parameter region, and makes the priming submission.
  static Result<std::unique_ptr<Ring>> Create(const RingOptions& options);
  /// Wraps a ring the caller created and keeps owning (e.g. with liburing). The caller must have
  /// made one ordinary submission on it from the owning thread, and must not use liburing's SQ
  /// helpers on it once a controller is attached. The fd is not closed by ~Ring.
  static Result<std::unique_ptr<Ring>> Borrow(int fd, const io_uring_params& params,
                                              KernelInterface* kernel = nullptr);
  ~Ring();
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;

  int fd() const { return handle_->fd; }
  const io_uring_params& params() const { return params_; }
  const RingLayout& layout() const { return layout_; }
  /// The parameter region (IOU_REGION_MEM) as user space sees it; nullptr/0 without one.
  void* mem_region() const { return mem_; }
  size_t mem_region_size() const { return mem_size_; }
  /// The thread that created the ring: the only one allowed to enter it (SINGLE_ISSUER).
  pid_t owner_tid() const { return handle_->owner_tid; }
  std::shared_ptr<RingHandle> handle() const { return handle_; }
  /// CQEs posted and not yet consumed (CQ tail - head), read from the mapped rings; for checks
  /// such as "the controller left no completion behind". 0 for a borrowed ring.
  uint32_t CqReady() const;

 private:
  Ring() = default;
  Result<void> RegisterMemRegion(size_t size);
  Result<void> PrimeSubmission();

  std::shared_ptr<RingHandle> handle_;
  io_uring ring_{};
  bool mapped_ = false;
  bool owned_ = true;
  io_uring_params params_{};
  RingLayout layout_;
  void* mem_ = nullptr;
  size_t mem_size_ = 0;
};

/// The text for a failed io_uring_setup, with what to change.
std::string ExplainSetupError(int err, uint32_t flags);

}  // namespace uringc
