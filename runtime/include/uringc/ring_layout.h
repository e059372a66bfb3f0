// Where a controller finds the SQ and CQ indices inside the rings region, and how much of that
// region it may map. The kernel reports the offsets in io_uring_params at setup; a controller
// receives them as load-time constants, because it cannot read io_uring_params itself.
#pragma once

#include <cstdint>

struct io_uring_params;

namespace uringc {

/// Offsets (bytes into IOU_REGION_CQ) and sizes a controller needs to reap and submit.
struct RingLayout {
  uint32_t sq_entries = 0;
  uint32_t cq_entries = 0;
  uint32_t sq_head_off = 0;
  uint32_t sq_tail_off = 0;
  uint32_t cq_head_off = 0;
  uint32_t cq_tail_off = 0;
  uint32_t cqes_off = 0;
  /// Bytes of the rings region that hold the indices and the whole CQE array.
  uint32_t rings_size = 0;
  /// Bytes of the SQE array (IOU_REGION_SQ); doubled for IORING_SETUP_SQE128 rings.
  uint32_t sqes_size = 0;
  /// 1 on IORING_SETUP_SQ_REWIND rings: SQEs go at sqes[0..n) and the SQ tail stays 0.
  uint32_t sq_rewind = 0;
};

/// Derives the layout from the parameters io_uring_setup filled in.
RingLayout RingLayoutFromParams(const io_uring_params& params);

}  // namespace uringc
