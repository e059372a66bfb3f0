// RingLayout against a real ring on the host: the offsets must point at the same words liburing
// maps, and the region sizes must cover the whole CQE array.
#include "uringc/ring_layout.h"

#include <gtest/gtest.h>
#include <liburing.h>

#include <cstring>

namespace {

class RingLayoutTest : public ::testing::TestWithParam<unsigned> {};

TEST_P(RingLayoutTest, OffsetsMatchLiburingsMapping) {
  io_uring ring{};
  io_uring_params params{};
  params.flags = GetParam();
  ASSERT_EQ(io_uring_queue_init_params(32, &ring, &params), 0);
  const uringc::RingLayout layout = uringc::RingLayoutFromParams(params);
  // liburing 2.3 maps SQ and CQ rings at the same address when the kernel has SINGLE_MMAP.
  auto* base = static_cast<char*>(ring.cq.ring_ptr);
  EXPECT_EQ(base + layout.cq_head_off, reinterpret_cast<char*>(ring.cq.khead));
  EXPECT_EQ(base + layout.cq_tail_off, reinterpret_cast<char*>(ring.cq.ktail));
  EXPECT_EQ(base + layout.cqes_off, reinterpret_cast<char*>(ring.cq.cqes));
  EXPECT_EQ(static_cast<char*>(ring.sq.ring_ptr) + layout.sq_tail_off,
            reinterpret_cast<char*>(ring.sq.ktail));
  EXPECT_EQ(layout.sq_entries, 32u);
  EXPECT_EQ(layout.cq_entries, params.cq_entries);
  const unsigned cqe_size = (params.flags & IORING_SETUP_CQE32) ? 32 : 16;
  EXPECT_EQ(layout.rings_size, layout.cqes_off + layout.cq_entries * cqe_size);
  EXPECT_LE(layout.rings_size, ring.cq.ring_sz);
  io_uring_queue_exit(&ring);
}

INSTANTIATE_TEST_SUITE_P(Flags, RingLayoutTest,
                         ::testing::Values(0u,
                                           IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
                                           IORING_SETUP_CQE32, IORING_SETUP_SQE128));

TEST(RingLayout, SqeAndCqeSizesFollowSetupFlags) {
  io_uring_params params{};
  params.sq_entries = 8;
  params.cq_entries = 16;
  params.cq_off.cqes = 64;
  EXPECT_EQ(uringc::RingLayoutFromParams(params).sqes_size, 8u * 64);
  EXPECT_EQ(uringc::RingLayoutFromParams(params).rings_size, 64u + 16 * 16);
  params.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
  EXPECT_EQ(uringc::RingLayoutFromParams(params).sqes_size, 8u * 128);
  EXPECT_EQ(uringc::RingLayoutFromParams(params).rings_size, 64u + 16 * 32);
}

}  // namespace
