// Every request kind of the language on a real kernel: tests/compiled/requests.uring issues the
// request(s) of the kind `op` picks on descriptors the test made, and the test checks the
// results against docs/language.md's request table and their effects (bytes really read and
// written, sockets connected, accepted and closed, a file created, fds closed, a sleep and a
// `within` that fire on time, a poll cancelled). Also eight tasks keeping eight NOPs in flight
// (tests/compiled/nop_parallel.uring), and 64 lanes of NOPs taking one loop_step per 64 NOPs
// (tests/bench/nops_64.uring). Built into both compiled-program test binaries; the
// objects were compiled by `uringc compile` at build time.
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <vector>

#include "compiled_fixture.h"

URINGC_EMBEDDED(t_requests_bpf);
URINGC_EMBEDDED(t_nop_parallel_bpf);
URINGC_EMBEDDED(t_nops_64_bpf);

namespace uringc_test {
namespace {

// The values of `op` in requests.uring.
enum RequestOp : uint32_t {
  kNop = 0,
  kRead,
  kWrite,
  kSend,
  kRecv,
  kConnect,
  kSocket,
  kClose,
  kFsync,
  kOpenat,
  kPoll,
  kSleep,
  kWithin,
  kCancel,
  kListen,
  kShutdown,
  kStatx,
  kSplice,
  kUringCmd,
};

struct Operands {
  int f = -1;
  int g = -1;
  uint64_t off = 0;
  uint32_t n = 0;  // bytes of buf[0] the request uses
  uint32_t m = 0;  // ... of buf[1]
  uint64_t d = 0;  // ns
};

class Requests : public Compiled {
 protected:
  ~Requests() override {
    for (int fd : fds_) close(fd);
  }

  int Track(int fd) {
    EXPECT_GE(fd, 0) << strerror(errno);
    fds_.push_back(fd);
    return fd;
  }

  // A connected pair of unix stream sockets, closed at the end of the test.
  void SocketPair(int sv[2]) {
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    Track(sv[0]);
    Track(sv[1]);
  }
  void Pipe(int p[2]) {
    ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
    Track(p[0]);
    Track(p[1]);
  }

  // Copies `bytes` to the start of buf[i]; returns their length (for n or m).
  uint32_t Put(int i, std::string_view bytes) {
    std::memcpy(Buf(i), bytes.data(), bytes.size());
    return static_cast<uint32_t>(bytes.size());
  }
  char* Buf(int i) { return static_cast<char*>(buf_.p) + i * 4096; }

  // Runs requests.uring for `op` until the graph ends; false when it did not run (skipped) or
  // did not end done. Sets seconds_ and the descriptors open before and after the run.
  bool RunOp(RequestOp op, const Operands& o) {
    Open(t_requests_bpf_obj, "requests", [&](Controller&) {
      SetU("op", op);
      Set("f", o.f);
      Set("g", o.g);
      SetU("off", o.off);
      SetU("n", o.n);
      SetU("m", o.m);
      SetU("d", o.d);
      SetBuf("buf", buf_);
    });
    if (!ready_) return false;
    // Load registered `buf` as fixed buffer 0: reads and writes of it are READ_FIXED/WRITE_FIXED,
    // which the kernel refuses (EFAULT) for an address outside the registered memory.
    EXPECT_EQ(Get("uringc_fixed_buf"), 0x10000);  // kFixedBufferFlag | index 0
    fds_before_ = OpenFds();
    const auto t0 = Clock::now();
    RunOutcome out = Run();
    seconds_ = std::chrono::duration<double>(Clock::now() - t0).count();
    fds_after_ = OpenFds();
    EXPECT_EQ(out.status, RunStatus::kDone) << out.controller_error;
    ExpectNothingLeft("requests");
    return out.status == RunStatus::kDone;
  }

