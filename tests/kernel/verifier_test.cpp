// Deliberately bad controllers against the real verifier: each load must fail with a diagnostic of
// the right kind that points at the offending line of the C source. URINGC_PRINT_VERIFIER_LOG=1
// prints each log's tail (used to record tests/runtime/testdata/verifier/*.log from the VM).
#include <gtest/gtest.h>

#include <fstream>

#include "kernel_test_util.h"
#include "uringc/controller.h"
#include "uringc/features.h"
#include "uringc/ring.h"
#include "uringc/verifier_log.h"

URINGC_EMBEDDED(bad_oob_bpf_object);
URINGC_EMBEDDED(bad_null_bpf_object);
URINGC_EMBEDDED(bad_loop_bpf_object);
URINGC_EMBEDDED(bad_complex_bpf_object);
URINGC_EMBEDDED(bad_sleepable_bpf_object);
URINGC_EMBEDDED(bad_kfunc_bpf_object);
URINGC_EMBEDDED(bad_kfunc_strong_bpf_object);
URINGC_EMBEDDED(bad_oob_source);
URINGC_EMBEDDED(bad_null_source);
URINGC_EMBEDDED(bad_loop_source);
URINGC_EMBEDDED(bad_complex_source);
URINGC_EMBEDDED(bad_sleepable_source);
URINGC_EMBEDDED(bad_kfunc_source);

namespace {

struct BadCase {
  const char* name;
  const uringc_test::Embedded* object;
  const uringc_test::Embedded* source;
  uringc::DiagKind kind;
  const char* line_marker;  // text on the line the diagnostic must point at
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

// The 1-based line of the source that contains marker.
uint32_t LineOf(const std::string& source, const std::string& marker) {
  const size_t at = source.find(marker);
  if (at == std::string::npos) return 0;
  uint32_t line = 1;
  for (size_t i = 0; i < at; ++i) line += source[i] == '\n';
  return line;
}

class VerifierTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(VerifierTest, RejectionPointsAtTheLineWithAHint) {
  const BadCase& c = GetParam();
  uringc::RingOptions ro;
  auto ring = uringc::Ring::Create(ro);
  ASSERT_TRUE(ring.ok()) << ring.error().message;
  uringc::ControllerOptions o;
  o.object_name = c.name;
  o.verifier_log_path = std::string("/tmp/") + c.name + ".log";
  auto ctl = uringc::Controller::OpenMemory(c.object->begin, c.object->size(), o);
  ASSERT_TRUE(ctl.ok()) << ctl.error().message;
  auto loaded = (*ctl)->Load(**ring);
  URINGC_SKIP_IF_NO_BPF_OPS(loaded);
  ASSERT_FALSE(loaded.ok()) << c.name << " loaded, but it should have been rejected";
  const uringc::VerifierReport* rep = (*ctl)->verifier_report();
  ASSERT_NE(rep, nullptr) << loaded.error().message;
  if (const char* p = std::getenv("URINGC_PRINT_VERIFIER_LOG"); p && *p == '1') {
    std::printf("@@LOG BEGIN %s\n%s@@LOG END %s\n", c.name,
                uringc::LogTail(rep->log, 2500).c_str(), c.name);
  }
  std::printf("%s", loaded.error().message.c_str());
  EXPECT_EQ(rep->diagnostic.kind, c.kind) << "verifier said: " << rep->parsed.reason;
  const uringc::SourceFile* file = rep->sources.Get(rep->diagnostic.range.file);
  ASSERT_NE(file, nullptr) << "no source place for the diagnostic";
  EXPECT_NE(file->name().find(std::string(c.name) + ".bpf.c"), std::string::npos) << file->name();
  const uint32_t want = LineOf(c.source->str(), c.line_marker);
  ASSERT_GT(want, 0u);
  const uringc::LineCol at = file->LineColOf(rep->diagnostic.range.begin);
  EXPECT_EQ(at.line, want) << loaded.error().message;
  EXPECT_GT(at.column, 0u);
  // The formatted text is the compiler's: file:line:col, [Kind], the source line, a hint.
  EXPECT_NE(loaded.error().message.find("[" + std::string(uringc::DiagKindName(c.kind)) + "]"),
            std::string::npos);
  EXPECT_EQ(loaded.error().kind, c.kind);
  EXPECT_NE(loaded.error().message.find("hint: "), std::string::npos);
  // The full log went to the file on request.
  std::ifstream log(o.verifier_log_path);
  EXPECT_TRUE(log.good());
}

INSTANTIATE_TEST_SUITE_P(
    BadPrograms, VerifierTest,
    ::testing::Values(BadCase{"bad_oob", &bad_oob_bpf_object_obj, &bad_oob_source_obj,
                              uringc::DiagKind::kRegionOutOfBounds, "bad_value = sqes[8];"},
                      BadCase{"bad_null", &bad_null_bpf_object_obj, &bad_null_source_obj,
                              uringc::DiagKind::kMissingNullCheck, "bad_value = sqes[1];"},
                      BadCase{"bad_loop", &bad_loop_bpf_object_obj, &bad_loop_source_obj,
                              uringc::DiagKind::kUnboundedLoop, "while (URINGC_READ_ONCE"},
                      BadCase{"bad_complex", &bad_complex_bpf_object_obj, &bad_complex_source_obj,
                              uringc::DiagKind::kTooComplex,
                              "if (URINGC_READ_ONCE(rings[i & 7]) > 5)"},
                      BadCase{"bad_sleepable", &bad_sleepable_bpf_object_obj,
                              &bad_sleepable_source_obj, uringc::DiagKind::kSleepableKfunc,
                              "bpf_io_uring_submit_sqes(ring, 0);"},
                      BadCase{"bad_kfunc", &bad_kfunc_bpf_object_obj, &bad_kfunc_source_obj,
                              uringc::DiagKind::kUnknownKfunc, "bpf_io_uring_frobnicate(ring);"}),
    [](const auto& info) { return std::string(info.param.name); });

// Without __weak, libbpf rejects the unknown kfunc before the verifier runs: no verifier log,
// but the same kind of explanation from libbpf's message.
TEST(VerifierTest, UnknownStrongKfuncIsExplainedFromLibbpf) {
  auto features = uringc::DetectKernelFeatures();
  if (!features.ok() || !features->has_bpf_ops) {
    if (uringc_test::FeatureRequired()) FAIL() << "kernel lacks io_uring_bpf_ops";
    GTEST_SKIP() << "kernel lacks io_uring_bpf_ops";
  }
  auto ring = uringc::Ring::Create({});
  ASSERT_TRUE(ring.ok());
  auto ctl = uringc::Controller::OpenMemory(bad_kfunc_strong_bpf_object_obj.begin,
                                            bad_kfunc_strong_bpf_object_obj.size());
  ASSERT_TRUE(ctl.ok()) << ctl.error().message;
  auto loaded = (*ctl)->Load(**ring);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ((*ctl)->verifier_report(), nullptr);
  EXPECT_NE(loaded.error().message.find("no kfunc `bpf_io_uring_frobnicate`"), std::string::npos)
      << loaded.error().message;
  EXPECT_EQ(loaded.error().kind, uringc::DiagKind::kUnknownKfunc);
  std::printf("%s\n", loaded.error().message.c_str());
}

}  // namespace
