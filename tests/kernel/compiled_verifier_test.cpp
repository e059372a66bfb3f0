// The verifier's view of compiled controllers, through libbpf directly (the runtime keeps no log
// of a load that succeeded): the log at level 2 shows the `.uring` source of the instructions it
// walks (BTF line info), and the "processed N insns" of the compiled NOP chain (-O2, -O0) and of
// eight tasks in flight beside the hand-written C controller (K = 1 and 8), printed as
// "[codegen-bench]" lines (docs/codegen.md's history; scripts/bench.py now reports the processed
// instructions of the benchmark's objects).
// Needs io_uring_bpf_ops: it runs in the VM; on older kernels it reports itself skipped.
#include "controller_fixture.h"
#include "kernel_test_util.h"

extern "C" const unsigned char ex_nop_chain_bpf[];  // examples/nop_chain.uring, -O2
extern "C" const unsigned char ex_nop_chain_bpf_end[];
extern "C" const unsigned char ex_nop_chain_o0_bpf[];  // ... -O0
extern "C" const unsigned char ex_nop_chain_o0_bpf_end[];
extern "C" const unsigned char t_nop_parallel_bpf[];  // tests/compiled/nop_parallel.uring
extern "C" const unsigned char t_nop_parallel_bpf_end[];

namespace uringc::testing {
namespace {

const Embedded kChainO2{"-O2", "nop_chain", ex_nop_chain_bpf, ex_nop_chain_bpf_end};
const Embedded kChainO0{"-O0", "nop_chain", ex_nop_chain_o0_bpf, ex_nop_chain_o0_bpf_end};
const Embedded kParallel{"-O2", "nop_parallel", t_nop_parallel_bpf, t_nop_parallel_bpf_end};

// The BTF line info names the `.uring` file and carries its text, so the verifier's own log shows
// the source (log level 2 prints the line of every instruction it walks).
TEST_F(RingFixture, VerifierLogShowsUringSource) {
  URINGC_SKIP_ON_HOST_ENGINE();
  ASSERT_NO_FATAL_FAILURE(OpenCompiled(kChainO2, {{"n", 10}}));
  ASSERT_NO_FATAL_FAILURE(Load(2));
  if (IsSkipped()) return;
  EXPECT_NE(log_.find("; nop()? @ nop_chain.uring:5"), std::string::npos) << log_.substr(0, 4000);
  EXPECT_NE(log_.find("; repeat n { @ nop_chain.uring:4"), std::string::npos);
  EXPECT_NE(log_.find("; done += 1 @ nop_chain.uring:6"), std::string::npos);
}

// Verifier instruction counts for docs/codegen.md: grep "[codegen-bench]".
TEST_F(RingFixture, ReportsProcessedInsnsCompiledChain) {
  URINGC_SKIP_ON_HOST_ENGINE();
  for (const Embedded* e : {&kChainO2, &kChainO0}) {
    ASSERT_NO_FATAL_FAILURE(OpenCompiled(*e, {{"n", 1000}}));
    ASSERT_NO_FATAL_FAILURE(Load(1));
    if (IsSkipped()) return;
    ASSERT_GT(ProcessedInsns(), 0) << log_;
    std::printf("[codegen-bench] compiled examples/nop_chain.uring %s: processed %ld insns\n",
                e->label, ProcessedInsns());
    bpf_object__close(object_);
    object_ = nullptr;
  }
}

TEST_F(RingFixture, ReportsProcessedInsnsCompiledParallel) {
  URINGC_SKIP_ON_HOST_ENGINE();
  ASSERT_NO_FATAL_FAILURE(OpenCompiled(kParallel, {{"n", 1000}}));
  ASSERT_NO_FATAL_FAILURE(Load(1));
  if (IsSkipped()) return;
  ASSERT_GT(ProcessedInsns(), 0) << log_;
  std::printf("[codegen-bench] compiled tests/compiled/nop_parallel.uring (8 tasks) -O2: "
              "processed %ld insns\n", ProcessedInsns());
}

TEST_F(RingFixture, ReportsProcessedInsnsHandWritten) {
  URINGC_SKIP_ON_HOST_ENGINE();
  for (uint32_t k : {1u, 8u}) {
    ASSERT_NO_FATAL_FAILURE(OpenHandWritten(k, 1000));
    ASSERT_NO_FATAL_FAILURE(Load(1));
    if (IsSkipped()) return;
    ASSERT_GT(ProcessedInsns(), 0) << log_;
    std::printf("[codegen-bench] hand-written nop_inflight.bpf.c K=%u clang -O2: processed %ld "
                "insns\n", k, ProcessedInsns());
    bpf_object__close(object_);
    object_ = nullptr;
  }
}

}  // namespace
}  // namespace uringc::testing
