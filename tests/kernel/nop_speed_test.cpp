// A benchmark run as a kernel test (it checks only that every run completes exactly n NOPs):
// the round trip of one NOP at a time, three ways on the same kind of ring in the same boot:
// examples/nop_chain.uring compiled by `uringc compile -O2`, the hand-written C controller with
// one request in flight, and user space submitting and waiting for one NOP at a time. Prints
// "[speed-bench]" lines (median of rounds interleaved so drift hits all three alike);
// `scripts/bench_codegen.py --vm` collects them for docs/codegen.md. Timings in the emulated
// guest are only comparable as ratios within one boot.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "controller_fixture.h"

extern "C" const unsigned char ex_nop_chain_bpf[];
extern "C" const unsigned char ex_nop_chain_bpf_end[];

namespace uringc::testing {
namespace {

constexpr uint64_t kNops = 20000;
constexpr int kRounds = 5;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

class SpeedBench : public RingFixture {
 public:  // the test takes their addresses
  // Attaches the loaded object's ops and times the enters until `stopped()` says it is done.
  template <typename Stopped>
  double TimeController(const char* ops_name, Stopped stopped) {
    link_ = bpf_map__attach_struct_ops(bpf_object__find_map_by_name(object_, ops_name));
    EXPECT_NE(link_, nullptr) << strerror(errno) << "\n" << libbpf_messages;
    if (link_ == nullptr) return 0;
    const auto start = std::chrono::steady_clock::now();
    for (int enter = 0; enter < 100 && !stopped(); enter++) {
      int ret = io_uring_enter(ring_.ring_fd, 0, 1, IORING_ENTER_GETEVENTS, nullptr);
      EXPECT_TRUE(ret >= 0 || errno == EINTR) << strerror(errno);
    }
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start)
               .count() / kNops;
  }

  double Compiled() {
    const Embedded e{"compiled_O2", "nop_chain", ex_nop_chain_bpf, ex_nop_chain_bpf_end};
    OpenCompiled(e, {{"n", kNops}});
    Load(0);
    if (HasFatalFailure() || IsSkipped()) return 0;
    const double ns = TimeController("nop_chain_ops", [&] { return ReadBss("uringc_status") != 0; });
    EXPECT_EQ(ReadBss("uringc_status"), 1u);  // the runtime's convention: 1 done
    EXPECT_EQ(ReadBss("done"), kNops);
    compiled_steps_ = ReadBss("uringc_steps");
    return ns;
  }

  double HandWritten() {
    OpenHandWritten(1, kNops);
    Load(0);
    if (HasFatalFailure() || IsSkipped()) return 0;
    nop_inflight_state state{};
    auto read = [&] {
      const uint32_t zero = 0;
      EXPECT_EQ(bpf_map_lookup_elem(bpf_map__fd(FindInternalMap(object_, ".bss")), &zero, &state),
                0);
      return state.stop_reason != NOP_STOP_NONE;
    };
    const double ns = TimeController("nop_inflight_ops", read);
    read();
    EXPECT_EQ(state.stop_reason, static_cast<uint32_t>(NOP_STOP_DONE));
    EXPECT_EQ(state.completed, kNops);
    hand_steps_ = state.steps;
    return ns;
  }

  // The same ring, no controller: submit one NOP, wait for it, repeat.
  double UserSpace() {
    const auto start = std::chrono::steady_clock::now();
    for (uint64_t i = 0; i < kNops; i++) {
      io_uring_prep_nop(io_uring_get_sqe(&ring_));
      if (io_uring_submit_and_wait(&ring_, 1) != 1) {
        ADD_FAILURE() << "io_uring_submit_and_wait failed at NOP " << i;
        return 0;
      }
      io_uring_cqe* cqe = nullptr;
      if (io_uring_peek_cqe(&ring_, &cqe) != 0 || cqe->res != 0) {
        ADD_FAILURE() << "NOP " << i << " did not complete";
        return 0;
      }
      io_uring_cqe_seen(&ring_, cqe);
    }
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start)
               .count() / kNops;
  }

  // A fresh ring (SetUp) for each run, as every controller binds to one ring.
  template <typename Run>
  double Fresh(Run run) {
    TearDownRingOnly();
    SetUp();
    return HasFatalFailure() ? 0 : (this->*run)();
  }

  uint64_t compiled_steps_ = 0;  ///< loop_step calls of the last run
  uint64_t hand_steps_ = 0;
};

TEST_F(SpeedBench, ReportsRoundTripSpeed) {
  std::vector<double> compiled, hand, user;
  for (int round = 0; round < kRounds; round++) {
    compiled.push_back(Fresh(&SpeedBench::Compiled));
    if (IsSkipped() || HasFailure()) return;
    hand.push_back(Fresh(&SpeedBench::HandWritten));
    user.push_back(Fresh(&SpeedBench::UserSpace));
    ASSERT_FALSE(HasFailure());
  }
  const double c = Median(compiled), h = Median(hand), u = Median(user);
  std::printf("[speed-bench] one NOP at a time, n=%llu, median of %d rounds:\n",
              static_cast<unsigned long long>(kNops), kRounds);
  std::printf("[speed-bench]   compiled examples/nop_chain.uring -O2: %.0f ns/NOP, %.2f loop_steps/NOP\n",
              c, static_cast<double>(compiled_steps_) / kNops);
  std::printf("[speed-bench]   hand-written nop_inflight.bpf.c K=1: %.0f ns/NOP, %.2f loop_steps/NOP "
              "(compiled/C %.2fx)\n", h, static_cast<double>(hand_steps_) / kNops, c / h);
  std::printf("[speed-bench]   user space, submit and wait per NOP: %.0f ns/NOP (user/compiled %.2fx)\n",
              u, u / c);
}

}  // namespace
}  // namespace uringc::testing
