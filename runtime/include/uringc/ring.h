// A ring a controller can drive: created with SINGLE_ISSUER|DEFER_TASKRUN (the kernel refuses to
// attach to anything else), sized by the caller, optionally with a parameter region
// (IORING_REGISTER_MEM_REGION) that the controller sees as IOU_REGION_MEM. By default with
// NO_SQARRAY|SQ_REWIND where the kernel has it (Linux 7.0+, so every kernel with
// io_uring_bpf_ops): the rings of liburing's reference controllers, where a controller writes
// sqes[0..n) and never touches the SQ tail. Mapped by hand (RingMap).
//
// liburing 2.3 keeps a private copy of the SQ tail: once a controller submits from BPF, liburing's
// SQ helpers would overwrite the kernel-visible tail with a stale value. So the ring makes its one
// ordinary submission (a NOP, from the creating thread) at creation, which is also the workaround
// for kernels without the 2026-09-23 fix (NULL dereference when the loop runs before the thread's
// first submission), and offers no SQ helpers afterwards.
#pragma once

#include <liburing.h>
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "uringc/kernel.h"
#include "uringc/result.h"
#include "uringc/ring_layout.h"
#include "uringc/ring_map.h"

namespace uringc {

/// How the SQ works. kAuto: kRewind where the kernel has SQ_REWIND and submit_all is on (without
/// SUBMIT_ALL a hand-written controller may have to submit the rest of a batch after a failed
/// preparation, which only a tail ring allows), else kTail.
///   kRewind: NO_SQARRAY|SQ_REWIND, every submission takes sqes[0..n), no SQ tail;
///   kTail:   an SQ index array (slot i holds SQE i) and an SQ tail the controller advances.
enum class RingMode { kAuto, kRewind, kTail };

/// "auto", "rewind" or "tail"; false for anything else.
bool ParseRingMode(const std::string& text, RingMode* mode);
const char* RingModeName(RingMode mode);

struct RingOptions {
  uint32_t sq_entries = 64;
  /// 0: the kernel's default (twice sq_entries).
  uint32_t cq_entries = 0;
  /// Added to SINGLE_ISSUER|DEFER_TASKRUN; SQPOLL, IOPOLL, R_DISABLED, NO_MMAP, NO_SQARRAY and
  /// SQ_REWIND are refused (`mode` chooses the last two).
  uint32_t extra_flags = 0;
  RingMode mode = RingMode::kAuto;
  /// IORING_SETUP_SUBMIT_ALL: an SQE whose preparation fails completes with its error and the
  /// kernel submits the rest of the batch. Without it the kernel stops there; compiled
  /// controllers submit each batch with one call and are refused on such rings.
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
  /// An SQ_REWIND ring (controllers write sqes[0..n) and leave the SQ tail alone).
  bool rewind() const { return layout_.sq_rewind != 0; }
  /// RingMode::kAuto asked the kernel for an SQ_REWIND ring and it refused (a kernel before 7.0),
  /// so this ring has an SQ tail.
  bool sq_rewind_refused() const { return sq_rewind_refused_; }
  /// The parameter region (IOU_REGION_MEM) as user space sees it; nullptr/0 without one.
  void* mem_region() const { return mem_; }
  size_t mem_region_size() const { return mem_size_; }
  /// The kernel took the parameter region (IORING_REGISTER_MEM_REGION, Linux 6.13+). Before 6.13
  /// it stays user memory only: enough for the host engine; the kernel engine refuses it.
  bool mem_region_registered() const { return mem_registered_; }
  /// The ring's user-space mapping; nullptr for a borrowed ring.
  const RingMap* map() const { return map_.get(); }
  /// The thread that created the ring: the only one allowed to enter it (SINGLE_ISSUER).
  pid_t owner_tid() const { return handle_->owner_tid; }
  std::shared_ptr<RingHandle> handle() const { return handle_; }
  /// Registers buffer group 0 as a buffer ring of `count` entries (a power of two) at offset
  /// `ring_off` of the parameter region, and fills it with the `count` buffers of `size` bytes at
  /// `buf_off` (a `provided` pool: the controller gives buffers back as it is done with them).
  /// A group 0 registered before (an earlier controller on this ring) is replaced.
  Result<void> ProvideBufferRing(uint64_t ring_off, uint32_t count, uint64_t buf_off,
                                 uint64_t size) const;
  /// Registers `iov` as the ring's fixed buffers (IORING_REGISTER_BUFFERS), replacing any an
  /// earlier controller registered; returns the kernel's error (ENOMEM past RLIMIT_MEMLOCK...).
  Result<void> RegisterFixedBuffers(const std::vector<std::pair<void*, size_t>>& iov) const;
  /// CQEs posted and not yet consumed (CQ tail - head), read from the mapped rings; for checks
  /// such as "the controller left no completion behind". 0 for a borrowed ring.
  uint32_t CqReady() const;

 private:
  Ring() = default;
  Result<void> Setup(const RingOptions& options, RingMode mode);
  Result<void> RegisterMemRegion(size_t size);
  Result<void> PrimeSubmission();

  std::shared_ptr<RingHandle> handle_;
  std::unique_ptr<RingMap> map_;  ///< nullptr for a borrowed ring
  bool owned_ = true;
  bool sq_rewind_refused_ = false;
  io_uring_params params_{};
  RingLayout layout_;
  void* mem_ = nullptr;
  size_t mem_size_ = 0;
  bool mem_registered_ = false;
};

/// The text for a failed io_uring_setup, with what to change.
std::string ExplainSetupError(int err, uint32_t flags);

}  // namespace uringc
