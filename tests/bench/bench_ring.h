// A ring the benchmark maps by hand (io_uring_setup + mmap), because liburing 2.3 cannot map
// NO_SQARRAY rings. Two layouts, so the C baselines and the user-space loops can run on either:
//   rewind: SINGLE_ISSUER|DEFER_TASKRUN|NO_SQARRAY|CQSIZE|SQ_REWIND, the rings of liburing's
//           reference controllers: every submission takes sqes[0..n), there is no SQ tail;
//   tail:   SINGLE_ISSUER|DEFER_TASKRUN|CQSIZE|SUBMIT_ALL with the SQ index array, the flags
//           uringc::Ring::Create uses: SQEs go at the SQ tail.
// The ring makes one ordinary submission at creation (see uringc/ring.h for why).
#pragma once

#include <liburing.h>

#include <cstdint>
#include <memory>
#include <string>

namespace uringc_bench {

enum class RingMode { kRewind, kTail };

/// "rewind" or "tail"; false for anything else.
bool ParseRingMode(const std::string& text, RingMode* mode);
const char* RingModeName(RingMode mode);

class BenchRing {
 public:
  /// nullptr and *error on failure.
  static std::unique_ptr<BenchRing> Create(RingMode mode, uint32_t sq_entries, uint32_t cq_entries,
                                           std::string* error);
  ~BenchRing();
  BenchRing(const BenchRing&) = delete;
  BenchRing& operator=(const BenchRing&) = delete;

  int fd() const { return fd_; }
  const io_uring_params& params() const { return params_; }
  RingMode mode() const { return mode_; }
  uint32_t sq_entries() const { return params_.sq_entries; }

  /// The i-th SQE of the next submission (zeroed); i < sq_entries.
  io_uring_sqe* Sqe(uint32_t i);
  /// Submits the first n SQEs handed out since the last submission and waits for wait_nr
  /// completions: n or -errno.
  int Submit(uint32_t n, uint32_t wait_nr);
  /// Completions waiting; the i-th of them; marks n of them seen.
  uint32_t CqReady() const;
  const io_uring_cqe& Cqe(uint32_t i) const;
  void CqAdvance(uint32_t n);

 private:
  BenchRing() = default;

  RingMode mode_ = RingMode::kRewind;
  int fd_ = -1;
  io_uring_params params_{};
  void* rings_ = nullptr;
  size_t rings_size_ = 0;
  io_uring_sqe* sqes_ = nullptr;
  size_t sqes_size_ = 0;
  uint32_t* sq_tail_ = nullptr;
  uint32_t* cq_head_ = nullptr;
  uint32_t* cq_tail_ = nullptr;
  io_uring_cqe* cqes_ = nullptr;
};

}  // namespace uringc_bench
