// ParseVerifierLog and ClassifyVerifierReason on verifier logs recorded in the VM
// (testdata/verifier/<program>.<kernel>.log: the tails 7.2.13 and 7.3.4 printed for
// tests/controllers/bad/*.bpf.c, recorded with URINGC_PRINT_VERIFIER_LOG=1). 7.3 appends the
// structured report (Verification failed / Reason / At / Causal path / Suggestion) to some.
#include "uringc/verifier_log.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "uringc/verifier_report.h"

namespace {

std::string ReadTestdata(const std::string& name) {
  std::ifstream in(std::string(URINGC_TESTDATA_DIR) + "/verifier/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct LogCase {
  const char* file;
  const char* reason_prefix;
  int insn;
  const char* source_file;
  uint32_t source_line;
  uringc::DiagKind kind;
  uint32_t column = 0;  // from the structured At: line; 0 for classic logs
};

class RecordedLogTest : public ::testing::TestWithParam<LogCase> {};

TEST_P(RecordedLogTest, FindsReasonInstructionSourceAndKind) {
  const LogCase& c = GetParam();
  const uringc::ParsedVerifierLog p = uringc::ParseVerifierLog(ReadTestdata(c.file));
  EXPECT_EQ(p.reason.rfind(c.reason_prefix, 0), 0u) << p.reason;
  EXPECT_EQ(p.insn, c.insn);
  ASSERT_TRUE(p.has_source);
  EXPECT_EQ(p.source.file, c.source_file);
  EXPECT_EQ(p.source.line, c.source_line);
  EXPECT_EQ(p.structured, c.column != 0);
  EXPECT_EQ(p.source.column, c.column);
  EXPECT_EQ(uringc::ClassifyVerifierReason(p.reason + "\n" + p.structured_reason).kind, c.kind);
}

INSTANTIATE_TEST_SUITE_P(
    Kernel72, RecordedLogTest,
    ::testing::Values(LogCase{"bad_oob.7.2.log",
                              "invalid access to memory, mem_size=64 off=64 size=8", 5,
                              "bad_oob.bpf.c", 13, uringc::DiagKind::kRegionOutOfBounds},
                      LogCase{"bad_null.7.2.log", "R0 invalid mem access 'mem_or_null'", 4,
                              "bad_null.bpf.c", 11, uringc::DiagKind::kMissingNullCheck},
                      LogCase{"bad_loop.7.2.log", "infinite loop detected at insn 5", 5,
                              "bad_loop.bpf.c", 12, uringc::DiagKind::kUnboundedLoop},
                      LogCase{"bad_complex.7.2.log", "The sequence of 8193 jumps is too complex.",
                              23, "bad_complex.bpf.c", 17, uringc::DiagKind::kTooComplex},
                      LogCase{"bad_sleepable.7.2.log",
                              "program must be sleepable to call sleepable kfunc", 2,
                              "bad_sleepable.bpf.c", 8, uringc::DiagKind::kSleepableKfunc},
                      LogCase{"bad_kfunc.7.2.log", "kfunc 'bpf_io_uring_frobnicate' is referenced",
                              1, "bad_kfunc.bpf.c", 9, uringc::DiagKind::kUnknownKfunc}),
    [](const auto& info) {
      std::string n = info.param.file;
      return n.substr(0, n.find('.'));
    });

INSTANTIATE_TEST_SUITE_P(
    Kernel73, RecordedLogTest,
    ::testing::Values(LogCase{"bad_oob.7.3.log",
                              "invalid access to memory, mem_size=64 off=64 size=8", 5,
                              "bad_oob.bpf.c", 13, uringc::DiagKind::kRegionOutOfBounds, 14},
                      LogCase{"bad_null.7.3.log", "R0 invalid mem access 'mem_or_null'", 4,
                              "bad_null.bpf.c", 11, uringc::DiagKind::kMissingNullCheck, 14},
                      LogCase{"bad_loop.7.3.log", "infinite loop detected at insn 5", 5,
                              "bad_loop.bpf.c", 12, uringc::DiagKind::kUnboundedLoop},
                      LogCase{"bad_complex.7.3.log", "The sequence of 8193 jumps is too complex.",
                              23, "bad_complex.bpf.c", 17, uringc::DiagKind::kTooComplex},
                      LogCase{"bad_sleepable.7.3.log",
                              "program must be sleepable to call sleepable kfunc", 2,
                              "bad_sleepable.bpf.c", 8, uringc::DiagKind::kSleepableKfunc, 2},
                      LogCase{"bad_kfunc.7.3.log", "kfunc 'bpf_io_uring_frobnicate' is referenced",
                              1, "bad_kfunc.bpf.c", 9, uringc::DiagKind::kUnknownKfunc}),
    [](const auto& info) {
      std::string n = info.param.file;
      return n.substr(0, n.find('.'));
    });

TEST(VerifierLogTest, TwoLineReasonKeepsBothLines) {
  const auto p = uringc::ParseVerifierLog(ReadTestdata("bad_oob.7.2.log"));
  EXPECT_NE(p.reason.find("\nR0 min value is outside of the allowed memory range"),
            std::string::npos);
  EXPECT_EQ(p.insn_text, "5: (79) r1 = *(u64 *)(r0 +64)");
}

TEST(VerifierLogTest, StructuredReportFieldsFromA73Log) {
  const auto p = uringc::ParseVerifierLog(ReadTestdata("bad_oob.7.3.log"));
  ASSERT_TRUE(p.structured);
  EXPECT_EQ(p.category, "Memory Safety: Access outside bounds");
  EXPECT_EQ(p.structured_reason.rfind("The verifier cannot prove offset + access_size <= "
                                      "object_size.", 0),
            0u);
  EXPECT_EQ(p.suggestion,
            "Add or adjust a bounds check that proves offset + access_size stays within the "
            "object.");
  EXPECT_EQ(p.insn_text, "5: (79) r1 = *(u64 *)(r0 +64)");
  EXPECT_EQ(p.source.text, "bad_value = sqes[8];");
  ASSERT_EQ(p.causal_path.size(), 2u);
  EXPECT_EQ(p.causal_path[0].function, "bad_oob_step");
  EXPECT_EQ(p.causal_path[0].place.line, 9u);
  EXPECT_EQ(p.causal_path[0].place.column, 24u);
  EXPECT_EQ(p.causal_path[0].what,
            "update: R0 changed from uninitialized value to mem_or_null at offset 0");
  EXPECT_EQ(p.causal_path[1].place.line, 11u);
  EXPECT_EQ(p.causal_path[1].what.rfind("branch: took the false branch", 0), 0u);
}

TEST(VerifierLogTest, StructuredCaretMessageSpanningTwoLines) {
  const auto p = uringc::ParseVerifierLog(ReadTestdata("bad_sleepable.7.3.log"));
  ASSERT_TRUE(p.structured);
  EXPECT_EQ(p.category, "Execution Context Safety: Operation is not allowed in this context");
  EXPECT_EQ(p.insn, 2);
  EXPECT_TRUE(p.causal_path.empty());
}

TEST(VerifierLogTest, EmptyAndGarbageLogsGiveNoReasonButDoNotCrash) {
  EXPECT_EQ(uringc::ParseVerifierLog("").insn, -1);
  const auto p = uringc::ParseVerifierLog("\n\n\x01\x02 garbage\n");
  EXPECT_FALSE(p.has_source);
}

TEST(VerifierLogTest, LogTailKeepsTheEndAtALineBoundary) {
  std::string log;
  for (int i = 0; i < 1000; ++i) log += std::to_string(i) + ": (b7) r0 = 0\n";
  log += "The sequence of 8193 jumps is too complex.\n";
  const std::string tail = uringc::LogTail(log, 200);
  EXPECT_LE(tail.size(), 200u);
  EXPECT_NE(tail.find("too complex"), std::string::npos);
  EXPECT_TRUE(isdigit(static_cast<unsigned char>(tail[0])));
  EXPECT_EQ(uringc::ParseVerifierLog(tail).insn, 999);
}

TEST(VerifierLogTest, ClassifiesOtherWordings) {
  using uringc::ClassifyVerifierReason;
  EXPECT_EQ(ClassifyVerifierReason("BPF program is too large. Processed 1000001 insn").kind,
            uringc::DiagKind::kTooComplex);
  EXPECT_EQ(ClassifyVerifierReason("back-edge from insn 10 to 5").kind,
            uringc::DiagKind::kUnboundedLoop);
  EXPECT_EQ(ClassifyVerifierReason("pointer arithmetic on mem_or_null prohibited, null-check it "
                                   "first")
                .kind,
            uringc::DiagKind::kMissingNullCheck);
  EXPECT_EQ(ClassifyVerifierReason("R1 unbounded memory access, make sure to bounds check").kind,
            uringc::DiagKind::kRegionOutOfBounds);
  EXPECT_EQ(ClassifyVerifierReason("R2 !read_ok").kind, uringc::DiagKind::kVerifierRejected);
}

}  // namespace
