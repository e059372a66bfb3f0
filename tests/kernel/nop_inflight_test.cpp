// Loads the hand-written NOP controller onto a real ring and checks, from the BPF globals, that it
// kept K requests in flight until N completed. Needs a kernel with io_uring_bpf_ops: in the VM it
// must pass (URINGC_REQUIRE_BPF_OPS=1 turns a missing feature into a failure); on an older kernel
// it reports itself skipped with the reason. Built for 7.2 and for 7.1 (the 7.1 guest), like the
// object it loads (-DURINGC_TARGET_KERNEL_7_1).
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <gtest/gtest.h>
#include <liburing.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "controller_fixture.h"
#include "kernel_test_util.h"
#include "nop_inflight.h"

namespace {

using uringc::testing::FindInternalMap;
using uringc::testing::libbpf_messages;

struct NopCase {
  uint32_t inflight;
  uint64_t total;
};

void PrintTo(const NopCase& c, std::ostream* os) {
  *os << "K=" << c.inflight << " N=" << c.total;
}

class NopInflightTest : public uringc::testing::RingFixture,
                        public ::testing::WithParamInterface<NopCase> {};

TEST_P(NopInflightTest, KeepsKInFlightUntilNComplete) {
  const NopCase c = GetParam();
  ASSERT_NO_FATAL_FAILURE(OpenHandWritten(c.inflight, c.total));
  ASSERT_NO_FATAL_FAILURE(Load(/*log_level=*/0));
  if (IsSkipped()) return;

  link_ = bpf_map__attach_struct_ops(bpf_object__find_map_by_name(object_, "nop_inflight_ops"));
  ASSERT_NE(link_, nullptr) << "bpf_map__attach_struct_ops: " << strerror(errno) << "\n"
                            << libbpf_messages;

  bpf_map* bss = FindInternalMap(object_, ".bss");
  ASSERT_NE(bss, nullptr);
  ASSERT_EQ(bpf_map__value_size(bss), sizeof(nop_inflight_state));
  nop_inflight_state state{};
  const uint32_t zero = 0;
  // Each enter runs loop_step until it returns STOP; a signal may end an enter early (-EINTR),
  // so bound the number of enters instead of assuming one is enough.
  for (int enter = 0; enter < 100; enter++) {
    int ret = io_uring_enter(ring_.ring_fd, 0, 1, IORING_ENTER_GETEVENTS, nullptr);
    ASSERT_TRUE(ret >= 0 || errno == EINTR) << "io_uring_enter: " << strerror(errno);
    ASSERT_EQ(bpf_map_lookup_elem(bpf_map__fd(bss), &zero, &state), 0);
    if (state.stop_reason != NOP_STOP_NONE) break;
  }
  EXPECT_EQ(state.stop_reason, static_cast<uint32_t>(NOP_STOP_DONE))
      << "submit_ret=" << state.submit_ret;
  EXPECT_EQ(state.completed, c.total);
  EXPECT_EQ(state.submitted, c.total);
  EXPECT_EQ(state.failed, 0u);
  EXPECT_EQ(state.max_inflight, c.inflight);
  EXPECT_GE(state.steps, c.total / c.inflight);
  // Every CQE was reaped by the controller: user space sees an empty CQ.
  EXPECT_EQ(io_uring_cq_ready(&ring_), 0u);
  std::printf("inflight=%u total=%llu completed=%llu steps=%llu max_inflight=%u\n", c.inflight,
              static_cast<unsigned long long>(c.total),
              static_cast<unsigned long long>(state.completed),
              static_cast<unsigned long long>(state.steps), state.max_inflight);
}

TEST(NopInflightObject, WasBuiltForThisBuildsKernelAbi) {
  EXPECT_EQ(uringc_test::ObjectAbi(nop_inflight_bpf_object, nop_inflight_bpf_object_end),
            uringc_test::BuiltAbi())
      << "nop_inflight.bpf.c is not built for " << URINGC_TEST_OBJECT_ABI;
}

INSTANTIATE_TEST_SUITE_P(Sizes, NopInflightTest,
                         ::testing::Values(NopCase{1, 100}, NopCase{8, 10000}, NopCase{32, 1000}),
                         [](const auto& info) {
                           return "K" + std::to_string(info.param.inflight) + "_N" +
                                  std::to_string(info.param.total);
                         });

}  // namespace
