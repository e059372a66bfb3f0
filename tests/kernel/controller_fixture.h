// Shared by the kernel tests that drive a controller through libbpf itself rather than the
// runtime (the verifier's log and instruction counts, the hand-written C controller): a ring set
// up the way the runtime sets one up for a controller, loading an embedded object (ring constants
// and parameters in .rodata, ring_fd in the struct_ops map), the verifier log, and reading .bss
// globals by name. Needs io_uring_bpf_ops; on kernels without it
// Load() skips the test with the reason (fails with URINGC_REQUIRE_BPF_OPS=1).
#pragma once

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <gtest/gtest.h>
#include <liburing.h>

#include <cerrno>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "nop_inflight.h"
#include "object_globals.h"
#include "uringc/ring_layout.h"

extern "C" const unsigned char nop_inflight_bpf_object[];
extern "C" const unsigned char nop_inflight_bpf_object_end[];

namespace uringc::testing {

inline std::string libbpf_messages;

inline int CollectLibbpfMessage(enum libbpf_print_level level, const char* format, va_list args) {
  if (level == LIBBPF_DEBUG) return 0;
  char line[1024];
  int n = vsnprintf(line, sizeof(line), format, args);
  libbpf_messages += line;
  return n;
}

inline bool FeatureRequired() {
  const char* v = std::getenv("URINGC_REQUIRE_BPF_OPS");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

struct Embedded {
  const char* label;     // for test names and reports
  const char* program;   // program (and graph) name
  const unsigned char* begin;
  const unsigned char* end;
};

// A ring the way the runtime sets it up for a controller, plus the loaded object.
class RingFixture : public ::testing::Test {
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

  void TearDown() override { TearDownRingOnly(); }

  // Detaches and closes the controller and the ring (SetUp() makes a fresh pair).
  void TearDownRingOnly() {
    if (link_) bpf_link__destroy(link_);
    if (object_) bpf_object__close(object_);
    if (ring_ready_) io_uring_queue_exit(&ring_);
    link_ = nullptr;
    object_ = nullptr;
    ring_ready_ = false;
  }

  // Opens `e` (compiled from `.uring`), sets the ring constants, `params` and ring_fd. Fatal
  // failures end the test.
  void OpenCompiled(const Embedded& e,
                     const std::vector<std::pair<const char*, uint64_t>>& params) {
    LIBBPF_OPTS(bpf_object_open_opts, open_opts, .object_name = e.program);
    object_ = bpf_object__open_mem(e.begin, e.end - e.begin, &open_opts);
    ASSERT_NE(object_, nullptr) << "bpf_object__open_mem: " << strerror(errno) << "\n"
                                << libbpf_messages;
    // The fields of `uringc_ring` in order (compiler/bpf_ir/ring.cpp).
    const uint32_t layout[] = {layout_.sq_entries,  layout_.cq_entries,  layout_.sq_tail_off,
                               layout_.cq_head_off, layout_.cq_tail_off, layout_.cqes_off,
                               layout_.rings_size,  layout_.sqes_size,   layout_.sq_rewind};
    for (size_t i = 0; i < sizeof(layout) / sizeof(layout[0]); ++i) {
      std::string error;
      ASSERT_TRUE(SetRodataWord(object_, "uringc_ring", i, layout[i], &error)) << error;
    }
    for (const auto& [name, value] : params) {
      std::string error;
      ASSERT_TRUE(SetRodata(object_, name, value, &error)) << error;
    }
    SetRingFd(std::string(e.program) + "_ops");
  }

  // Opens the hand-written C controller configured as K in flight until n complete.
  void OpenHandWritten(uint32_t inflight, uint64_t n) {
    LIBBPF_OPTS(bpf_object_open_opts, open_opts, .object_name = "nop_inflight");
    object_ = bpf_object__open_mem(nop_inflight_bpf_object,
                                   nop_inflight_bpf_object_end - nop_inflight_bpf_object,
                                   &open_opts);
    ASSERT_NE(object_, nullptr) << libbpf_messages;
    size_t size = 0;
    auto* config = static_cast<nop_inflight_config*>(
        bpf_map__initial_value(FindInternalMap(object_, ".rodata"), &size));
    ASSERT_EQ(size, sizeof(nop_inflight_config));
    config->sq_entries = layout_.sq_entries;
    config->cq_entries = layout_.cq_entries;
    config->sq_head_off = layout_.sq_head_off;
    config->sq_tail_off = layout_.sq_tail_off;
    config->cq_head_off = layout_.cq_head_off;
    config->cq_tail_off = layout_.cq_tail_off;
    config->cqes_off = layout_.cqes_off;
    config->rings_size = layout_.rings_size;
    config->inflight = inflight;
    config->total = n;
    SetRingFd("nop_inflight_ops");
  }

  void SetRingFd(const std::string& ops_name) {
    bpf_map* ops = bpf_object__find_map_by_name(object_, ops_name.c_str());
    ASSERT_NE(ops, nullptr) << "no struct_ops map " << ops_name;
    size_t size = 0;
    // The object's view of struct io_uring_bpf_ops: loop_step (8 bytes), then ring_fd.
    auto* value = static_cast<unsigned char*>(bpf_map__initial_value(ops, &size));
    ASSERT_NE(value, nullptr);
    ASSERT_GE(size, 12u);
    uint32_t fd = ring_.ring_fd;
    std::memcpy(value + 8, &fd, sizeof(fd));
  }

  // Loads with the verifier log captured at `log_level`; skips when the kernel lacks the type.
  void Load(uint32_t log_level) {
    bpf_program* prog = bpf_object__next_program(object_, nullptr);
    ASSERT_NE(prog, nullptr);
    log_.assign(log_level >= 2 ? (64u << 20) : (1u << 20), '\0');
    ASSERT_EQ(bpf_program__set_log_buf(prog, log_.data(), log_.size()), 0);
    ASSERT_EQ(bpf_program__set_log_level(prog, log_level), 0);
    int ret = bpf_object__load(object_);
    log_.resize(std::strlen(log_.c_str()));
    if (ret == -ESRCH) {
      if (FeatureRequired()) {
        FAIL() << "kernel lacks io_uring_bpf_ops, but URINGC_REQUIRE_BPF_OPS=1\n"
               << libbpf_messages;
      }
      GTEST_SKIP() << "kernel lacks io_uring_bpf_ops (libbpf: -ESRCH, struct_ops type not in "
                      "kernel BTF); Linux 7.1+ with CONFIG_IO_URING_BPF_OPS=y is needed";
    }
    ASSERT_EQ(ret, 0) << "bpf_object__load: " << strerror(-ret) << "\n"
                      << libbpf_messages << "\nverifier log (tail):\n"
                      << log_.substr(log_.size() > 4000 ? log_.size() - 4000 : 0);
  }

  uint64_t ReadBss(const char* name) {
    bpf_map* bss = FindInternalMap(object_, ".bss");
    EXPECT_NE(bss, nullptr);
    if (bss == nullptr) return ~0ull;
    std::vector<unsigned char> value(bpf_map__value_size(bss));
    const uint32_t zero = 0;
    EXPECT_EQ(bpf_map_lookup_elem(bpf_map__fd(bss), &zero, value.data()), 0);
    GlobalSlot slot;
    EXPECT_TRUE(FindGlobal(object_, ".bss", name, &slot)) << name;
    uint64_t v = 0;
    std::memcpy(&v, value.data() + slot.offset, slot.size);
    return v;
  }

  // "processed N insns" from the verifier log, or -1.
  long ProcessedInsns() const {
    std::smatch m;
    static const std::regex re("processed ([0-9]+) insns");
    return std::regex_search(log_, m, re) ? std::stol(m[1]) : -1;
  }

  io_uring ring_{};
  bool ring_ready_ = false;
  uringc::RingLayout layout_;
  bpf_object* object_ = nullptr;
  bpf_link* link_ = nullptr;
  std::string log_;
};

}  // namespace uringc::testing
