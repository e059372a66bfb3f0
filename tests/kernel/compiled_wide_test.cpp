// Wide `parallel` graphs load and run: tests/compiled/wide_parallel.uring.in at every width the
// kernel tests must cover (1, 64, 650, 1024 and the language's maximum, 4096). Each lane awaits
// a NOP and a sleep, and the outputs show every lane ran once; a failing lane cancels the reads
// all the others have in flight (more than the SQ holds, so the cancellation submits in the
// middle of a step). The verifier's processed instructions are printed as "[wide-parallel]"
// lines: starting and cancelling the lanes must not cost the verifier a walk per lane.
// Built into both compiled-program test binaries (7.2 and 7.1 ABIs).
#include <cerrno>
#include <cstdio>
#include <ostream>

#include "compiled_fixture.h"

URINGC_EMBEDDED(t_wide_1_bpf);
URINGC_EMBEDDED(t_wide_64_bpf);
URINGC_EMBEDDED(t_wide_650_bpf);
URINGC_EMBEDDED(t_wide_1024_bpf);
URINGC_EMBEDDED(t_wide_4096_bpf);

namespace uringc_test {
namespace {

struct Width {
  uint64_t lanes;
  const Embedded* obj;
};
// For test listings (CTest's names): the width, not the struct's bytes.
void PrintTo(const Width& w, std::ostream* os) { *os << w.lanes << " lanes"; }

class WideParallel : public Compiled, public ::testing::WithParamInterface<Width> {
 protected:
  std::string Graph() const { return "wide_" + std::to_string(GetParam().lanes); }

  // Opens the graph with `fail_lane` (no failure when it is the width) and the pipe's read end.
  void OpenWide(uint64_t fail_lane, int pipe_read) {
    Open(*GetParam().obj, Graph().c_str(), [&](Controller&) {
      SetU("d", 1'000'000);  // 1 ms
      Set("p", pipe_read);
      SetU("fail_lane", fail_lane);
      SetBuf("buf", buf_);
    });
    if (!ready_ || OnHostEngine()) return;
    auto insns = ctl_->VerifiedInsns();
    ASSERT_TRUE(insns.ok()) << insns.error().message;
    insns_ = *insns;
  }

  HostBuffer buf_{4096};
  uint32_t insns_ = 0;
};

TEST_P(WideParallel, EveryLaneAwaitsANopAndASleep) {
  const uint64_t w = GetParam().lanes;
  TwoPipes p;
  ASSERT_TRUE(p.ok);
  OpenWide(w, p.a[0]);
  if (!ready_) return;
  RunOutcome out = Run();
  EXPECT_EQ(out.status, RunStatus::kDone) << out.controller_error;
  EXPECT_EQ(Get("nops"), static_cast<int64_t>(w));                 // every NOP completed with 0
  EXPECT_EQ(Get("lanes"), static_cast<int64_t>(w * (w - 1) / 2));  // each lane index once
  EXPECT_EQ(Get("slept"), static_cast<int64_t>(w));
  EXPECT_EQ(Get("reading"), 0);
  ExpectNothingLeft(Graph());
  std::printf("[wide-parallel] %s: verifier processed %u insns; %lld loop_steps\n", Graph().c_str(),
              insns_, static_cast<long long>(Get("uringc_steps")));
}

TEST_P(WideParallel, AFailingLaneCancelsTheOtherLanesReads) {
  const uint64_t w = GetParam().lanes;
  TwoPipes p;
  ASSERT_TRUE(p.ok);
  OpenWide(w - 1, p.a[0]);  // the last lane to start fails
  if (!ready_) return;
  RunOutcome out = Run();
  EXPECT_EQ(out.status, RunStatus::kFailed);
  EXPECT_EQ(out.controller_error, -EPERM);
  EXPECT_EQ(Get("slept"), 0);
  // The lanes run in the order they started, so all the others read before the last one fails.
  EXPECT_EQ(Get("reading"), static_cast<int64_t>(w - 1));
  ExpectNothingLeft(Graph());
  ExpectCancelledReadsLeftThePipe(p.a);  // no read took anything
}

INSTANTIATE_TEST_SUITE_P(Widths, WideParallel,
                         ::testing::Values(Width{1, &t_wide_1_bpf_obj},
                                           Width{64, &t_wide_64_bpf_obj},
                                           Width{650, &t_wide_650_bpf_obj},
                                           Width{1024, &t_wide_1024_bpf_obj},
                                           Width{4096, &t_wide_4096_bpf_obj}),
                         [](const auto& info) { return std::to_string(info.param.lanes); });

}  // namespace
}  // namespace uringc_test
