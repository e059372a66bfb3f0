// Computes RingLayout from io_uring_params. Sizes follow the UAPI: 64-byte SQEs (128 with
// SQE128) and 16-byte CQEs (32 with CQE32).
#include "uringc/ring_layout.h"

#include <liburing.h>

#include "uringc/liburing_compat.h"

namespace uringc {

RingLayout RingLayoutFromParams(const io_uring_params& params) {
  const uint32_t sqe_size = (params.flags & IORING_SETUP_SQE128) ? 128 : 64;
  const uint32_t cqe_size = (params.flags & IORING_SETUP_CQE32) ? 32 : 16;
  RingLayout layout;
  layout.sq_entries = params.sq_entries;
  layout.cq_entries = params.cq_entries;
  layout.sq_head_off = params.sq_off.head;
  layout.sq_tail_off = params.sq_off.tail;
  layout.cq_head_off = params.cq_off.head;
  layout.cq_tail_off = params.cq_off.tail;
  layout.cqes_off = params.cq_off.cqes;
  layout.rings_size = params.cq_off.cqes + params.cq_entries * cqe_size;
  layout.sqes_size = params.sq_entries * sqe_size;
  layout.sq_rewind = (params.flags & IORING_SETUP_SQ_REWIND) ? 1 : 0;
  return layout;
}

}  // namespace uringc
