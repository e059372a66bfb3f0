// BuildVerifierReport with a real object built on the host (bad_oob.bpf.o, its line table) and the
// log the 7.2 guest printed for it: the diagnostic must land on the offending expression.
#include "uringc/verifier_report.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "uringc/diag/formatter.h"

namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(VerifierReportTest, MapsTheFailureToFileLineColumn) {
  const std::string elf = Slurp(URINGC_BAD_OOB_OBJECT);
  auto lines = uringc::ReadLineInfo(elf);
  ASSERT_TRUE(lines.ok()) << lines.error().message;
  const auto rep = uringc::BuildVerifierReport(
      "bad_oob_step", "struct_ops.s/bad_oob_step", -EACCES,
      Slurp(std::string(URINGC_TESTDATA_DIR) + "/verifier/bad_oob.7.2.log"), *lines);
  EXPECT_EQ(rep.diagnostic.kind, uringc::DiagKind::kRegionOutOfBounds);
  const uringc::SourceFile* f = rep.sources.Get(rep.diagnostic.range.file);
  ASSERT_NE(f, nullptr);
  const uringc::LineCol at = f->LineColOf(rep.diagnostic.range.begin);
  EXPECT_EQ(at.line, 13u);
  EXPECT_EQ(at.column, 14u);  // `sqes[8]`
  EXPECT_NE(rep.text.find("bad_oob.bpf.c:13:14: error: "), std::string::npos) << rep.text;
  EXPECT_NE(rep.text.find("[RegionOutOfBounds]"), std::string::npos);
  EXPECT_NE(rep.text.find("\tbad_value = sqes[8];\n\t            ^~~~"), std::string::npos)
      << rep.text;
  EXPECT_NE(rep.text.find("offset 64 (8 bytes) is outside the region, which is 64 bytes"),
            std::string::npos);
}

TEST(VerifierReportTest, SourceMissingOnDiskUsesTheLineTextFromBtf) {
  std::vector<uringc::LineInfo> lines = {
      {"struct_ops.s/step", 4, "/nonexistent/prog.uring", 7, 5, "    read(fd, buf, n)"}};
  const std::string log =
      "; read(fd, buf, n) @ prog.uring:7\n"
      "4: (79) r1 = *(u64 *)(r0 +0)\n"
      "R0 invalid mem access 'mem_or_null'\n";
  const auto rep =
      uringc::BuildVerifierReport("step", "struct_ops.s/step", -EACCES, log, lines);
  EXPECT_EQ(rep.diagnostic.kind, uringc::DiagKind::kMissingNullCheck);
  EXPECT_NE(rep.text.find("/nonexistent/prog.uring:7:5: error: "), std::string::npos) << rep.text;
  EXPECT_NE(rep.text.find("    read(fd, buf, n)\n    ^~~~"), std::string::npos) << rep.text;
  // The failing code is `.uring` source: uringc generated it, so the last note says that this is
  // a uringc bug and what to report, not how a C author would fix it.
  ASSERT_FALSE(rep.diagnostic.notes.empty());
  EXPECT_EQ(rep.diagnostic.notes.back().message, uringc::kCompiledCodeRejectedHint);
  EXPECT_EQ(rep.text.find("test the pointer"), std::string::npos) << rep.text;
}

// The 7.3 structured report: column from At:, the causal path as notes at their places, the
// kernel's suggestion in the hint. With the source missing on disk (the guest case) the lines come
// from BTF.
TEST(VerifierReportTest, StructuredReportWithCausalPathNotes) {
  auto lines = uringc::ReadLineInfo(Slurp(URINGC_BAD_OOB_OBJECT));
  ASSERT_TRUE(lines.ok());
  for (uringc::LineInfo& li : *lines) li.file = "/elsewhere/bad_oob.bpf.c";
  const auto rep = uringc::BuildVerifierReport(
      "bad_oob_step", "struct_ops.s/bad_oob_step", -EACCES,
      Slurp(std::string(URINGC_TESTDATA_DIR) + "/verifier/bad_oob.7.3.log"), *lines);
  EXPECT_EQ(rep.diagnostic.kind, uringc::DiagKind::kRegionOutOfBounds);
  EXPECT_NE(rep.text.find("/elsewhere/bad_oob.bpf.c:13:14: error: "), std::string::npos)
      << rep.text;
  EXPECT_NE(rep.text.find("/elsewhere/bad_oob.bpf.c:9:24: note: update: R0 changed from "
                          "uninitialized value to mem_or_null at offset 0\n"
                          "\t__u64 *sqes = (void *)bpf_io_uring_get_region(ring, IOU_REGION_SQ, "
                          "64);\n"),
            std::string::npos)
      << rep.text;
  EXPECT_NE(rep.text.find("/elsewhere/bad_oob.bpf.c:11:6: note: branch: took the false branch"),
            std::string::npos)
      << rep.text;
  EXPECT_NE(rep.text.find("the verifier suggests: Add or adjust a bounds check"),
            std::string::npos);
  ASSERT_FALSE(rep.diagnostic.notes.empty());
  EXPECT_EQ(rep.diagnostic.notes.back().message.rfind("hint: ", 0), 0u);
}

