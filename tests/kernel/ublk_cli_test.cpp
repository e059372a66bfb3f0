// `uringc ublk add` end to end on a real ublk driver (the VM packs ublk_drv, the uringc binary,
// fio and the targets of examples/ublk/): the command is run as a user runs it, the device's path
// read from its stdout, real block I/O done through /dev/ublkbN with busybox dd, fio (--verify)
// and O_DIRECT writes, and the backing files compared byte for byte. Stopping with I/O in flight,
// a killed server, a target error and a target that never fetches are checked too. The engine is
// the kernel's, or the host's with URINGC_TEST_ENGINE=host. Without the driver the tests skip
// (fail in the VM, URINGC_REQUIRE_UBLK=1).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <memory>
#include <vector>

#include "kernel_test_util.h"
#include "ublk_cli_util.h"
#include "ublk_server.h"
#include "uringc/ublk_server.h"

URINGC_EMBEDDED(ublk_null_bpf_object);

namespace {

using uringc_test::BlockPattern;
using uringc_test::FileBytes;
using uringc_test::MakeFile;
using uringc_test::Pattern;
using uringc_test::RunTool;
using uringc_test::ServerProcess;

constexpr size_t kMiB = 1 << 20;

// Skips (host) or fails (VM) without the driver or the tools; yields the engine flag.
#define URINGC_UBLK_CLI_PREAMBLE()                                       \
  do {                                                                   \
    auto control = uringc::ublk::Control::Open();                        \
    URINGC_SKIP_IF_NO_UBLK(control);                                     \
    if (!uringc_test::ToolsPresent()) {                                  \
      if (uringc_test::UblkRequired()) FAIL() << uringc_test::ToolsWhy(); \
      GTEST_SKIP() << uringc_test::ToolsWhy();                           \
    }                                                                    \
  } while (0)

// examples/ublk/loop.uring over a new file of `mib` MiB (`content` at its start), opened `mode`.
std::unique_ptr<ServerProcess> ServeLoop(const std::string& disk, size_t mib, int depth,
                                         const std::string& mode = "rw",
                                         const std::string& content = "") {
  MakeFile(disk, mib * kMiB, content);
  return std::make_unique<ServerProcess>(std::vector<std::string>{
      "add", uringc_test::Target("loop"), "--arg", "file=" + disk + ":" + mode, "--size",
      std::to_string(mib) + "M", "--depth", std::to_string(depth)});
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

TEST(UblkCli, LoopTargetKeepsEveryByteWithDdAndFio) {
  URINGC_UBLK_CLI_PREAMBLE();
  const std::string disk = "/tmp/loop.img";
  auto server_process = ServeLoop(disk, 32, 16);
  ServerProcess& server = *server_process;
  ASSERT_TRUE(server.started()) << server.log();
  const std::string dev = server.device();
  // dd: 4 MiB at 1 MiB, O_DIRECT, then read back through the device.
  const std::string pattern = Pattern(4 * kMiB, 7);
  MakeFile("/tmp/pattern", 0, pattern);
  EXPECT_EQ(RunTool({"/bin/busybox", "dd", "if=/tmp/pattern", "of=" + dev, "bs=64k", "seek=16",
                     "oflag=direct", "conv=notrunc,fsync"}), 0);
  EXPECT_TRUE(FileBytes(disk, 1 * kMiB, pattern.size()) == pattern)
      << "the backing file does not hold what dd wrote";
  EXPECT_EQ(RunTool({"/bin/busybox", "dd", "if=" + dev, "of=/tmp/readback", "bs=1M", "skip=1",
                     "count=4", "iflag=direct"}), 0);
  EXPECT_TRUE(FileBytes("/tmp/readback", 0, pattern.size()) == pattern)
      << "reading the device back differs from what was written";
  // fio: random 4 KiB writes at depth 16 with a checksum in each block, then verified.
  EXPECT_EQ(RunTool({uringc_test::Fio(), "--name=verify", "--filename=" + dev,
                     "--ioengine=io_uring", "--direct=1", "--rw=randwrite", "--bs=4k",
                     "--iodepth=16", "--offset=16M", "--size=8M", "--verify=crc32c",
                     "--do_verify=1", "--verify_fatal=1"}), 0);
  // What fio verified through the device is what the file holds.
  EXPECT_EQ(RunTool({"/bin/busybox", "dd", "if=" + dev, "of=/tmp/fio-region", "bs=1M",
                     "skip=16", "count=8", "iflag=direct"}), 0);
  EXPECT_TRUE(FileBytes("/tmp/fio-region", 0, 8 * kMiB) == FileBytes(disk, 16 * kMiB, 8 * kMiB));
  EXPECT_EQ(server.Stop(SIGINT), 0) << server.log();
  EXPECT_NE(server.output().find("writes = "), std::string::npos) << server.output();
  EXPECT_FALSE(Exists(dev)) << dev << " is still there";
  EXPECT_FALSE(Exists(server.char_device())) << server.char_device() << " is still there";
}

TEST(UblkCli, StopWithIoInFlightKeepsWhatWasAcknowledged) {
  URINGC_UBLK_CLI_PREAMBLE();
  const std::string disk = "/tmp/stop.img";
  auto server_process = ServeLoop(disk, 64, 8);
  ServerProcess& server = *server_process;
  ASSERT_TRUE(server.started()) << server.log();
  uringc_test::BlockWriter writer(server.device(), 64 * kMiB / 4096);
  writer.WaitFor(64);
  EXPECT_EQ(server.Stop(SIGTERM), 0) << server.log();  // while the writer keeps writing
  const uint64_t acked = writer.Join();
  std::printf("%llu blocks acknowledged before the stop (%s)\n",
              static_cast<unsigned long long>(acked), writer.end().c_str());
  ASSERT_GE(acked, 64u);
  for (uint64_t b = 0; b < acked; ++b) {
    ASSERT_TRUE(FileBytes(disk, b * 4096, 4096) == BlockPattern(b))
        << "block " << b << " was acknowledged but is not in the backing file";
  }
  EXPECT_FALSE(Exists(server.device()));
  EXPECT_FALSE(Exists(server.char_device()));
}

TEST(UblkCli, ATargetErrorIsAnIoErrorOfTheBlockDevice) {
  URINGC_UBLK_CLI_PREAMBLE();
  const std::string disk = "/tmp/readonly.img";
  // Opened read-only: every write of the target fails with EBADF, which it commits.
  auto server_process = ServeLoop(disk, 8, 4, "r", Pattern(8 * kMiB, 3));
  ServerProcess& server = *server_process;
  ASSERT_TRUE(server.started()) << server.log();
  int fd = open(server.device().c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  void* block = std::aligned_alloc(4096, 4096);
  std::memset(block, 0x11, 4096);
  errno = 0;
  EXPECT_EQ(pwrite(fd, block, 4096, 0), -1);
  EXPECT_EQ(errno, EIO) << std::strerror(errno);
  EXPECT_EQ(pread(fd, block, 4096, 4096), 4096) << std::strerror(errno);  // reads still work
  EXPECT_TRUE(std::string(static_cast<char*>(block), 4096) == Pattern(8 * kMiB, 3).substr(4096, 4096));
  std::free(block);
  close(fd);
  EXPECT_EQ(server.Stop(SIGINT), 0) << server.log();
  EXPECT_EQ(server.output().find("errors = 0\n"), std::string::npos) << server.output();
  EXPECT_TRUE(FileBytes(disk, 0, 8 * kMiB) == Pattern(8 * kMiB, 3)) << "the file changed";
}

TEST(UblkCli, AKilledServerLeavesTheKernelClean) {
  URINGC_UBLK_CLI_PREAMBLE();
  const std::string disk = "/tmp/killed.img";
  auto server_process = ServeLoop(disk, 64, 8);
  ServerProcess& server = *server_process;
  ASSERT_TRUE(server.started()) << server.log();
  uringc_test::BlockWriter writer(server.device(), 64 * kMiB / 4096);
  writer.WaitFor(32);
  server.Kill();  // SIGKILL with I/O in flight
  const uint64_t acked = writer.Join();  // ends: the writes fail rather than hang
  std::printf("writer: %llu blocks, then %s\n", static_cast<unsigned long long>(acked),
              writer.end().c_str());
  // The driver removes the block device; the device itself waits for `uringc ublk del N`.
  for (int i = 0; i < 200 && Exists(server.device()); ++i) usleep(50000);
  EXPECT_FALSE(Exists(server.device())) << server.device() << " outlived its server by 10 s";
  EXPECT_EQ(RunTool({uringc_test::Uringc(), "ublk", "del", std::to_string(server.dev_id())}), 0);
  EXPECT_FALSE(Exists(server.char_device()));
  for (uint64_t b = 0; b < acked; ++b) {
    ASSERT_TRUE(FileBytes(disk, b * 4096, 4096) == BlockPattern(b)) << "block " << b;
  }
}

TEST(UblkCli, MirrorWritesBothCopiesAndReadsAroundAFailedOne) {
  URINGC_UBLK_CLI_PREAMBLE();
  MakeFile("/tmp/a.img", 16 * kMiB);
  MakeFile("/tmp/b.img", 16 * kMiB);
  // Copy a is opened write-only: its reads fail (EBADF) and are served from b instead.
  ServerProcess server({"add", uringc_test::Target("mirror"), "--arg", "a=/tmp/a.img:w", "--arg",
                        "b=/tmp/b.img:rw", "--size", "16M", "--depth", "8"});
  ASSERT_TRUE(server.started()) << server.log();
  const std::string pattern = Pattern(2 * kMiB, 5);
  MakeFile("/tmp/mirror-pattern", 0, pattern);
  EXPECT_EQ(RunTool({"/bin/busybox", "dd", "if=/tmp/mirror-pattern", "of=" + server.device(),
                     "bs=128k", "seek=8", "oflag=direct", "conv=notrunc,fsync"}), 0);
  EXPECT_TRUE(FileBytes("/tmp/a.img", 1 * kMiB, pattern.size()) == pattern) << "copy a";
  EXPECT_TRUE(FileBytes("/tmp/b.img", 1 * kMiB, pattern.size()) == pattern) << "copy b";
  EXPECT_EQ(RunTool({"/bin/busybox", "dd", "if=" + server.device(), "of=/tmp/mirror-back",
                     "bs=1M", "skip=1", "count=2", "iflag=direct"}), 0);
  EXPECT_TRUE(FileBytes("/tmp/mirror-back", 0, pattern.size()) == pattern);
  EXPECT_EQ(server.Stop(SIGINT), 0) << server.log();
  EXPECT_EQ(server.output().find("retried_reads = 0\n"), std::string::npos) << server.output();
}

TEST(UblkCli, TwoQueuesServeFioAndStop) {
  URINGC_UBLK_CLI_PREAMBLE();
  ServerProcess server({"add", uringc_test::Target("null"), "--size", "1G", "--queues", "2",
                        "--depth", "8"});
  ASSERT_TRUE(server.started()) << server.log();
  EXPECT_EQ(RunTool({uringc_test::Fio(), "--name=rr", "--filename=" + server.device(),
                     "--ioengine=io_uring", "--direct=1", "--rw=randread", "--bs=4k",
                     "--iodepth=8", "--numjobs=2", "--size=64M", "--io_size=8M"}), 0);
  EXPECT_EQ(server.Stop(SIGTERM), 0) << server.log();
  if (sysconf(_SC_NPROCESSORS_ONLN) >= 2) {
    EXPECT_NE(server.output().find("queue 1: done"), std::string::npos) << server.output();
  } else {  // the driver gives one queue per CPU at most, and says so
    EXPECT_NE(server.log().find("made 1 of the 2 queues"), std::string::npos) << server.log();
    std::printf("one CPU: the two-queue case ran with one queue\n");
  }
}

TEST(UblkCli, ATargetThatNeverFetchesFailsToStartAndLeavesNoDevice) {
  URINGC_UBLK_CLI_PREAMBLE();
  MakeFile("/tmp/idle.uring", 0,
           "const DEPTH = 4\n"
           "graph idle(ublkc: fd, buf: buffers[DEPTH] of 4 KiB) -> (ran: u64) { ran = 1 }\n");
  const std::vector<std::string> before = uringc_test::UblkCharDevices();
  ServerProcess server({"add", "/tmp/idle.uring", "--size", "1M", "--depth", "4"});
  EXPECT_FALSE(server.started());
  EXPECT_EQ(server.Stop(0), 1) << server.log();
  EXPECT_NE(server.log().find("ended before every tag had a FETCH pending"), std::string::npos)
      << server.log();
  EXPECT_EQ(uringc_test::UblkCharDevices(), before);
}

}  // namespace

namespace {

// fio's read IOPS from its terse output (field 8 of the `--minimal` line).
double ReadIops(const std::string& terse) {
  std::stringstream line(terse.substr(0, terse.find('\n')));
  std::string field;
  for (int i = 0; i < 8 && std::getline(line, field, ';'); ++i) {
  }
  return std::atof(field.c_str());
}

// fio's 4 KiB random-read IOPS on `device` at `depth` for `seconds` (0 when fio failed).
double FioRandReadIops(const std::string& device, int depth, const std::string& seconds) {
  const std::string out = "/tmp/fio.terse";
  const int status = RunTool({"/bin/busybox", "sh", "-c",
                              uringc_test::Fio() + " --name=rr --filename=" + device +
                                  " --ioengine=io_uring --direct=1 --rw=randread --bs=4k"
                                  " --iodepth=" + std::to_string(depth) +
                                  " --time_based --runtime=" + seconds + " --minimal > " + out});
  EXPECT_EQ(status, 0);
  const double iops = ReadIops(FileBytes(out, 0, 1 << 16));
  EXPECT_GT(iops, 0) << FileBytes(out, 0, 4096);
  return iops;
}

// The hand-written C null controller (tests/controllers/ublk_null.bpf.c, at most 64 tags) served
// by ublk::Server in this process: the reference for what compiled code costs.
double HandWrittenIops(int depth, const std::string& seconds) {
  auto control = uringc::ublk::Control::Open();
  EXPECT_TRUE(control.ok());
  if (!control.ok()) return 0;
  uringc::ublk::ServerOptions o;
  o.device.size_bytes = 1 << 30;
  o.device.depth = static_cast<uint16_t>(depth);
  o.device.max_io_bytes = 64 << 10;  // as null.uring's MAX_IO
  o.ring_mode = uringc::RingMode::kTail;
  o.open = [](uint16_t) {
    return uringc::Controller::OpenMemory(ublk_null_bpf_object_obj.begin,
                                          ublk_null_bpf_object_obj.size());
  };
  o.configure = [](uringc::Controller& c, const uringc::ublk::QueueContext& q) -> uringc::Result<void> {
    URINGC_TRY(c.SetUint("depth", q.device->depth));
    URINGC_TRY(c.SetUint("bufs", reinterpret_cast<uint64_t>(q.bufs)));
    return c.SetUint("buf_bytes", q.device->max_io_bytes);
  };
  auto server = uringc::ublk::Server::Start(**control, o);
  EXPECT_TRUE(server.ok()) << server.error().message;
  if (!server.ok()) return 0;
  const double iops = FioRandReadIops((*server)->device().block_path(), depth, seconds);
  EXPECT_TRUE((*server)->Stop().ok());
  return iops;
}

// The measurement of issue 16 (docs/ublk.md, "Numbers"): fio 4 KiB random reads on the null
// target, one queue, at depth 1 and 64: null.uring on the kernel engine and on the host engine,
// and the hand-written C controller, in one boot. URINGC_UBLK_BENCH_SECONDS sets each run's
// length (scripts/bench_ublk.py: 10); without it, a 1-second smoke run that proves the path. It
// prints; it asserts nothing about speed.
TEST(UblkBench, NullTargetRandomReadIops) {
  URINGC_UBLK_CLI_PREAMBLE();
  if (uringc_test::OnHostEngine()) GTEST_SKIP() << "runs both engines in the kernel-engine run";
  const std::string seconds = uringc_test::EnvOr("URINGC_UBLK_BENCH_SECONDS", "1");
  for (int depth : {1, 64}) {
    double iops[2] = {0, 0};
    for (int e = 0; e < 2; ++e) {
      const char* engine = e == 0 ? "kernel" : "host";
      ServerProcess server({"add", uringc_test::Target("null"), "--size", "1G", "--depth",
                            std::to_string(depth), "--engine", engine});
      ASSERT_TRUE(server.started()) << server.log();
      iops[e] = FioRandReadIops(server.device(), depth, seconds);
      EXPECT_EQ(server.Stop(SIGINT), 0) << server.log();
    }
    const double c = HandWrittenIops(depth, seconds);
    std::printf("ublk-bench null randread 4k depth=%d seconds=%s kernel_iops=%.0f "
                "host_iops=%.0f c_iops=%.0f ratio=%.2f\n",
                depth, seconds.c_str(), iops[0], iops[1], c, iops[1] > 0 ? iops[0] / iops[1] : 0.0);
  }
}

}  // namespace
