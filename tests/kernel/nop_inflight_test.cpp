// Loads the hand-written NOP controller onto a real ring and checks, from the BPF globals, that it
// kept K requests in flight until N completed. Needs a kernel with io_uring_bpf_ops: in the VM it
// must pass (URINGC_REQUIRE_BPF_OPS=1 turns a missing feature into a failure); on an older kernel
// it reports itself skipped with the reason.
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <gtest/gtest.h>
#include <liburing.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "nop_inflight.h"
#include "uringc/ring_layout.h"

extern "C" const unsigned char nop_inflight_bpf_object[];
extern "C" const unsigned char nop_inflight_bpf_object_end[];

namespace {

std::string libbpf_messages;

int CollectLibbpfMessage(enum libbpf_print_level level, const char* format, va_list args) {
  if (level == LIBBPF_DEBUG) return 0;
  char line[1024];
  int n = vsnprintf(line, sizeof(line), format, args);
  libbpf_messages += line;
  return n;
}

bool FeatureRequired() {
  const char* v = std::getenv("URINGC_REQUIRE_BPF_OPS");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

struct NopCase {
  uint32_t inflight;
  uint64_t total;
};

void PrintTo(const NopCase& c, std::ostream* os) {
  *os << "K=" << c.inflight << " N=" << c.total;
}

class NopInflightTest : public ::testing::TestWithParam<NopCase> {
 protected:
  void SetUp() override {
    libbpf_set_print(CollectLibbpfMessage);
    libbpf_messages.clear();
    io_uring_params params{};
    params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
    int ret = io_uring_queue_init_params(64, &ring_, &params);
    ASSERT_EQ(ret, 0) << "io_uring_queue_init_params: " << strerror(-ret);
    ring_ready_ = true;
    layout_ = uringc::RingLayoutFromParams(params);
    // Kernels without the 2026-09-23 fix dereference NULL when the loop runs before the thread's
    // first ordinary submission, so one plain NOP goes through before the controller attaches.
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    io_uring_prep_nop(sqe);
    ASSERT_EQ(io_uring_submit_and_wait(&ring_, 1), 1);
    io_uring_cqe* cqe = nullptr;
    ASSERT_EQ(io_uring_peek_cqe(&ring_, &cqe), 0);
    io_uring_cqe_seen(&ring_, cqe);
  }

  void TearDown() override {
    if (link_) bpf_link__destroy(link_);
    if (object_) bpf_object__close(object_);
    if (ring_ready_) io_uring_queue_exit(&ring_);
  }

  bpf_map* FindInternalMap(const char* suffix) {
    bpf_map* map;
    bpf_object__for_each_map(map, object_) {
      const char* name = bpf_map__name(map);
      size_t n = strlen(name), s = strlen(suffix);
      if (n >= s && strcmp(name + n - s, suffix) == 0) return map;
    }
    return nullptr;
  }

  io_uring ring_{};
  bool ring_ready_ = false;
  uringc::RingLayout layout_;
  bpf_object* object_ = nullptr;
  bpf_link* link_ = nullptr;
};

TEST_P(NopInflightTest, KeepsKInFlightUntilNComplete) {
  const NopCase c = GetParam();
  LIBBPF_OPTS(bpf_object_open_opts, open_opts, .object_name = "nop_inflight");
  object_ = bpf_object__open_mem(nop_inflight_bpf_object,
                                 nop_inflight_bpf_object_end - nop_inflight_bpf_object, &open_opts);
  ASSERT_NE(object_, nullptr) << "bpf_object__open_mem: " << strerror(errno) << "\n"
                              << libbpf_messages;

  bpf_map* rodata = FindInternalMap(".rodata");
  ASSERT_NE(rodata, nullptr);
  size_t size = 0;
  auto* config = static_cast<nop_inflight_config*>(bpf_map__initial_value(rodata, &size));
  ASSERT_EQ(size, sizeof(nop_inflight_config));
  config->sq_entries = layout_.sq_entries;
  config->cq_entries = layout_.cq_entries;
  config->sq_head_off = layout_.sq_head_off;
  config->sq_tail_off = layout_.sq_tail_off;
  config->cq_head_off = layout_.cq_head_off;
  config->cq_tail_off = layout_.cq_tail_off;
  config->cqes_off = layout_.cqes_off;
  config->rings_size = layout_.rings_size;
  config->inflight = c.inflight;
  config->total = c.total;

  bpf_map* ops = bpf_object__find_map_by_name(object_, "nop_inflight_ops");
  ASSERT_NE(ops, nullptr);
  // The object's view of struct io_uring_bpf_ops: loop_step (8 bytes), then ring_fd.
  auto* ops_value = static_cast<unsigned char*>(bpf_map__initial_value(ops, &size));
  ASSERT_NE(ops_value, nullptr);
  ASSERT_GE(size, 12u);
  uint32_t ring_fd = ring_.ring_fd;
  memcpy(ops_value + 8, &ring_fd, sizeof(ring_fd));

  int ret = bpf_object__load(object_);
  if (ret == -ESRCH) {
    if (FeatureRequired()) {
      FAIL() << "kernel lacks io_uring_bpf_ops, but URINGC_REQUIRE_BPF_OPS=1\n" << libbpf_messages;
    }
    GTEST_SKIP() << "kernel lacks io_uring_bpf_ops (libbpf: -ESRCH, struct_ops type not in "
                    "kernel BTF); Linux 7.1+ with CONFIG_IO_URING_BPF_OPS=y is needed";
  }
  ASSERT_EQ(ret, 0) << "bpf_object__load: " << strerror(-ret) << "\n" << libbpf_messages;

  link_ = bpf_map__attach_struct_ops(ops);
  ASSERT_NE(link_, nullptr) << "bpf_map__attach_struct_ops: " << strerror(errno) << "\n"
                            << libbpf_messages;

  bpf_map* bss = FindInternalMap(".bss");
  ASSERT_NE(bss, nullptr);
  ASSERT_EQ(bpf_map__value_size(bss), sizeof(nop_inflight_state));
  nop_inflight_state state{};
  const uint32_t zero = 0;
  // Each enter runs loop_step until it returns STOP; a signal may end an enter early (-EINTR),
  // so bound the number of enters instead of assuming one is enough.
  for (int enter = 0; enter < 100; enter++) {
    ret = io_uring_enter(ring_.ring_fd, 0, 1, IORING_ENTER_GETEVENTS, nullptr);
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

INSTANTIATE_TEST_SUITE_P(Sizes, NopInflightTest,
                         ::testing::Values(NopCase{1, 100}, NopCase{8, 10000}, NopCase{32, 1000}),
                         [](const auto& info) {
                           return "K" + std::to_string(info.param.inflight) + "_N" +
                                  std::to_string(info.param.total);
                         });

}  // namespace