  HostBuffer buf_{2 * 4096};
  std::vector<int> fds_;
  double seconds_ = 0;
  size_t fds_before_ = 0, fds_after_ = 0;
};

TEST_F(Requests, Nop) {
  if (!RunOp(kNop, {})) return;
  EXPECT_EQ(Get("res"), 0);
}

// The fixed read really reads from the registered memory: the same read with the buffer
// registered shorter than the view fails with EFAULT (the kernel checks the fixed buffer).
TEST_F(Requests, ReadOnAFixedBufferIsCheckedAgainstItsRegistration) {
  const int fd = Track(memfd_create("uringc_read_fixed", MFD_CLOEXEC));
  ASSERT_EQ(pwrite(fd, "0123456789", 10, 0), 10);
  Open(t_requests_bpf_obj, "requests", [&](Controller&) {
    SetU("op", kRead);
    Set("f", fd);
    SetU("n", 4);
    SetBuf("buf", buf_);
  });
  if (!ready_) return;
  ASSERT_EQ(Get("uringc_fixed_buf"), 0x10000);  // kFixedBufferFlag | index 0
  ASSERT_TRUE(ring_->RegisterFixedBuffers({{buf_.p, 2}}).ok());  // 2 bytes instead of 8 KiB
  RunOutcome out = Run();
  EXPECT_EQ(out.status, RunStatus::kDone) << out.controller_error;
  EXPECT_EQ(Get("res"), -EFAULT);
}

TEST_F(Requests, ReadAtOffset) {
  const int fd = Track(memfd_create("uringc_read", MFD_CLOEXEC));
  ASSERT_EQ(pwrite(fd, "0123456789", 10, 0), 10);
  if (!RunOp(kRead, {.f = fd, .off = 3, .n = 4})) return;
  EXPECT_EQ(Get("res"), 4);
  EXPECT_EQ(std::string(Buf(0), 5), std::string("3456\0", 5));
}

TEST_F(Requests, WriteAtOffset) {
  const int fd = Track(memfd_create("uringc_write", MFD_CLOEXEC));
  ASSERT_EQ(pwrite(fd, "..........", 10, 0), 10);
  const uint32_t n = Put(0, "uring");
  if (!RunOp(kWrite, {.f = fd, .off = 2, .n = n})) return;
  EXPECT_EQ(Get("res"), 5);
  char back[11] = {};
  ASSERT_EQ(pread(fd, back, 10, 0), 10);
  EXPECT_STREQ(back, "..uring...");
}

TEST_F(Requests, Send) {
  int sv[2];
  ASSERT_NO_FATAL_FAILURE(SocketPair(sv));
  const uint32_t n = Put(0, "ping");
  if (!RunOp(kSend, {.f = sv[0], .n = n})) return;
  EXPECT_EQ(Get("res"), 4);
  char got[8] = {};
  ASSERT_EQ(recv(sv[1], got, sizeof(got), MSG_DONTWAIT), 4);
  EXPECT_STREQ(got, "ping");
}

TEST_F(Requests, Recv) {
  int sv[2];
  ASSERT_NO_FATAL_FAILURE(SocketPair(sv));
  ASSERT_EQ(write(sv[0], "pong!", 5), 5);
  if (!RunOp(kRecv, {.f = sv[1]})) return;
  EXPECT_EQ(Get("res"), 5);
  EXPECT_EQ(std::string(Buf(0), 6), std::string("pong!\0", 6));
}

// A listening unix socket at an abstract address unique to this process; the address's bytes
// go into buf[0] (returns their length).
class Sockets : public Requests {
 protected:
  uint32_t Listen() {
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    const std::string name = "uringc-test-" + std::to_string(getpid());
    std::memcpy(a.sun_path + 1, name.data(), name.size());
    const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
    listener_ = Track(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    EXPECT_EQ(bind(listener_, reinterpret_cast<sockaddr*>(&a), len), 0) << strerror(errno);
    EXPECT_EQ(listen(listener_, 4), 0);
    return Put(0, std::string_view(reinterpret_cast<const char*>(&a), len));
  }

  // The graph accepted the one connection: none is left to accept.
  void ExpectNothingToAccept() {
    ASSERT_EQ(fcntl(listener_, F_SETFL, O_NONBLOCK), 0);
    EXPECT_EQ(accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC), -1);
    EXPECT_EQ(errno, EAGAIN);
  }

