// The user-space mapping of an io_uring ring, done by hand (io_uring_setup's fd + mmap) because
// liburing 2.3 maps NO_SQARRAY rings wrongly (its sq.array aliases the SQ head). Two kinds of
// ring, told apart by their flags:
//   SQ_REWIND (with NO_SQARRAY): every submission takes sqes[0..n); the SQ head and tail stay 0
//           (the UAPI calls any other value undefined behaviour);
//   tail:   SQEs go at the SQ tail; on rings with an SQ index array, slot i holds SQE i, which
//           controllers rely on.
// Needs IORING_FEAT_SINGLE_MMAP (Linux 5.4+): the SQ and CQ rings are one mapping.
#pragma once

#include <liburing.h>

#include <cstdint>
#include <memory>

#include "uringc/result.h"

namespace uringc {

class RingMap {
 public:
  /// Maps the rings region and the SQE array of `fd` as `params` (filled by io_uring_setup)
  /// describe, and fills the SQ index array where there is one.
  static Result<std::unique_ptr<RingMap>> Map(int fd, const io_uring_params& params);
  ~RingMap();
  RingMap(const RingMap&) = delete;
  RingMap& operator=(const RingMap&) = delete;

  bool rewind() const { return rewind_; }
  /// The mappings a controller sees as IOU_REGION_CQ (the rings) and IOU_REGION_SQ (the SQEs).
  void* rings() const { return rings_; }
  size_t rings_size() const { return rings_size_; }
  void* sqes() const { return sqes_; }
  size_t sqes_size() const { return sqes_size_; }
  /// The i-th SQE of the next submission, zeroed; i < sq_entries.
  io_uring_sqe* Sqe(uint32_t i);
  /// Makes the first n SQEs handed out since the last submission visible to io_uring_enter:
  /// advances the SQ tail on tail rings, nothing on SQ_REWIND rings.
  void Publish(uint32_t n);
  /// Completions posted and not yet seen; the i-th of them; marks n of them seen.
  uint32_t CqReady() const;
  const io_uring_cqe& Cqe(uint32_t i) const;
  void CqAdvance(uint32_t n);

 private:
  RingMap() = default;

  bool rewind_ = false;
  uint32_t sq_mask_ = 0, cq_mask_ = 0;
  uint32_t sqe_size_ = 64, cqe_size_ = 16;
  void* rings_ = nullptr;
  size_t rings_size_ = 0;
  char* sqes_ = nullptr;
  size_t sqes_size_ = 0;
  uint32_t* sq_tail_ = nullptr;
  uint32_t* cq_head_ = nullptr;
  uint32_t* cq_tail_ = nullptr;
  char* cqes_ = nullptr;
};

}  // namespace uringc