// The object names its source file, and the object may come from anyone: a name that is not a
// regular file (a FIFO nobody writes, /dev/zero) must neither block nor be read without end; the
// line text from BTF stands in for it.
TEST(VerifierReportTest, SourceThatIsNotARegularFileIsNotRead) {
  const std::string fifo = "/tmp/uringc-report-fifo-" + std::to_string(getpid());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0) << strerror(errno);
  for (const std::string& file : {fifo, std::string("/dev/zero")}) {
    std::vector<uringc::LineInfo> lines = {
        {"struct_ops.s/step", 4, file, 7, 5, "    read(fd, buf, n)"}};
    const std::string log = "4: (79) r1 = *(u64 *)(r0 +0)\nR0 invalid mem access 'mem_or_null'\n";
    const auto rep =
        uringc::BuildVerifierReport("step", "struct_ops.s/step", -EACCES, log, lines);
    EXPECT_NE(rep.text.find(file + ":7:5: error: "), std::string::npos) << rep.text;
    EXPECT_NE(rep.text.find("    read(fd, buf, n)\n    ^~~~"), std::string::npos) << rep.text;
  }
  unlink(fifo.c_str());
}

// Line numbers come from the object (22 bits). A source missing on disk is rebuilt from the line
// texts, newline by newline, up to 2^20 lines: a line past that has no place (the message stays),
// and the rebuilt file stays small (found by uringc_object_fuzz: line 4,177,926 took seconds and
// 128 MiB per place).
TEST(VerifierReportTest, HugeLineNumbersFromTheObjectAreBounded) {
  const std::string log = "4: (79) r1 = *(u64 *)(r0 +0)\nR0 invalid mem access 'mem_or_null'\n";
  std::vector<uringc::LineInfo> far = {
      {"struct_ops.s/step", 0, "/nonexistent/a.uring", 3, 1, "nop()"},
      {"struct_ops.s/step", 4, "/nonexistent/a.uring", 4177926, 5, "    read(fd, buf, n)"}};
  auto rep = uringc::BuildVerifierReport("step", "struct_ops.s/step", -EACCES, log, far);
  EXPECT_EQ(rep.diagnostic.range.file, 0u) << rep.text;
  EXPECT_NE(rep.text.find("R0 invalid mem access"), std::string::npos) << rep.text;
  for (uint32_t id = 1; rep.sources.Get(id); ++id) {
    EXPECT_LE(rep.sources.Get(id)->text().size(), (1u << 20) + 64);
  }
  std::vector<uringc::LineInfo> near = {
      {"struct_ops.s/step", 4, "/nonexistent/a.uring", 1000000, 5, "    read(fd, buf, n)"}};
  rep = uringc::BuildVerifierReport("step", "struct_ops.s/step", -EACCES, log, near);
  EXPECT_NE(rep.text.find("/nonexistent/a.uring:1000000:5: error: "), std::string::npos)
      << rep.text.substr(0, 400);
}

// `uringc run x.uring` compiled the text in memory: the report quotes that text (the whole
// file, so a note two lines up has its line too), not the file on disk, which may have changed.
TEST(VerifierReportTest, SourceTextsGivenByTheCallerAreQuoted) {
  const std::string file = "/nonexistent/given.uring";
  const uringc::SourceTexts texts = {
      {file, "graph g() {\n  let b = read(fd, buf, n)\n  write(fd, buf, b)\n}\n"}};
  std::vector<uringc::LineInfo> lines = {
      {"struct_ops.s/step", 4, file, 3, 3, "a stale line text from BTF"}};
  const std::string log = "4: (79) r1 = *(u64 *)(r0 +0)\nR0 invalid mem access 'mem_or_null'\n";
  const auto rep =
      uringc::BuildVerifierReport("step", "struct_ops.s/step", -EACCES, log, lines, texts);
  EXPECT_NE(rep.text.find(file + ":3:3: error: "), std::string::npos) << rep.text;
  EXPECT_NE(rep.text.find("  write(fd, buf, b)\n  ^"), std::string::npos) << rep.text;
  ASSERT_NE(rep.sources.Get(rep.diagnostic.range.file), nullptr);
  EXPECT_EQ(rep.sources.Get(rep.diagnostic.range.file)->Line(2), "  let b = read(fd, buf, n)");
}

TEST(VerifierReportTest, NoSourceInformationStillGivesAMessage) {
  const auto rep = uringc::BuildVerifierReport("step", "s", -EINVAL, "R2 !read_ok\n", {});
  EXPECT_EQ(rep.diagnostic.kind, uringc::DiagKind::kVerifierRejected);
  EXPECT_NE(rep.text.find("R2 !read_ok"), std::string::npos);
}

}  // namespace