  int listener_ = -1;
};

// connect(g, address) connects the test's socket; accept(listener) takes the connection; the
// accepted socket sends "hi" and is closed, so the test's socket reads "hi" and then EOF.
TEST_F(Sockets, ConnectThenAcceptOnAnAbstractUnixSocket) {
  const uint32_t n = Listen();
  const int client = Track(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const uint32_t m = Put(1, "hi");
  if (!RunOp(kConnect, {.f = listener_, .g = client, .n = n, .m = m})) return;
  EXPECT_EQ(Get("res"), 0);
  EXPECT_EQ(Get("res2"), 2);
  timeval tv{5, 0};  // a missing close fails the test instead of hanging it
  setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  char got[4] = {};
  EXPECT_EQ(read(client, got, sizeof(got)), 2);
  EXPECT_STREQ(got, "hi");
  EXPECT_EQ(read(client, got, sizeof(got)), 0) << "the accepted socket is still open";
  ExpectNothingToAccept();
  EXPECT_EQ(fds_after_, fds_before_);
}

// socket() makes the graph's own socket, which connects, is accepted, receives "hi" from the
// accepted end and is closed with it: no descriptor is left behind.
TEST_F(Sockets, SocketConnectsAndReceivesWhatTheAcceptedEndSent) {
  const uint32_t n = Listen();
  const uint32_t m = Put(1, "hi");
  if (!RunOp(kSocket, {.f = listener_, .n = n, .m = m})) return;
  EXPECT_EQ(Get("res"), 0);
  EXPECT_EQ(Get("res2"), 2);
  EXPECT_EQ(Get("res3"), 2);
  EXPECT_EQ(std::string(Buf(1) + 64, 3), std::string("hi\0", 3));
  ExpectNothingToAccept();
  EXPECT_EQ(fds_after_, fds_before_);
}

TEST_F(Requests, Close) {
  const int fd = dup(STDERR_FILENO);
  ASSERT_GE(fd, 0);
  if (!RunOp(kClose, {.f = fd})) {
    close(fd);
    return;
  }
  EXPECT_EQ(Get("res"), 0);
  EXPECT_EQ(fcntl(fd, F_GETFD), -1);
  EXPECT_EQ(errno, EBADF);
  EXPECT_EQ(fds_after_, fds_before_ - 1);
}

TEST_F(Requests, FsyncAndFdatasync) {
  const std::string path = TempPath("fsync");
  const int fd = Track(open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  ASSERT_EQ(write(fd, "x", 1), 1);
  const bool ran = RunOp(kFsync, {.f = fd});
  unlink(path.c_str());
  if (!ran) return;
  EXPECT_EQ(Get("res"), 0);   // fsync(f)
  EXPECT_EQ(Get("res2"), 0);  // fsync(f, true): IORING_FSYNC_DATASYNC
}

// openat(dir, "created", O_WRONLY | O_CREAT | O_TRUNC, 0644) makes the file; the graph writes
// into the new fd and closes it.
TEST_F(Requests, OpenatCreatesAFileTheGraphWritesAndCloses) {
  const std::string dir = TempPath("openat_req");
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0) << strerror(errno);
  const int dir_fd = Track(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  const uint32_t n = Put(0, "created");
  const uint32_t m = Put(1, "data!");
  const bool ran = RunOp(kOpenat, {.f = dir_fd, .n = n, .m = m});
  const std::string file = dir + "/created";
  struct stat st {};
  const bool exists = stat(file.c_str(), &st) == 0;
  const std::string content = ReadAll(file);
  unlink(file.c_str());
  rmdir(dir.c_str());
  if (!ran) return;
  const int64_t fd = Get("res");
  EXPECT_GE(fd, 0);
  EXPECT_EQ(Get("res2"), 5);
  EXPECT_EQ(Get("res3"), 0);
  ASSERT_TRUE(exists) << "openat did not create " << file;
  const mode_t mask = umask(0);
  umask(mask);
  EXPECT_EQ(st.st_mode & 0777, 0644u & ~mask);
  EXPECT_EQ(content, "data!");
  EXPECT_EQ(fcntl(static_cast<int>(fd), F_GETFD), -1) << "fd " << fd << " is still open";
  EXPECT_EQ(fds_after_, fds_before_);
}

// The graph makes a socket, binds it to an abstract unix address and listens on it; a second
// socket of its own connects and is accepted (res3 = 1000 + connect's result).
TEST_F(Requests, BindAndListenMakeASocketThatAccepts) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  const std::string name = "uringc-bind-" + std::to_string(getpid());
  std::memcpy(a.sun_path + 1, name.data(), name.size());
  const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  const uint32_t n = Put(0, std::string_view(reinterpret_cast<const char*>(&a), len));
  if (!RunOp(kListen, {.n = n})) return;
  EXPECT_EQ(Get("res"), 0);
  EXPECT_EQ(Get("res2"), 0);
  EXPECT_EQ(Get("res3"), 1000);
  EXPECT_EQ(fds_after_, fds_before_);
}

// uring_cmd reaches the socket's own commands (Linux 6.7+): SIOCINQ (op 0) is the size of the
// datagram waiting on f; an op the socket lacks is refused with -EOPNOTSUPP.
TEST_F(Requests, UringCmdAsksASocketForTheBytesWaiting) {
  int rx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  int tx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(rx, 0);
  ASSERT_GE(tx, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  ASSERT_EQ(bind(rx, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0) << std::strerror(errno);
  ASSERT_EQ(getsockname(rx, reinterpret_cast<sockaddr*>(&a), &len), 0);
  ASSERT_EQ(sendto(tx, "hello", 5, 0, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 5);
  const bool ran = RunOp(kUringCmd, {.f = rx});
  close(tx);
  close(rx);
  if (!ran) return;
  EXPECT_EQ(Get("res"), 5);
  EXPECT_EQ(Get("res2"), -EOPNOTSUPP);
}

TEST_F(Requests, ShutdownEndsTheWritingSide) {
  int sv[2];
  ASSERT_NO_FATAL_FAILURE(SocketPair(sv));
  if (!RunOp(kShutdown, {.f = sv[0]})) return;
  EXPECT_EQ(Get("res"), 0);
  char c;
  EXPECT_EQ(recv(sv[1], &c, 1, MSG_DONTWAIT), 0) << "no EOF after shutdown(SHUT_WR)";
  EXPECT_EQ(send(sv[0], "x", 1, MSG_NOSIGNAL), -1);
  EXPECT_EQ(errno, EPIPE);
}

// statx writes a whole struct statx into buf[1]; into a view of 255 bytes it is refused with
// -EINVAL before it reaches the kernel, and buf[1] keeps what the first one wrote.
TEST_F(Requests, StatxFillsAStructStatxAndRefusesAShortView) {
  const std::string dir = TempPath("statx_req");
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0) << strerror(errno);
  const std::string file = dir + "/seven";
  WriteAll(file, "1234567");
  const int dir_fd = Track(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  std::memset(Buf(1), 0xee, 4096);
  const uint32_t n = Put(0, "seven");
  const bool ran = RunOp(kStatx, {.f = dir_fd, .n = n});
  unlink(file.c_str());
  rmdir(dir.c_str());
  if (!ran) return;
  EXPECT_EQ(Get("res"), 0);
  EXPECT_EQ(Get("res2"), -EINVAL);
  struct statx st;
  std::memcpy(&st, Buf(1), sizeof(st));
  EXPECT_EQ(st.stx_mask & (STATX_SIZE | STATX_TYPE), STATX_SIZE | STATX_TYPE);
  EXPECT_EQ(st.stx_size, 7u);
  EXPECT_TRUE(S_ISREG(st.stx_mode));
  EXPECT_EQ(static_cast<unsigned char>(Buf(1)[256]), 0xee) << "statx wrote past its view";
}

// splice moves n bytes from a pipe into a file at `off`; a pipe has no offset, so the second
// splice (from offset 0) is -ESPIPE.
TEST_F(Requests, SpliceMovesBytesFromAPipeIntoAFile) {
  int p[2];
  ASSERT_NO_FATAL_FAILURE(Pipe(p));
  const int fd = Track(memfd_create("uringc_splice", MFD_CLOEXEC));
  ASSERT_EQ(write(p[1], "spliced!", 8), 8);
  if (!RunOp(kSplice, {.f = p[0], .g = fd, .off = 2, .n = 8})) return;
  EXPECT_EQ(Get("res"), 8);
  EXPECT_EQ(Get("res2"), -ESPIPE);
  char back[11] = {};
  ASSERT_EQ(pread(fd, back, 10, 0), 10);
  EXPECT_EQ(std::string(back, 10), std::string("\0\0spliced!", 10));
}

TEST_F(Requests, PollSeesData) {
  int p[2];
  ASSERT_NO_FATAL_FAILURE(Pipe(p));
  ASSERT_EQ(write(p[1], "!", 1), 1);
  if (!RunOp(kPoll, {.f = p[0]})) return;
  EXPECT_EQ(Get("res") & POLLIN, POLLIN);
}

// sleep's IORING_OP_TIMEOUT completes with -ETIME when it expires, which the language makes 0.
TEST_F(Requests, SleepExpiresOnTime) {
  if (!RunOp(kSleep, {.d = 50'000'000})) return;
  EXPECT_EQ(Get("res"), 0);
  EXPECT_GE(seconds_, 0.045);
  EXPECT_LE(seconds_, 2.0);
}

// `poll(f, POLLIN) within 50 ms` on a pipe that never gets data: the linked timeout cancels the
// poll (-ECANCELED), which the language reports as -ETIME. A poll that has data completes
// before its `within 10 s`, whose timeout goes with it: the graph ends long before 10 s.
TEST_F(Requests, WithinCancelsAPollThatNeverFiresWithEtime) {
  TwoPipes p;
  ASSERT_TRUE(p.ok);
  ASSERT_EQ(write(p.b[1], "!", 1), 1);
  if (!RunOp(kWithin, {.f = p.a[0], .g = p.b[0], .d = 50'000'000})) return;
  EXPECT_EQ(Get("res"), -ETIME);
  EXPECT_EQ(Get("res2") & POLLIN, POLLIN);
  EXPECT_GE(seconds_, 0.045);
  EXPECT_LE(seconds_, 5.0);
}

// cancel(f) (IORING_OP_ASYNC_CANCEL by fd, all matches) while a branch of `all` polls f: the
// poll completes with -ECANCELED and cancel counts the one request it cancelled.
TEST_F(Requests, CancelCancelsAPendingPoll) {
  int p[2];
  ASSERT_NO_FATAL_FAILURE(Pipe(p));
  if (!RunOp(kCancel, {.f = p[0]})) return;
  EXPECT_EQ(Get("res"), -ECANCELED);
  EXPECT_EQ(Get("res2"), 1);
}

// ----- eight NOPs in flight (tests/compiled/nop_parallel.uring) --------------------------------

class NopParallel : public Compiled, public ::testing::WithParamInterface<uint64_t> {};

TEST_P(NopParallel, EightTasksKeepEightInFlightUntilNComplete) {
  const uint64_t n = GetParam();
  Open(t_nop_parallel_bpf_obj, "nop_parallel", [&](Controller&) { SetU("n", n); });
  if (!ready_) return;
  RunOutcome out = Run();
  EXPECT_EQ(out.status, RunStatus::kDone) << out.controller_error;
  EXPECT_EQ(Get("done"), static_cast<int64_t>(n));
  // Once all eight tasks started, each has one NOP outstanding; with fewer NOPs than tasks,
  // which tasks take them depends on the order the ready queue runs them in.
  if (n >= 8) {
    EXPECT_EQ(Get("most"), 8);
  } else {
    EXPECT_LE(Get("most"), static_cast<int64_t>(n));
    EXPECT_GE(Get("most"), n > 0 ? 1 : 0);
  }
  ExpectNothingLeft("nop_parallel");
  std::printf("nop_parallel n=%llu: done=%lld most in flight=%lld\n",
              static_cast<unsigned long long>(n), static_cast<long long>(Get("done")),
              static_cast<long long>(Get("most")));
}

INSTANTIATE_TEST_SUITE_P(Counts, NopParallel, ::testing::Values(0, 5, 10000));

// ----- 64 NOPs in flight, one step per 64 (tests/bench/nops_64.uring) ---------------------------

// As the lean C controller with K = 64 (tests/bench/nops.bpf.c): every step reaps the 64 CQEs,
// runs the 64 lanes and submits their 64 NOPs at once (the run and reap loops take 65 slots).
TEST_F(Compiled, SixtyFourLanesTakeOneLoopStepPer64Nops) {
  const uint64_t n = 1000;  // NOPs per lane
  Open(t_nops_64_bpf_obj, "nops_64", [&](Controller&) { SetU("n", n); });
  if (!ready_) return;
  RunOutcome out = Run();
  EXPECT_EQ(out.status, RunStatus::kDone) << out.controller_error;
  EXPECT_EQ(Get("done"), static_cast<int64_t>(64 * n));
  // One step submits the first 64, one per round of 64 completions after it, and one may see
  // the graph's end.
  const int64_t steps = Get("uringc_steps");
  EXPECT_LE(steps, static_cast<int64_t>(n + 2));
  ExpectNothingLeft("nops_64");
  std::printf("nops_64 n=%llu: %lld NOPs in %lld loop_steps\n", static_cast<unsigned long long>(n),
              static_cast<long long>(Get("done")), static_cast<long long>(steps));
}

}  // namespace
}  // namespace uringc_test
