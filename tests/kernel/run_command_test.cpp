// The run command (uringc-run / `uringc run`) in-process against the real kernel: fd and buffer
// parameters on real files, outputs and statistics printed, exit codes, --verifier-log, a verifier
// rejection as text and as JSON (--diagnostics-format).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <sstream>
#include <vector>

#include "kernel_test_util.h"
#include "run_command.h"
#include "uringc/features.h"

URINGC_EMBEDDED(copy_file_bpf_object);
URINGC_EMBEDDED(bad_oob_bpf_object);
URINGC_EMBEDDED(ex_copy_bpf_object);  // examples/copy.uring: buf: buffers[4] of 64 KiB

namespace {

std::string WriteTemp(const std::string& name, const std::string& bytes) {
  const std::string path = "/tmp/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs RunCommandMain with stdout and stderr captured into *out.
int RunCli(std::vector<std::string> args, std::string* out) {
  args.insert(args.begin(), "uringc-run");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  fflush(stdout);
  fflush(stderr);
  const std::string capture = "/tmp/uringc-run-capture-" + std::to_string(getpid()) + ".txt";
  const int fd = open(capture.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int saved_out = dup(1), saved_err = dup(2);
  dup2(fd, 1);
  dup2(fd, 2);
  const int rc = uringc::RunCommandMain(static_cast<int>(args.size()), argv.data());
  fflush(stdout);
  fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  close(fd);
  *out = Slurp(capture);
  unlink(capture.c_str());
  return rc;
}

bool HasBpfOps() {
  auto f = uringc::DetectKernelFeatures();
  return f.ok() && f->has_bpf_ops;
}

#define REQUIRE_BPF_OPS()                                                                 \
  do {                                                                                    \
    if (!HasBpfOps()) {                                                                   \
      if (uringc_test::FeatureRequired()) FAIL() << "kernel lacks io_uring_bpf_ops";      \
      GTEST_SKIP() << "kernel lacks io_uring_bpf_ops (Linux 7.1+ needed)";                \
    }                                                                                     \
  } while (0)

TEST(RunCommandTest, CopiesAFileThroughFdAndBufferParameters) {
  REQUIRE_BPF_OPS();
  std::string data(100000, '\0');
  std::mt19937 rng(7);
  for (char& c : data) c = static_cast<char>(rng());
  const std::string in = WriteTemp("copy-in.bin", data);
  const std::string obj = WriteTemp("copy_file.bpf.o", copy_file_bpf_object_obj.str());
  unlink("/tmp/copy-out.bin");
  std::string out;
  const int rc = RunCli({obj, "--arg", "src=" + in + ":r", "--arg", "dst=/tmp/copy-out.bin:create",
                      "--arg", "buf=buffer:4096", "--arg", "buf_size=4096"},
                     &out);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(Slurp("/tmp/copy-out.bin"), data);
  EXPECT_NE(out.find("status: done"), std::string::npos) << out;
  EXPECT_NE(out.find("copied = 100000"), std::string::npos) << out;
  EXPECT_NE(out.find("steps = "), std::string::npos) << out;
  EXPECT_NE(out.find("wall_time = "), std::string::npos) << out;
}

// PATH:create empties an existing file only when the run starts: a failure before that (here a
// missing input) keeps it whole, and a run leaves exactly what the controller wrote.
TEST(RunCommandTest, CreateEmptiesAnExistingFileOnlyWhenTheRunStarts) {
  REQUIRE_BPF_OPS();
  const std::string obj = WriteTemp("copy_file.bpf.o", copy_file_bpf_object_obj.str());
  const std::string in = WriteTemp("create-in.bin", "short");
  const std::string dst = WriteTemp("create-out.bin", std::string(10000, 'x'));
  std::string out;
  EXPECT_EQ(RunCli({obj, "--arg", "dst=" + dst + ":create", "--arg", "src=/nonexistent:r"}, &out),
            1);
  EXPECT_EQ(Slurp(dst), std::string(10000, 'x'));
  EXPECT_EQ(RunCli({obj, "--arg", "src=" + in + ":r", "--arg", "dst=" + dst + ":create", "--arg",
                    "buf=buffer:4096", "--arg", "buf_size=4096"},
                   &out),
            0)
      << out;
  EXPECT_EQ(Slurp(dst), "short");
}

TEST(RunCommandTest, ControllerFailureIsANonZeroExit) {
  REQUIRE_BPF_OPS();
  const std::string obj = WriteTemp("copy_file.bpf.o", copy_file_bpf_object_obj.str());
  const std::string in = WriteTemp("copy-in2.bin", "abc");
  std::string out;
  // dst opened read-only: the write fails with -EBADF and the controller reports it.
  const int rc = RunCli({obj, "--arg", "src=" + in + ":r", "--arg", "dst=" + in + ":r", "--arg",
                      "buf=buffer:4096"},
                     &out);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("status: failed (uringc_error = -9)"), std::string::npos) << out;
}

TEST(RunCommandTest, VerifierRejectionPrintsTheDiagnosticAndWritesTheLog) {
  REQUIRE_BPF_OPS();
  const std::string obj = WriteTemp("bad_oob.bpf.o", bad_oob_bpf_object_obj.str());
  unlink("/tmp/bad_oob.verifier.log");
  std::string out;
  const int rc = RunCli({obj, "--verifier-log=/tmp/bad_oob.verifier.log"}, &out);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(out.find("bad_oob.bpf.c:13:14: error: "), std::string::npos) << out;
  EXPECT_NE(out.find("[RegionOutOfBounds]"), std::string::npos) << out;
  EXPECT_NE(Slurp("/tmp/bad_oob.verifier.log").find("invalid access to memory"),
            std::string::npos);
  EXPECT_NE(out.find("note: the verifier log is in /tmp/bad_oob.verifier.log"), std::string::npos)
      << out;
  // A log that cannot be written is said, and no note claims it is there.
  EXPECT_EQ(RunCli({obj, "--verifier-log=/nonexistent/dir/v.log"}, &out), 1);
  EXPECT_NE(out.find("note: cannot write the verifier log to `/nonexistent/dir/v.log`"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("the verifier log is in"), std::string::npos) << out;
}

// --diagnostics-format=json: the same rejection as the compiler's JSON, one array on stderr.
TEST(RunCommandTest, VerifierRejectionAsJson) {
  REQUIRE_BPF_OPS();
  const std::string obj = WriteTemp("bad_oob.bpf.o", bad_oob_bpf_object_obj.str());
  std::string out;
  EXPECT_EQ(RunCli({obj, "--diagnostics-format", "json"}, &out), 1);
  EXPECT_EQ(out.rfind("[", 0), 0u) << out;
  EXPECT_NE(out.find("\"RegionOutOfBounds\""), std::string::npos) << out;
  EXPECT_NE(out.find("bad_oob.bpf.c\""), std::string::npos) << out;
  EXPECT_EQ(out.find(": error: "), std::string::npos) << out;  // no text form
  // The notes after the rejection are notes of the JSON diagnostic, the same as in text.
  EXPECT_EQ(RunCli({obj, "--diagnostics-format", "json", "--verifier-log=/tmp/bad_oob.json.log"},
                   &out),
            1);
  EXPECT_NE(out.find("\"message\":\"the verifier log is in /tmp/bad_oob.json.log\""),
            std::string::npos)
      << out;
  EXPECT_EQ(RunCli({obj, "--diagnostics-format", "json", "--verifier-log=/nonexistent/dir/v.log"},
                   &out),
            1);
  EXPECT_NE(out.find("cannot write the verifier log to `/nonexistent/dir/v.log`"), std::string::npos)
      << out;
  EXPECT_EQ(out.find("the verifier log is in"), std::string::npos) << out;
  EXPECT_EQ(out.rfind("[", 0), 0u) << out;
}

// A compiled `buffers[4] of 64 KiB` parameter given 4096 bytes: refused before anything runs
// (a read used to return 5000 bytes into the 4096-byte mapping and the run said `done`). The
// destination, opened without truncation, is untouched.
TEST(RunCommandTest, AShortHostBufferIsRefusedBeforeAnythingRuns) {
  const std::string tag = std::to_string(getpid());
  const std::string obj = WriteTemp("ex_copy-" + tag + ".bpf.o", ex_copy_bpf_object_obj.str());
  const std::string in = WriteTemp("short-in-" + tag + ".bin", std::string(300000, 'x'));
  const std::string dst = WriteTemp("short-dst-" + tag + ".bin", "untouched");
  std::string out;
  const int rc = RunCli({obj, "--arg", "src=" + in + ":r", "--arg", "dst=" + dst + ":w", "--arg",
                         "size=300000", "--arg", "buf=buffer:4096"},
                        &out);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("buffers parameter `buf` needs 262144 bytes of host memory"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("status:"), std::string::npos) << out;
  EXPECT_EQ(Slurp(dst), "untouched");
  // A number is no buffer, and a buffer is no number.
  EXPECT_EQ(RunCli({obj, "--arg", "buf=4096"}, &out), 1);
  EXPECT_NE(out.find("`buf` is a buffers parameter"), std::string::npos) << out;
  EXPECT_EQ(RunCli({obj, "--arg", "size=buffer:4096"}, &out), 1);
  EXPECT_NE(out.find("`size` (__u64) is not a buffers parameter"), std::string::npos) << out;
  // Numbers in the host syntax only: `010` is not octal 8.
  EXPECT_EQ(RunCli({obj, "--arg", "size=010"}, &out), 1);
  EXPECT_NE(out.find("leading zero"), std::string::npos) << out;
  for (const std::string& f : {obj, in, dst}) unlink(f.c_str());
}

// The same program with a buffer of the declared size, a larger one, and none at all (`uringc
// run` allocates it, as the README says; it used to pass address 0): each copy is byte-exact.
TEST(RunCommandTest, ACompiledProgramRunsWithAnExactALargerOrAnAllocatedBuffer) {
  REQUIRE_BPF_OPS();
  const std::string tag = std::to_string(getpid());
  const std::string obj = WriteTemp("ex_copy-" + tag + ".bpf.o", ex_copy_bpf_object_obj.str());
  std::string data(300000, '\0');
  std::mt19937 rng(11);
  for (char& c : data) c = static_cast<char>(rng());
  const std::string in = WriteTemp("bufs-in-" + tag + ".bin", data);
  for (const std::string buf : {"buf=buffer:256k", "buf=buffer:1M", "buf=buffer", ""}) {
    const std::string dst = "/tmp/bufs-dst-" + tag + ".bin";
    WriteTemp("bufs-dst-" + tag + ".bin", "");
    std::vector<std::string> args = {obj, "--arg", "src=" + in + ":r", "--arg", "dst=" + dst + ":w",
                                     "--arg", "size=300000"};
    if (!buf.empty()) args.insert(args.end(), {"--arg", buf});
    std::string out;
    EXPECT_EQ(RunCli(args, &out), 0) << buf << "\n" << out;
    EXPECT_NE(out.find("copied = 300000"), std::string::npos) << buf << "\n" << out;
    EXPECT_TRUE(Slurp(dst) == data) << buf << ": the copy differs";
    unlink(dst.c_str());
  }
  unlink(obj.c_str());
  unlink(in.c_str());
}

TEST(RunCommandTest, ParameterErrorsAreExplainedBeforeLoading) {
  const std::string obj = WriteTemp("copy_file.bpf.o", copy_file_bpf_object_obj.str());
  std::string out;
  EXPECT_EQ(RunCli({obj, "--arg", "copied=/etc/hostname:r"}, &out), 1);
  EXPECT_NE(out.find("`copied` is __u64, not an fd parameter"), std::string::npos) << out;
  // A 32-bit integer is no fd parameter either: only `uringc_fd` opens a file.
  EXPECT_EQ(RunCli({obj, "--arg", "buf_size=/etc/hostname:r"}, &out), 1);
  EXPECT_NE(out.find("`buf_size` is __u32, not an fd parameter"), std::string::npos) << out;
  EXPECT_EQ(RunCli({obj, "--arg", "src=/nonexistent/file:r"}, &out), 1);
  EXPECT_NE(out.find("cannot open `/nonexistent/file`"), std::string::npos) << out;
  EXPECT_EQ(RunCli({obj, "--arg", "src=-1", "--bogus"}, &out), 2);
  EXPECT_NE(out.find("unknown option `--bogus`"), std::string::npos) << out;
}

}  // namespace
