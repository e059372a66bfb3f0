// Every request kind of the language, written by compiler/lower into the SQ ring of a real kernel:
// the generated "requests" controller (tests/codegen/request_program.cpp) issues the request(s)
// of one kind with operands the test sets in .rodata, and the test checks the results the kernel
// returned and their effects (bytes read and written, sockets connected and accepted, fds opened
// and closed, timeouts and cancellations). Runs in the VM; skipped on kernels without
// io_uring_bpf_ops.
#include <fcntl.h>
#include <linux/time_types.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "controller_fixture.h"
#include "request_ops.h"

extern "C" const unsigned char gen_requests_bpf_object[];
extern "C" const unsigned char gen_requests_bpf_object_end[];

namespace uringc::testing {
namespace {

const Embedded kRequests{"requests_O2", "requests", gen_requests_bpf_object,
                         gen_requests_bpf_object_end};

struct Operands {
  int64_t fd = -1;
  uint64_t addr = 0;
  uint64_t len = 0;
  uint64_t off = 0;
  uint64_t flags = 0;
  uint64_t aux = 0;
};

class GeneratedRequestTest : public RingFixture {
 protected:
  void TearDown() override {
    for (int fd : fds_) close(fd);
    RingFixture::TearDown();
  }

  int Track(int fd) {
    EXPECT_GE(fd, 0) << strerror(errno);
    fds_.push_back(fd);
    return fd;
  }

  // Loads the controller for `op`, runs it until it stops, and returns res1/res2.
  void Run(RequestOp op, const Operands& o) {
    ASSERT_NO_FATAL_FAILURE(OpenGenerated(
        kRequests, {{"op", static_cast<uint32_t>(op)},
                    {"fd", static_cast<uint64_t>(o.fd)},
                    {"addr", o.addr},
                    {"len", o.len},
                    {"off", o.off},
                    {"flags", o.flags},
                    {"aux", o.aux}}));
    ASSERT_NO_FATAL_FAILURE(Load(1));
    if (IsSkipped()) return;
    status_name_ = "requests_status";
    uint32_t status = 0;
    ASSERT_NO_FATAL_FAILURE(AttachAndRun("requests_ops", &status));
    ASSERT_EQ(status, kStopDone) << "detail=" << static_cast<int32_t>(ReadBss("requests_detail"));
    EXPECT_EQ(ReadBss("completions"), RequestCompletions(op));
    res1_ = static_cast<int64_t>(ReadBss("res1"));
    res2_ = static_cast<int64_t>(ReadBss("res2"));
    ran_ = true;
  }

  static uint64_t Addr(const void* p) { return reinterpret_cast<uint64_t>(p); }

  std::vector<int> fds_;
  int64_t res1_ = 0, res2_ = 0;
  bool ran_ = false;
};

TEST_F(GeneratedRequestTest, Nop) {
  Run(RequestOp::kNop, {});
  if (ran_) {
    EXPECT_EQ(res1_, 0);
  }
}

TEST_F(GeneratedRequestTest, ReadAtOffset) {
  int fd = Track(memfd_create("uringc_read", 0));
  ASSERT_EQ(pwrite(fd, "0123456789", 10, 0), 10);
  char buf[8] = {};
  Run(RequestOp::kRead, {.fd = fd, .addr = Addr(buf), .len = 4, .off = 3});
  if (!ran_) return;
  EXPECT_EQ(res1_, 4);
  EXPECT_EQ(std::string(buf, 4), "3456");
}

TEST_F(GeneratedRequestTest, WriteAtOffset) {
  int fd = Track(memfd_create("uringc_write", 0));
  ASSERT_EQ(pwrite(fd, "..........", 10, 0), 10);
  const char data[] = "uring";
  Run(RequestOp::kWrite, {.fd = fd, .addr = Addr(data), .len = 5, .off = 2});
  if (!ran_) return;
  EXPECT_EQ(res1_, 5);
  char back[11] = {};
  ASSERT_EQ(pread(fd, back, 10, 0), 10);
  EXPECT_EQ(std::string(back), "..uring...");
}

TEST_F(GeneratedRequestTest, SendAndRecv) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  Track(sv[0]);
  Track(sv[1]);
  const char ping[] = "ping";
  Run(RequestOp::kSend, {.fd = sv[0], .addr = Addr(ping), .len = 4, .flags = MSG_NOSIGNAL});
  if (!ran_) return;
  EXPECT_EQ(res1_, 4);
  char got[8] = {};
  ASSERT_EQ(read(sv[1], got, sizeof(got)), 4);
  EXPECT_EQ(std::string(got), "ping");
}

TEST_F(GeneratedRequestTest, Recv) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  Track(sv[0]);
  Track(sv[1]);
  ASSERT_EQ(write(sv[0], "pong!", 5), 5);
  char got[16] = {};
  Run(RequestOp::kRecv, {.fd = sv[1], .addr = Addr(got), .len = sizeof(got)});
  if (!ran_) return;
  EXPECT_EQ(res1_, 5);
  EXPECT_EQ(std::string(got), "pong!");
}

