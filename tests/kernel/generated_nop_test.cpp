// Loads the NOP controllers generated with compiler/lower (tests/codegen/nop_programs.cpp, built
// into objects at build time and embedded here) onto a real ring and checks that they complete
// exactly n requests. Also checks that the verifier log carries the fake `.uring` source lines
// from the objects' BTF line info, and reports the verifier's "processed N insns" for the
// generated controllers beside the hand-written C one (the numbers in docs/codegen.md).
// Needs io_uring_bpf_ops: it runs in the VM; on older kernels it reports itself skipped.
#include "controller_fixture.h"

#define EMBEDDED(sym)                              \
  extern "C" const unsigned char sym[];            \
  extern "C" const unsigned char sym##_end[];
EMBEDDED(gen_nop_chain_bpf_object)
EMBEDDED(gen_nop_chain_o0_bpf_object)
EMBEDDED(gen_nop_chain_b64_bpf_object)
EMBEDDED(gen_nop_inflight8_bpf_object)
EMBEDDED(ex_nop_chain_bpf)     // examples/nop_chain.uring compiled by `uringc compile -O2`
EMBEDDED(ex_nop_chain_o0_bpf)  // ... and -O0

namespace uringc::testing {
namespace {

const Embedded kChainO2{"chain_O2", "nop_chain", gen_nop_chain_bpf_object,
                        gen_nop_chain_bpf_object_end};
const Embedded kChainO0{"chain_O0", "nop_chain", gen_nop_chain_o0_bpf_object,
                        gen_nop_chain_o0_bpf_object_end};
const Embedded kChainB64{"chain_O2_bound64", "nop_chain", gen_nop_chain_b64_bpf_object,
                         gen_nop_chain_b64_bpf_object_end};
const Embedded kInflight8{"inflight8_O2", "nop_inflight", gen_nop_inflight8_bpf_object,
                          gen_nop_inflight8_bpf_object_end};
const Embedded kCompiledO2{"compiled_O2", "nop_chain", ex_nop_chain_bpf, ex_nop_chain_bpf_end};
const Embedded kCompiledO0{"compiled_O0", "nop_chain", ex_nop_chain_o0_bpf,
                           ex_nop_chain_o0_bpf_end};

struct RunCase {
  const Embedded* object;
  uint64_t n;
};

class GeneratedNopTest : public RingFixture, public ::testing::WithParamInterface<RunCase> {};

TEST_P(GeneratedNopTest, CompletesExactlyN) {
  const RunCase c = GetParam();
  ASSERT_NO_FATAL_FAILURE(OpenGenerated(*c.object, {{"n", c.n}}));
  ASSERT_NO_FATAL_FAILURE(Load(1));
  if (IsSkipped()) return;
  status_name_ = std::string(c.object->program) + "_status";
  uint32_t status = 0;
  ASSERT_NO_FATAL_FAILURE(AttachAndRun((std::string(c.object->program) + "_ops").c_str(), &status));
  EXPECT_EQ(status, kStopDone) << "detail=" << static_cast<int32_t>(ReadBss(
                                      (std::string(c.object->program) + "_detail").c_str()));
  EXPECT_EQ(ReadBss("completed"), c.n);
  // Every CQE was reaped by the controller: user space sees an empty CQ.
  EXPECT_EQ(io_uring_cq_ready(&ring_), 0u);
  std::printf("%s n=%llu completed=%llu steps=%llu\n", c.object->label,
              static_cast<unsigned long long>(c.n),
              static_cast<unsigned long long>(ReadBss("completed")),
              static_cast<unsigned long long>(ReadBss("steps")));
}

INSTANTIATE_TEST_SUITE_P(
    Objects, GeneratedNopTest,
    ::testing::Values(RunCase{&kChainO2, 0}, RunCase{&kChainO2, 1}, RunCase{&kChainO2, 1000},
                      RunCase{&kChainO0, 100}, RunCase{&kChainB64, 1000},
                      RunCase{&kInflight8, 5},
                      RunCase{&kInflight8, 10000}),
    [](const auto& info) {
      return std::string(info.param.object->label) + "_N" + std::to_string(info.param.n);
    });

// The BTF line info names the `.uring` file and carries its text, so the verifier's own log shows
// the DSL source (log level 2 prints the line of every instruction it walks).
TEST_F(RingFixture, VerifierLogShowsUringSource) {
  ASSERT_NO_FATAL_FAILURE(OpenGenerated(kChainO2, {{"n", 10}}));
  ASSERT_NO_FATAL_FAILURE(Load(2));
  if (IsSkipped()) return;
  EXPECT_NE(log_.find("; nop() @ nop_chain.uring:4"), std::string::npos) << log_.substr(0, 4000);
  EXPECT_NE(log_.find("; repeat n { @ nop_chain.uring:3"), std::string::npos);
  EXPECT_NE(log_.find("; completed += 1 @ nop_chain.uring:5"), std::string::npos);
}

// Static and verifier instruction counts for docs/codegen.md: grep "[codegen-bench]".
TEST_F(RingFixture, ReportsProcessedInsnsGeneratedChain) {
  for (const Embedded* e : {&kChainO2, &kChainB64, &kChainO0}) {
    ASSERT_NO_FATAL_FAILURE(OpenGenerated(*e, {{"n", 1000}}));
    ASSERT_NO_FATAL_FAILURE(Load(1));
    if (IsSkipped()) return;
    ASSERT_GT(ProcessedInsns(), 0) << log_;
    std::printf("[codegen-bench] generated nop_chain %s: processed %ld insns\n", e->label,
                ProcessedInsns());
    bpf_object__close(object_);
    object_ = nullptr;
  }
}

TEST_F(RingFixture, ReportsProcessedInsnsCompiledChain) {
  for (const Embedded* e : {&kCompiledO2, &kCompiledO0}) {
    ASSERT_NO_FATAL_FAILURE(OpenGenerated(*e, {{"n", 1000}}));
    ASSERT_NO_FATAL_FAILURE(Load(1));
    if (IsSkipped()) return;
    ASSERT_GT(ProcessedInsns(), 0) << log_;
    std::printf("[codegen-bench] compiled examples/nop_chain.uring %s: processed %ld insns\n",
                e->label, ProcessedInsns());
    bpf_object__close(object_);
    object_ = nullptr;
  }
}

TEST_F(RingFixture, ReportsProcessedInsnsGeneratedInflight8) {
  ASSERT_NO_FATAL_FAILURE(OpenGenerated(kInflight8, {{"n", 1000}}));
  ASSERT_NO_FATAL_FAILURE(Load(1));
  if (IsSkipped()) return;
  ASSERT_GT(ProcessedInsns(), 0) << log_;
  std::printf("[codegen-bench] generated nop_inflight K=8 -O2: processed %ld insns\n",
              ProcessedInsns());
}

TEST_F(RingFixture, ReportsProcessedInsnsHandWritten) {
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
