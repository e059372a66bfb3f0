// A ring the benchmark sets up itself with exactly the flags of the rings it compares against,
// mapped by the runtime's uringc::RingMap. Two layouts, so the C baselines and the user-space
// loops can run on either:
//   rewind: SINGLE_ISSUER|DEFER_TASKRUN|NO_SQARRAY|CQSIZE|SQ_REWIND, the rings of liburing's
//           reference controllers: every submission takes sqes[0..n), there is no SQ tail;
//   tail:   SINGLE_ISSUER|DEFER_TASKRUN|CQSIZE|SUBMIT_ALL with the SQ index array, the flags
//           of uringc::Ring's RingMode::kTail: SQEs go at the SQ tail.
// The ring makes one ordinary submission at creation (see uringc/ring.h for why).
#pragma once

#include <liburing.h>

#include <cstdint>
#include <memory>
#include <string>

#include "uringc/ring.h"
#include "uringc/ring_map.h"

namespace uringc_bench {

using uringc::RingMode;

class BenchRing {
 public:
  /// kRewind or kTail; nullptr and *error on failure.
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
  io_uring_sqe* Sqe(uint32_t i) { return map_->Sqe(i); }
  /// Submits the first n SQEs handed out since the last submission and waits for wait_nr
  /// completions: n or -errno.
  int Submit(uint32_t n, uint32_t wait_nr);
  /// Completions waiting; the i-th of them; marks n of them seen.
  uint32_t CqReady() const { return map_->CqReady(); }
  const io_uring_cqe& Cqe(uint32_t i) const { return map_->Cqe(i); }
  void CqAdvance(uint32_t n) { map_->CqAdvance(n); }

 private:
  BenchRing() = default;

  RingMode mode_ = RingMode::kRewind;
  int fd_ = -1;
  io_uring_params params_{};
  std::unique_ptr<uringc::RingMap> map_;
};

}  // namespace uringc_bench