// An abstract unix socket address unique to this process.
sockaddr_un AbstractAddress(socklen_t* len) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::string name = "uringc-test-" + std::to_string(getpid());
  std::memcpy(a.sun_path + 1, name.data(), name.size());
  *len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  return a;
}

TEST_F(GeneratedRequestTest, AcceptAndConnect) {
  socklen_t len;
  sockaddr_un addr = AbstractAddress(&len);
  int listener = Track(socket(AF_UNIX, SOCK_STREAM, 0));
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), len), 0) << strerror(errno);
  ASSERT_EQ(listen(listener, 4), 0);
  // connect: the controller connects a fresh socket to the listener.
  int client = Track(socket(AF_UNIX, SOCK_STREAM, 0));
  Run(RequestOp::kConnect, {.fd = client, .addr = Addr(&addr), .len = len});
  if (!ran_) return;
  EXPECT_EQ(res1_, 0);
  ASSERT_EQ(write(client, "hi", 2), 2);
  // accept: a second controller run on a fresh ring accepts that connection.
  TearDownRingOnly();
  ASSERT_NO_FATAL_FAILURE(SetUp());
  ran_ = false;
  sockaddr_un peer{};
  socklen_t peer_len = sizeof(peer);
  Run(RequestOp::kAccept, {.fd = listener, .addr = Addr(&peer), .aux = Addr(&peer_len)});
  if (!ran_) return;
  ASSERT_GE(res1_, 0);
  int accepted = Track(static_cast<int>(res1_));
  char got[4] = {};
  EXPECT_EQ(read(accepted, got, sizeof(got)), 2);
  EXPECT_EQ(std::string(got), "hi");
  EXPECT_EQ(peer.sun_family, AF_UNIX);
}

TEST_F(GeneratedRequestTest, Close) {
  int fd = dup(STDERR_FILENO);
  ASSERT_GE(fd, 0);
  Run(RequestOp::kClose, {.fd = fd});
  if (!ran_) {
    close(fd);
    return;
  }
  EXPECT_EQ(res1_, 0);
  EXPECT_EQ(fcntl(fd, F_GETFD), -1);
  EXPECT_EQ(errno, EBADF);
}

TEST_F(GeneratedRequestTest, Fsync) {
  int fd = Track(memfd_create("uringc_fsync", 0));
  ASSERT_EQ(write(fd, "x", 1), 1);
  Run(RequestOp::kFsync, {.fd = fd, .flags = IORING_FSYNC_DATASYNC});
  if (ran_) {
    EXPECT_EQ(res1_, 0);
  }
}

TEST_F(GeneratedRequestTest, Openat) {
  const char path[] = "/dev/null";
  Run(RequestOp::kOpenat, {.fd = AT_FDCWD, .addr = Addr(path), .len = 0, .flags = O_WRONLY});
  if (!ran_) return;
  ASSERT_GE(res1_, 0);
  int fd = Track(static_cast<int>(res1_));
  EXPECT_EQ(write(fd, "x", 1), 1);
  EXPECT_EQ(fcntl(fd, F_GETFL) & O_ACCMODE, O_WRONLY);
}

TEST_F(GeneratedRequestTest, PollAdd) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  Track(p[0]);
  Track(p[1]);
  ASSERT_EQ(write(p[1], "!", 1), 1);
  Run(RequestOp::kPollAdd, {.fd = p[0], .flags = POLLIN});
  if (ran_) {
    EXPECT_EQ(res1_ & POLLIN, POLLIN);
  }
}

TEST_F(GeneratedRequestTest, TimeoutExpires) {
  __kernel_timespec ts{.tv_sec = 0, .tv_nsec = 20 * 1000 * 1000};
  timespec before, after;
  clock_gettime(CLOCK_MONOTONIC, &before);
  Run(RequestOp::kTimeout, {.addr = Addr(&ts), .off = 0});
  clock_gettime(CLOCK_MONOTONIC, &after);
  if (!ran_) return;
  EXPECT_EQ(res1_, -ETIME);
  double ms = (after.tv_sec - before.tv_sec) * 1e3 + (after.tv_nsec - before.tv_nsec) / 1e6;
  EXPECT_GE(ms, 20.0);
}

TEST_F(GeneratedRequestTest, LinkTimeoutCancelsAPollThatNeverFires) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  Track(p[0]);
  Track(p[1]);
  __kernel_timespec ts{.tv_sec = 0, .tv_nsec = 20 * 1000 * 1000};
  Run(RequestOp::kLinkTimeout, {.fd = p[0], .addr = Addr(&ts)});
  if (!ran_) return;
  EXPECT_EQ(res1_, -ECANCELED);  // the poll, cancelled by its linked timeout
  EXPECT_EQ(res2_, -ETIME);      // the link timeout itself
}

TEST_F(GeneratedRequestTest, AsyncCancelCancelsAPendingPoll) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  Track(p[0]);
  Track(p[1]);
  Run(RequestOp::kAsyncCancel, {.fd = p[0]});
  if (!ran_) return;
  EXPECT_EQ(res1_, -ECANCELED);  // the poll
  EXPECT_EQ(res2_, 0);           // the cancel found it
}

}  // namespace
}  // namespace uringc::testing
