// Compiled `.uring` programs on a real kernel, through the runtime's C++ API (Ring, Controller):
// every example and test program loads and passes the verifier; and the behaviour the source
// promises: the NOP chain (-O2 and -O0) completes exactly n; copy copies real files byte-exact; the echo
// server answers concurrent clients over real sockets and drops an idle one when its timeout
// fires; `within` on a pipe that never gets data times out on time; `any` returns the first
// result and cancels the rest with no completion left behind; a failing request fails the graph
// with its errno; a failing instance of a nested `parallel` cancels all the others; a failing
// `any` arm reaches the enclosing catch; openat paths end at the view's end even when the host's
// bytes go on; `within` on a sleep or a fn call gives -ETIME; a huge run-time duration saturates;
// a failed prep is its request's own result; a construct that cancelled goes on once the
// cancelled requests completed; a deliberately broken lowering is reported at the right line.
// (Every request kind on its own: compiled_requests_test.cpp.) The objects were compiled by
// `uringc compile` at build time and are embedded here. This file is built twice: for the 7.2
// kernel ABI (every guest) and for 7.1 (`--target-kernel=7.1`, the 7.1 guest); each build also
// carries the NOP chain for the other ABI, which must run as well, and checks that
// `--target-kernel=auto` picks the running kernel's ABI.
#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <mutex>
#include <thread>
#include <tuple>

#include "compiled_fixture.h"
#include "driver/target_kernel.h"

URINGC_EMBEDDED(ex_copy_bpf);
URINGC_EMBEDDED(ex_deadline_bpf);
URINGC_EMBEDDED(ex_echo_bpf);
URINGC_EMBEDDED(ex_echo_multishot_bpf);
URINGC_EMBEDDED(t_stream_small_pool_bpf);
URINGC_EMBEDDED(t_stream_idle_bpf);
URINGC_EMBEDDED(t_accept_hub_bpf);
URINGC_EMBEDDED(ex_proxy_bpf);
URINGC_EMBEDDED(t_proxy_idle_bpf);
URINGC_EMBEDDED(ex_fileserver_bpf);
URINGC_EMBEDDED(ex_hedge_bpf);
URINGC_EMBEDDED(ex_nop_chain_bpf);
URINGC_EMBEDDED(ex_retry_bpf);
URINGC_EMBEDDED(ex_tee_bpf);
URINGC_EMBEDDED(ex_nop_chain_o0_bpf);
URINGC_EMBEDDED(ex_nop_chain_any_bpf);  // --ring=any: for rings with an SQ tail too
URINGC_EMBEDDED(ex_nop_chain_o0_any_bpf);
URINGC_EMBEDDED(ex_copy_any_bpf);
URINGC_EMBEDDED(t_prep_fail_any_bpf);
URINGC_EMBEDDED(t_within_pipe_bpf);
URINGC_EMBEDDED(t_bad_fd_bpf);
URINGC_EMBEDDED(t_cancel_siblings_bpf);
URINGC_EMBEDDED(t_echo_idle_bpf);
URINGC_EMBEDDED(t_sleep_once_bpf);
URINGC_EMBEDDED(t_sleep_once_broken_bpf);
URINGC_EMBEDDED(t_openat_path_bpf);
URINGC_EMBEDDED(t_openat_one_bpf);
URINGC_EMBEDDED(t_any_error_bpf);
URINGC_EMBEDDED(t_bad_index_bpf);
URINGC_EMBEDDED(t_short_circuit_bpf);
URINGC_EMBEDDED(t_signed_small_bpf);
URINGC_EMBEDDED(t_within_call_bpf);
URINGC_EMBEDDED(t_deadline_reuse_bpf);
URINGC_EMBEDDED(t_duration_range_bpf);
URINGC_EMBEDDED(t_prep_fail_bpf);
URINGC_EMBEDDED(t_cancel_done_bpf);
URINGC_EMBEDDED(t_requests_bpf);
URINGC_EMBEDDED(t_nop_parallel_bpf);
URINGC_EMBEDDED(t_data_bpf);
URINGC_EMBEDDED(t_copy_user_bpf);
URINGC_EMBEDDED(t_address_of_bpf);
URINGC_EMBEDDED(ex_nop_chain_other_abi_bpf);  // 7.1 in the 7.2 build, 7.2 in the 7.1 build

namespace uringc_test {
namespace {

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

// ----- every object loads -----------------------------------------------------------------------

struct Named {
  const char* name;
  const Embedded* obj;
};

class AllLoad : public Compiled, public ::testing::WithParamInterface<Named> {};

TEST_P(AllLoad, PassesTheVerifier) {
  std::vector<std::unique_ptr<HostBuffer>> bufs;  // each buffers parameter, of its declared size
  Open(*GetParam().obj, GetParam().name, [&](Controller& c) {
    for (const uringc::BufferParam& b : c.buffer_params()) {
      bufs.push_back(std::make_unique<HostBuffer>(b.bytes));
      SetBuf(b.name, *bufs.back());
    }
  });
  if (!ready_ || OnHostEngine()) return;
  // docs/codegen.md's table of the verifier's work per program comes from these lines.
  auto insns = ctl_->VerifiedInsns();
  ASSERT_TRUE(insns.ok()) << insns.error().message;
  std::printf("[verified-insns] %s: %llu\n", GetParam().name,
              static_cast<unsigned long long>(*insns));
}

INSTANTIATE_TEST_SUITE_P(
    Examples, AllLoad,
    ::testing::Values(
        Named{"copy", &ex_copy_bpf_obj}, Named{"deadline", &ex_deadline_bpf_obj},
        Named{"echo", &ex_echo_bpf_obj}, Named{"echo_multishot", &ex_echo_multishot_bpf_obj},
        Named{"fileserver", &ex_fileserver_bpf_obj}, Named{"hedge", &ex_hedge_bpf_obj},
        Named{"nop_chain", &ex_nop_chain_bpf_obj}, Named{"nop_chain_O0", &ex_nop_chain_o0_bpf_obj},
        Named{"retry", &ex_retry_bpf_obj}, Named{"tee", &ex_tee_bpf_obj},
        Named{"within_pipe", &t_within_pipe_bpf_obj}, Named{"bad_fd", &t_bad_fd_bpf_obj},
        Named{"cancel_siblings", &t_cancel_siblings_bpf_obj},
        Named{"echo_idle", &t_echo_idle_bpf_obj}, Named{"sleep_once", &t_sleep_once_bpf_obj},
        Named{"openat_path", &t_openat_path_bpf_obj}, Named{"openat_one", &t_openat_one_bpf_obj},
        Named{"any_error", &t_any_error_bpf_obj}, Named{"bad_index", &t_bad_index_bpf_obj},
        Named{"signed_small", &t_signed_small_bpf_obj},
        Named{"within_call", &t_within_call_bpf_obj},
        Named{"deadline_reuse", &t_deadline_reuse_bpf_obj},
        Named{"duration_range", &t_duration_range_bpf_obj},
        Named{"prep_fail", &t_prep_fail_bpf_obj}, Named{"cancel_done", &t_cancel_done_bpf_obj},
        Named{"requests", &t_requests_bpf_obj}, Named{"nop_parallel", &t_nop_parallel_bpf_obj},
        Named{"short_circuit", &t_short_circuit_bpf_obj}, Named{"data", &t_data_bpf_obj},
        Named{"stream_small_pool", &t_stream_small_pool_bpf_obj},
        Named{"stream_idle", &t_stream_idle_bpf_obj},
        Named{"accept_hub", &t_accept_hub_bpf_obj},
        Named{"copy_user", &t_copy_user_bpf_obj}, Named{"addresses", &t_address_of_bpf_obj},
        Named{"proxy", &ex_proxy_bpf_obj}),
    [](const auto& info) { return std::string(info.param.name); });

// ----- kernel ABI ------------------------------------------------------------------------------

TEST_P(AllLoad, WasCompiledForThisBuildsKernelAbi) {
  EXPECT_EQ(uringc_test::ObjectAbi(GetParam().obj->begin, GetParam().obj->end),
            uringc_test::BuiltAbi())
      << GetParam().name << " is not built for " << URINGC_TEST_OBJECT_ABI;
}

// Neither libbpf nor the verifier compares the context struct's name (libbpf checks kfunc
// arguments by kind; the kernel types loop_step's context from its own prototype), so an object
// compiled for the other ABI runs too. If a kernel starts to refuse it, this is the test to fail.
TEST_F(Compiled, NopChainCompiledForTheOtherAbiRunsToo) {
  const auto& obj = ex_nop_chain_other_abi_bpf_obj;
  const uringc::BpfOpsAbi other = uringc_test::ObjectAbi(obj.begin, obj.end);
  ASSERT_NE(other, uringc_test::BuiltAbi());
  ASSERT_NE(other, uringc::BpfOpsAbi::kNone);
  Open(obj, "nop_chain", [&](Controller&) { SetU("n", 1000); });
  if (!ready_) return;
  RunOutcome out = Run();
  EXPECT_EQ(out.status, RunStatus::kDone);
  EXPECT_EQ(Get("done"), 1000);
  ExpectNothingLeft("nop_chain");
  auto f = uringc::DetectKernelFeatures();
  std::printf("object ABI %s on kernel %s (ABI %s): done = 1000\n",
              uringc::DescribeAbi(other).c_str(), f ? f->release.c_str() : "?",
              f ? uringc::DescribeAbi(f->abi).c_str() : "?");
}

// `uringc compile --target-kernel=auto` and `uringc run FILE.uring --target-kernel=auto` read the
// running kernel's BTF: 7.1 in the 7.1 guest, 7.2 in the 7.2 and 7.3 guests.
TEST(TargetKernelAuto, PicksTheRunningKernelsAbi) {
  if (OnHostEngine()) GTEST_SKIP() << "a kernel engine test (the running kernel's ABI)";
  auto f = uringc::DetectKernelFeatures();
  ASSERT_TRUE(f.ok()) << f.error().message;
  if (!f->has_bpf_ops) {
    if (uringc_test::FeatureRequired()) FAIL() << "kernel " << f->release << " lacks io_uring_bpf_ops";
    GTEST_SKIP() << "kernel " << f->release << " lacks io_uring_bpf_ops";
  }
  uringc::KernelAbi abi{};
  std::string error;
  ASSERT_TRUE(uringc::driver::ResolveTargetKernel("auto", abi, error)) << error;
  const bool is_7_1 = f->release.rfind("7.1.", 0) == 0;
  EXPECT_EQ(abi, is_7_1 ? uringc::KernelAbi::kLinux7_1 : uringc::KernelAbi::kLinux7_2);
  std::printf("kernel %s: --target-kernel=auto names struct %s\n", f->release.c_str(),
              std::string(uringc::ContextStructName(abi)).c_str());
}

// ----- behaviour --------------------------------------------------------------------------------

// examples/nop_chain.uring compiled at -O2 and -O0, run for n NOPs, on an SQ_REWIND ring, and
// compiled with --ring=any (one object for both kinds of ring) on either.
struct ChainRun {
  const char* opt;
  const Embedded* obj;
  uint64_t n;
  RingMode ring = RingMode::kRewind;
};

void PrintTo(const ChainRun& c, std::ostream* os) {
  *os << "-" << c.opt << " n=" << c.n << " " << uringc::RingModeName(c.ring);
}

class NopChain : public Compiled, public ::testing::WithParamInterface<ChainRun> {};

TEST_P(NopChain, CompletesExactlyN) {
  const ChainRun c = GetParam();
  ring_mode_ = c.ring;
  Open(*c.obj, "nop_chain", [&](Controller&) { SetU("n", c.n); });
  if (!ready_) return;
  RunOutcome out = Run();
  EXPECT_EQ(out.status, RunStatus::kDone);
  EXPECT_EQ(Get("done"), static_cast<int64_t>(c.n));
  ExpectNothingLeft("nop_chain");
}

INSTANTIATE_TEST_SUITE_P(
    Counts, NopChain,
    ::testing::Values(
        ChainRun{"O2", &ex_nop_chain_bpf_obj, 0}, ChainRun{"O2", &ex_nop_chain_bpf_obj, 1},
        ChainRun{"O2", &ex_nop_chain_bpf_obj, 1000}, ChainRun{"O2", &ex_nop_chain_bpf_obj, 100000},
        ChainRun{"O2_any", &ex_nop_chain_any_bpf_obj, 1000, RingMode::kTail},
        ChainRun{"O2_any", &ex_nop_chain_any_bpf_obj, 100000, RingMode::kTail},
        ChainRun{"O2_any", &ex_nop_chain_any_bpf_obj, 1000, RingMode::kRewind},
        ChainRun{"O0", &ex_nop_chain_o0_bpf_obj, 0}, ChainRun{"O0", &ex_nop_chain_o0_bpf_obj, 1},
        ChainRun{"O0", &ex_nop_chain_o0_bpf_obj, 1000},
        ChainRun{"O0_any", &ex_nop_chain_o0_any_bpf_obj, 1000, RingMode::kTail}),
    [](const auto& info) {
      return std::string(info.param.opt) + "_N" + std::to_string(info.param.n) + "_" +
             uringc::RingModeName(info.param.ring);
    });

class Copy : public Compiled, public ::testing::WithParamInterface<std::tuple<size_t, RingMode>> {};

TEST_P(Copy, CopiesRealFilesByteExact) {
  const size_t size = std::get<0>(GetParam());
  ring_mode_ = std::get<1>(GetParam());
  const std::string src = TempPath("src"), dst = TempPath("dst");
  const std::string data = RandomBytes(size, static_cast<uint32_t>(size));
  WriteAll(src, data);
  unlink(dst.c_str());
  const int in = open(src.c_str(), O_RDONLY | O_CLOEXEC);
  const int out = open(dst.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(in, 0);
  ASSERT_GE(out, 0);
  HostBuffer buf(4 * 64 * 1024);
  // The default object is for SQ_REWIND rings only; a tail ring needs the --ring=any one.
  Open(ring_mode_ == RingMode::kTail ? ex_copy_any_bpf_obj : ex_copy_bpf_obj, "copy",
       [&](Controller&) {
    Set("src", in);
    Set("dst", out);
    SetU("size", size);
    SetBuf("buf", buf);
  });
  if (ready_) {
    const auto t0 = Clock::now();
    RunOutcome res = Run();
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    EXPECT_EQ(res.status, RunStatus::kDone) << res.controller_error;
    EXPECT_EQ(Get("copied"), static_cast<int64_t>(size));
    ExpectNothingLeft("copy");
    std::printf("copy of %zu bytes: %.3f s\n", size, s);
  }
  close(in);
  close(out);
  if (ready_) {
    EXPECT_TRUE(ReadAll(dst) == data) << "the copy differs from the source";
  }
  unlink(src.c_str());
  unlink(dst.c_str());
}

// Empty, one byte, not a multiple of the 64 KiB chunk, and 64 MiB on SQ_REWIND rings; a tail
// ring copies the odd size (several full SQs, a short last read; 64 MiB would add 6 s a kernel).
INSTANTIATE_TEST_SUITE_P(Sizes, Copy,
                         ::testing::Values(std::make_tuple(size_t{0}, RingMode::kRewind),
                                           std::make_tuple(size_t{1}, RingMode::kRewind),
                                           std::make_tuple(size_t{3 * 65536 + 12345},
                                                           RingMode::kRewind),
                                           std::make_tuple(size_t{64} << 20, RingMode::kRewind),
                                           std::make_tuple(size_t{3 * 65536 + 12345},
                                                           RingMode::kTail)),
                         [](const auto& info) {
                           return std::to_string(std::get<0>(info.param)) + "_" +
                                  uringc::RingModeName(std::get<1>(info.param));
                         });

volatile sig_atomic_t interrupted = 0;
void OnUsr1(int) { interrupted = 1; }

// The guest's minimal init leaves the loopback interface down; bring it up (needs root).
void LoopbackUp() {
  const int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0 && !(ifr.ifr_flags & IFF_UP)) {
    ifr.ifr_flags |= IFF_UP;
    ioctl(s, SIOCSIFFLAGS, &ifr);
  }
  close(s);
}

// A listening TCP socket on 127.0.0.1; returns the fd, the port in *port.
int Listener(uint16_t* port) {
  LoopbackUp();
  const int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(s, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 || listen(s, 64) != 0) return -1;
  socklen_t len = sizeof(a);
  getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  *port = ntohs(a.sin_port);
  return s;
}

int Connect(uint16_t port) {
  const int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  if (connect(s, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    close(s);
    return -1;
  }
  timeval tv{5, 0};  // a broken server fails the test instead of hanging it
  setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return s;
}

// One client: `rounds` messages, each echoed back in full. Returns bytes echoed, -1 on error.
int64_t EchoClient(uint16_t port, int id, int rounds) {
  const int s = Connect(port);
  if (s < 0) return -1;
  int64_t total = 0;
  for (int r = 0; r < rounds; ++r) {
    const std::string msg = "client " + std::to_string(id) + " round " + std::to_string(r) + " " +
                            std::string(static_cast<size_t>(100 * (id + 1)), 'x');
    if (send(s, msg.data(), msg.size(), 0) != static_cast<ssize_t>(msg.size())) return -1;
    std::string got;
    while (got.size() < msg.size()) {
      char b[4096];
      const ssize_t n = recv(s, b, sizeof(b), 0);
      if (n <= 0) return -1;
      got.append(b, static_cast<size_t>(n));
    }
    if (got != msg) return -1;
    total += static_cast<int64_t>(msg.size());
  }
  close(s);
  return total;
}

// One client that streams `bytes` through the echo server from a writer thread while it reads
// the echo back: far more than the pool holds, so every buffer is given back and used again
// many times. Returns the bytes that came back equal to those sent, -1 on a mismatch or error.
int64_t StreamingClient(uint16_t port, size_t bytes) {
  const int s = Connect(port);
  if (s < 0) return -1;
  std::string data(bytes, '\0');
  for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<char>('a' + (i * 7 + i / 4096) % 26);
  std::thread writer([&] {
    size_t off = 0;
    while (off < data.size()) {
      const ssize_t n = send(s, data.data() + off, std::min<size_t>(data.size() - off, 65536),
                             MSG_NOSIGNAL);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
  });
  size_t got = 0;
  bool same = true;
  char b[65536];
  while (got < bytes) {
    const ssize_t n = recv(s, b, sizeof(b), 0);
    if (n <= 0) break;
    same = same && std::memcmp(b, data.data() + got, static_cast<size_t>(n)) == 0;
    got += static_cast<size_t>(n);
  }
  writer.join();
  close(s);
  return same && got == bytes ? static_cast<int64_t>(got) : -1;
}

class Echo : public Compiled {
 protected:
  ~Echo() override {
    if (listener_ >= 0) close(listener_);
  }

  // Opens `obj` with a new listener as `listener` and `buf` (if any) as `buf`; `set` adds
  // parameters.
  void OpenServer(const Embedded& obj, const char* name, const HostBuffer* buf,
                  const std::function<void()>& set = {}) {
    listener_ = Listener(&port_);
    ASSERT_GE(listener_, 0);
    Open(obj, name, [&](Controller&) {
      Set("listener", listener_);
      if (buf) SetBuf("buf", *buf);
      if (set) set();
    });
  }

  // `count` echo clients with ids 0.., `rounds` messages each, on their own threads.
  void StartClients(std::vector<std::thread>& cs, int count, int rounds) {
    for (int i = 0; i < count; ++i) {
      cs.emplace_back([this, i, rounds] {
        const int64_t n = EchoClient(port_, i, rounds);
        if (n < 0) bad_++;
        else sent_ += n;
      });
    }
  }

  // `count` clients streaming `bytes` each (StreamingClient), on their own threads.
  void StartStreamingClients(std::vector<std::thread>& cs, int count, size_t bytes) {
    for (int i = 0; i < count; ++i) {
      cs.emplace_back([this, bytes] {
        const int64_t n = StreamingClient(port_, bytes);
        if (n < 0) bad_++;
        else sent_ += n;
      });
    }
  }

  int listener_ = -1;
  uint16_t port_ = 0;
  std::atomic<int64_t> sent_{0};  // bytes echoed back to the clients
  std::atomic<int> bad_{0};       // clients that failed

  // Clients run while this thread runs the controller; then SIGUSR1 ends the run.
  RunOutcome Serve(const std::function<void()>& clients) {
    struct sigaction sa {};
    sa.sa_handler = OnUsr1;
    sigaction(SIGUSR1, &sa, nullptr);
    interrupted = 0;
    const pthread_t self = pthread_self();
    std::thread th([&] {
      clients();
      while (!interrupted) {
        pthread_kill(self, SIGUSR1);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    });
    RunOutcome out = Run(/*return_on_interrupt=*/true);
    interrupted = 1;
    th.join();
    return out;
  }
};

TEST_F(Echo, ExampleAnswersConcurrentClients) {
  HostBuffer buf(64 * 4096);
  OpenServer(ex_echo_bpf_obj, "echo", &buf);
  if (!ready_) return;
  RunOutcome out = Serve([&] {
    std::vector<std::thread> cs;
    StartClients(cs, 8, 20);
    for (auto& c : cs) c.join();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // let the server see the EOFs
  });
  EXPECT_EQ(out.status, RunStatus::kInterrupted);
  EXPECT_EQ(bad_.load(), 0);
  EXPECT_EQ(Get("echoed"), sent_.load());
  EXPECT_EQ(Get("served"), 8);
}

// examples/echo_multishot.uring: one multishot recv per connection, chunks in a pool of 256
// buffers of 4 KiB that the controller refills. 64 clients with messages of up to 6.4 KB (two
// chunks) and two clients streaming 4 MiB each (four times the pool) at the same time: every
// byte comes back in order, and no buffer is lost (a lost buffer starves the pool and stalls
// the streams).
TEST_F(Echo, MultishotExampleServesManyClientsFromAProvidedPool) {
  OpenServer(ex_echo_multishot_bpf_obj, "echo_multishot", nullptr);
  if (!ready_) return;
  RunOutcome out = Serve([&] {
    std::vector<std::thread> cs;
    StartClients(cs, 64, 30);
    StartStreamingClients(cs, 2, 4 << 20);
    for (auto& c : cs) c.join();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // let the server see the EOFs
  });
  EXPECT_EQ(out.status, RunStatus::kInterrupted) << out.controller_error;
  EXPECT_EQ(bad_.load(), 0);
  EXPECT_EQ(Get("echoed"), sent_.load());
  EXPECT_EQ(Get("served"), 66);
  std::printf("echo_multishot: %lld bytes echoed to 66 clients\n",
              static_cast<long long>(sent_.load()));
}

TEST_F(Echo, DropsAnIdleClientWhenItsTimeoutFires) {
  HostBuffer buf(4 * 4096);
  OpenServer(t_echo_idle_bpf_obj, "echo_idle", &buf, [&] { SetU("idle", 300'000'000); });  // 300 ms
  if (!ready_) return;
  double idle_closed_after = -1;
  RunOutcome out = Serve([&] {
    // The idle client connects first and sends nothing; three busy ones talk meanwhile.
    const int idle = Connect(port_);
    const auto t0 = Clock::now();
    std::vector<std::thread> cs;
    StartClients(cs, 3, 10);
    char b[16];
    const ssize_t n = recv(idle, b, sizeof(b), 0);  // 0: the server closed it
    if (n == 0) idle_closed_after = std::chrono::duration<double>(Clock::now() - t0).count();
    close(idle);
    for (auto& c : cs) c.join();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  });
  EXPECT_EQ(out.status, RunStatus::kInterrupted);
  EXPECT_EQ(bad_.load(), 0);
  EXPECT_EQ(Get("echoed"), sent_.load());
  EXPECT_EQ(Get("dropped"), 1);
  EXPECT_EQ(Get("served"), 4);
  EXPECT_GE(idle_closed_after, 0.25) << "the idle client was not closed by the server";
  EXPECT_LE(idle_closed_after, 2.0);
  std::printf("idle client closed after %.3f s (timeout 0.300 s)\n", idle_closed_after);
}

// tests/compiled/stream_small_pool.uring: 256 KiB through a pool of two 64-byte buffers. The
// client sends it all at once, so the kernel runs out of buffers over and over (the multishot
// recv ends with ENOBUFS and the loop arms it again): every byte still comes back, in order, in
// chunks of at most 64 bytes, and the graph ends when the client shuts down its side.
TEST_F(Compiled, StreamSmallPoolRearmsUntilEveryByteCameBack) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  Open(t_stream_small_pool_bpf_obj, "stream_small_pool", [&](Controller&) { Set("s", sv[1]); });
  if (!ready_) {
    close(sv[0]);
    close(sv[1]);
    return;
  }
  const size_t total = 256 << 10;
  std::string data(total, '\0');
  for (size_t i = 0; i < total; ++i) data[i] = static_cast<char>(i * 31 + i / 64);
  std::string back;
  std::thread client([&] {
    timeval tv{10, 0};
    setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    std::thread writer([&] {
      size_t off = 0;
      while (off < total) {
        const ssize_t n = send(sv[0], data.data() + off, total - off, MSG_NOSIGNAL);
        if (n <= 0) break;
        off += static_cast<size_t>(n);
      }
    });
    char b[8192];
    while (back.size() < total) {
      const ssize_t n = recv(sv[0], b, sizeof(b), 0);
      if (n <= 0) break;
      back.append(b, static_cast<size_t>(n));
    }
    writer.join();
    shutdown(sv[0], SHUT_WR);
  });
  RunOutcome out = Run();
  client.join();
  close(sv[0]);
  close(sv[1]);
  EXPECT_EQ(out.status, RunStatus::kDone) << out.controller_error;
  EXPECT_EQ(Get("echoed"), static_cast<int64_t>(total));
  EXPECT_TRUE(back == data) << "the echo differs from what was sent (" << back.size() << " of "
                            << total << " bytes came back)";
  EXPECT_LE(Get("largest"), 64);
  EXPECT_GE(Get("chunks"), static_cast<int64_t>(total / 64));
  ExpectNothingLeft("stream_small_pool");
  std::printf("stream_small_pool: %lld bytes in %lld chunks\n",
              static_cast<long long>(Get("echoed")), static_cast<long long>(Get("chunks")));
}

// tests/compiled/stream_idle.uring: chunks 100 ms apart are echoed (each wait is shorter than
// the 300 ms allowed), then nothing comes: 300 ms later the loop ends through its `else`, and
// the graph sends "bye" and ends, with the socket still open.
TEST_F(Compiled, StreamIdleEndsTheLoopWhenNoChunkComesInTime) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  Open(t_stream_idle_bpf_obj, "stream_idle", [&](Controller&) {
    Set("s", sv[1]);
    SetU("idle", 300'000'000);
  });
  if (!ready_) {
    close(sv[0]);
    close(sv[1]);
    return;
  }
  std::string back;
  double ended_after = -1;
  std::thread client([&] {
    timeval tv{5, 0};
    setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    for (int i = 0; i < 5; ++i) {
      send(sv[0], "tick", 4, MSG_NOSIGNAL);
      char b[4];
      if (recv(sv[0], b, 4, MSG_WAITALL) == 4) back.append(b, 4);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    const auto t0 = Clock::now();
    char b[3];
    if (recv(sv[0], b, 3, MSG_WAITALL) == 3 && std::string(b, 3) == "bye") {
      ended_after = std::chrono::duration<double>(Clock::now() - t0).count();
    }
  });
  RunOutcome out = Run();
  client.join();
  close(sv[0]);
  close(sv[1]);
  EXPECT_EQ(out.status, RunStatus::kDone) << out.controller_error;
  EXPECT_EQ(back, "ticktickticktick" "tick");
  EXPECT_EQ(Get("echoed"), 20);
  EXPECT_EQ(Get("quiet"), 1);
  // The last wait began when the fifth tick was echoed, 100 ms before the client started timing.
  EXPECT_GE(ended_after, 0.15);
  EXPECT_LE(ended_after, 1.5);
  ExpectNothingLeft("stream_idle");
  std::printf("stream_idle: quiet loop ended %.3f s after the client's last wait began\n",
              ended_after);
}

// ----- examples/proxy.uring between real clients and a real upstream ----------------------------

// An upstream echo server on its own threads: each connection gets back what it sends, and
// once it closes its side, the server closes its own (half-close passed on both ways).
class Upstream {
 public:
  Upstream() {
    listener_ = Listener(&port_);
    thread_ = std::thread([this] {
      while (true) {
        const int c = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0) break;
        accepted_++;
        conns_.emplace_back([c] {
          char b[65536];
          while (true) {
            const ssize_t n = recv(c, b, sizeof(b), 0);
            if (n <= 0) break;
            if (send(c, b, static_cast<size_t>(n), MSG_NOSIGNAL) != n) break;
          }
          shutdown(c, SHUT_WR);
          close(c);
        });
      }
    });
  }
  ~Upstream() {
    shutdown(listener_, SHUT_RDWR);
    close(listener_);
    thread_.join();
    for (auto& t : conns_) t.join();
  }
  uint16_t port() const { return port_; }
  int accepted() const { return accepted_.load(); }

 private:
  int listener_ = -1;
  uint16_t port_ = 0;
  std::atomic<int> accepted_{0};
  std::thread thread_;
  std::vector<std::thread> conns_;
};

class Proxy : public Echo {
 protected:
  // Opens `obj` with a new listener, and the upstream at 127.0.0.1:`upstream_port`.
  void OpenProxy(const Embedded& obj, const char* name, uint16_t upstream_port) {
    OpenServer(obj, name, nullptr);
    if (!ready_) return;
    auto up = ctl_->SharedBuffer("upstream");
    ASSERT_TRUE(up.ok()) << up.error().message;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(upstream_port);
    std::memcpy(up->data(), &a, sizeof(a));
  }
};

// 16 clients, each streaming 256 KiB and closing its side, through the proxy to the upstream
// echo: each gets every byte back in order and then EOF (the client's FIN reached the upstream
// as a shutdown, the upstream's came back the same way); every pair was served, nothing
// dropped or refused, and all descriptors are closed once the clients are gone.
TEST_F(Proxy, CopiesBothWaysAndPassesHalfClosesOn) {
  Upstream upstream;
  OpenProxy(ex_proxy_bpf_obj, "proxy", upstream.port());
  if (!ready_) return;
  const size_t fds_before = OpenFds();
  size_t fds_after = 0;
  RunOutcome out = Serve([&] {
    std::vector<std::thread> cs;
    StartStreamingClients(cs, 16, 256 << 10);
    for (auto& c : cs) c.join();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    fds_after = OpenFds();
  });
  EXPECT_EQ(out.status, RunStatus::kInterrupted) << out.controller_error;
  EXPECT_EQ(bad_.load(), 0);
  EXPECT_EQ(Get("served"), 16);
  EXPECT_EQ(Get("moved"), 2 * sent_.load());
  EXPECT_EQ(Get("dropped"), 0);
  EXPECT_EQ(Get("refused"), 0);
  EXPECT_EQ(upstream.accepted(), 16);
  EXPECT_EQ(fds_after, fds_before) << "the proxy left descriptors open";
}

// ----- one multishot accept for every lane (tests/compiled/accept_hub.uring) --------------------

class AcceptHub : public Echo {
 protected:
  // `count` clients connect (all before the controller runs when `first`); each then reads what
  // it is sent until EOF or an error (10 s at most). Returns how many read exactly "hi";
  // `other` counts those that read something else.
  int Clients(int count, std::atomic<int>& other, const std::function<void()>& first = {}) {
    std::vector<int> socks;
    for (int i = 0; i < count; ++i) {
      const int c = Connect(port_);
      EXPECT_GE(c, 0) << "client " << i << " could not connect";
      if (c >= 0) socks.push_back(c);
    }
    std::atomic<int> greeted{0};
    std::vector<std::thread> cs;
    for (int c : socks) {
      cs.emplace_back([&, c] {
        timeval tv{10, 0};
        setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        std::string got;
        char b[16];
        ssize_t n;
        while ((n = recv(c, b, sizeof(b), 0)) > 0) got.append(b, static_cast<size_t>(n));
        if (got == "hi") {
          greeted++;
        } else if (!got.empty()) {
          other++;
        }
        close(c);
      });
    }
    if (first) first();
    for (auto& c : cs) c.join();
    return greeted.load();
  }
};

// 24 clients for 4 lanes x (1 + 3) accepts: exactly 16 are greeted, one each, and the graph
// ends; the sockets the hub had accepted beyond those are closed (their clients read EOF), so
// no descriptor is left in the process.
TEST_F(AcceptHub, EveryAcceptGetsOneSocketAndWhatTheHubHeldIsClosedAtTheEnd) {
  OpenServer(t_accept_hub_bpf_obj, "accept_hub", nullptr, [&] {
    SetU("each", 3);
    SetU("patience", 5'000'000'000);
  });
  if (!ready_) return;
  const size_t fds_before = OpenFds();
  std::atomic<int> other{0};
  RunOutcome out;
  // All 24 are in the listener's backlog when the graph starts: the hub accepts them at once
  // and holds 8 when the last lane is done.
  const int greeted = Clients(24, other, [&] { out = Run(); });
  EXPECT_EQ(out.status, RunStatus::kDone) << out.controller_error;
  EXPECT_EQ(Get("served"), 16);
  EXPECT_EQ(Get("gave_up"), 0);
  EXPECT_EQ(greeted, 16);
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(OpenFds(), fds_before) << "descriptors left open";
}

// Every lane first gives up waiting (its deadline cancels the wait on the hub); the hub keeps
// count, so that the 16 accepts after it still get their 16 sockets.
TEST_F(AcceptHub, WaitsCancelledByADeadlineLeaveTheOthersServed) {
  OpenServer(t_accept_hub_bpf_obj, "accept_hub", nullptr, [&] {
    SetU("each", 4);
    SetU("patience", 200'000'000);
  });
  if (!ready_) return;
  std::atomic<int> other{0};
  int greeted = 0;
  std::thread clients([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    greeted = Clients(16, other);
  });
  RunOutcome out = Run();
  clients.join();
  EXPECT_EQ(out.status, RunStatus::kDone) << out.controller_error;
  EXPECT_EQ(Get("gave_up"), 4);
  EXPECT_EQ(Get("served"), 16);
  EXPECT_EQ(greeted, 16);
  EXPECT_EQ(other.load(), 0);
}

// An upstream that refuses connections: the client's connection is closed at once (it reads
// EOF) and counted as refused.
TEST_F(Proxy, ClosesTheClientWhenTheUpstreamRefuses) {
  uint16_t dead_port = 0;
  const int dead = Listener(&dead_port);
  ASSERT_GE(dead, 0);
  close(dead);  // nothing listens there any more
  OpenProxy(ex_proxy_bpf_obj, "proxy", dead_port);
  if (!ready_) return;
  int eof = -1;
  RunOutcome out = Serve([&] {
    const int c = Connect(port_);
    char b[8];
    eof = c >= 0 ? static_cast<int>(recv(c, b, sizeof(b), 0)) : -2;
    if (c >= 0) close(c);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the graph's last closes
  });
  EXPECT_EQ(out.status, RunStatus::kInterrupted) << out.controller_error;
  EXPECT_EQ(eof, 0) << "the client was not closed";
  EXPECT_EQ(Get("refused"), 1);
  EXPECT_EQ(Get("served"), 0);
}

// proxy.uring with pairs dropped after 1 s of quiet: a client that sends once and then waits is
// disconnected after 1 to 3 s (the watchdog looks once a second), while a client that keeps
// talking through the same time is not.
TEST_F(Proxy, DropsAPairThatStaysQuiet) {
  Upstream upstream;
  OpenProxy(t_proxy_idle_bpf_obj, "proxy", upstream.port());
  if (!ready_) return;
  double quiet_closed_after = -1;
  bool busy_ok = false;
  RunOutcome out = Serve([&] {
    std::thread busy([&] {
      const int c = Connect(port_);
      bool ok = c >= 0;
      for (int i = 0; ok && i < 12; ++i) {  // 3 s of one message every 250 ms
        ok = send(c, "ping", 4, MSG_NOSIGNAL) == 4;
        char b[4];
        ok = ok && recv(c, b, 4, MSG_WAITALL) == 4;
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
      }
      if (c >= 0) close(c);
      busy_ok = ok;
    });
    const int q = Connect(port_);
    char b[8];
    send(q, "hi", 2, MSG_NOSIGNAL);
    recv(q, b, 2, MSG_WAITALL);
    const auto t0 = Clock::now();
    timeval tv{10, 0};
    setsockopt(q, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    if (recv(q, b, sizeof(b), 0) == 0) {
      quiet_closed_after = std::chrono::duration<double>(Clock::now() - t0).count();
    }
    close(q);
    busy.join();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  });
  EXPECT_EQ(out.status, RunStatus::kInterrupted) << out.controller_error;
  EXPECT_TRUE(busy_ok) << "the busy client was disconnected";
  EXPECT_GE(quiet_closed_after, 0.9);
  EXPECT_LE(quiet_closed_after, 3.5);
  EXPECT_EQ(Get("dropped"), 1);
  EXPECT_EQ(Get("served"), 2);
  std::printf("quiet pair dropped after %.2f s (1 s of quiet, checked once a second)\n",
              quiet_closed_after);
}

// ----- examples/fileserver.uring against real clients -----------------------------------------

// The reply to one request: status and body; status INT32_MIN when the connection ended first.
std::pair<int32_t, std::string> FileReply(int s) {
  auto take = [&](size_t n, std::string& into) {
    while (into.size() < n) {
      char b[8192];
      const ssize_t got = recv(s, b, std::min(sizeof(b), n - into.size()), 0);
      if (got <= 0) return false;
      into.append(b, static_cast<size_t>(got));
    }
    return true;
  };
  std::string hdr, body;
  if (!take(8, hdr)) return {INT32_MIN, ""};
  int32_t status;
  uint32_t n;
  std::memcpy(&status, hdr.data(), 4);
  std::memcpy(&n, hdr.data() + 4, 4);
  if (!take(n, body)) return {INT32_MIN, ""};
  return {status, body};
}

std::string FileRequest(const std::string& key) {
  const uint32_t l = static_cast<uint32_t>(key.size());
  return std::string(reinterpret_cast<const char*>(&l), 4) + key;
}

class FileServer : public Echo {
 protected:
  FileServer() {
    mkdir(dir_.c_str(), 0755);
    mkdir(root_.c_str(), 0755);
    mkdir((root_ + "/sub").c_str(), 0755);
    WriteAll(root_ + "/a.txt", "hello file");
    WriteAll(root_ + "/sub/d.txt", "deep");
    WriteAll(root_ + "/exact", RandomBytes(64 * 1024, 1));
    WriteAll(root_ + "/big", RandomBytes(64 * 1024 + 1, 2));
    WriteAll(dir_ + "/outside", "secret");
    symlink("../outside", (root_ + "/link").c_str());
  }
  ~FileServer() override {
    for (const char* f : {"/a.txt", "/sub/d.txt", "/exact", "/big", "/link"})
      unlink((root_ + f).c_str());
    rmdir((root_ + "/sub").c_str());
    rmdir(root_.c_str());
    unlink((dir_ + "/outside").c_str());
    rmdir(dir_.c_str());
    if (root_fd_ >= 0) close(root_fd_);
  }
  void OpenFileServer() {
    listener_ = Listener(&port_);
    ASSERT_GE(listener_, 0);
    root_fd_ = open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(root_fd_, 0);
    Open(ex_fileserver_bpf_obj, "fileserver", [&](Controller&) {
      Set("listener", listener_);
      Set("root", root_fd_);
    });
  }
  const std::string dir_ = TempPath("fileserver");
  const std::string root_ = dir_ + "/root";
  int root_fd_ = -1;
};

TEST_F(FileServer, AnswersKeysBeneathItsRootAndRefusesTheRest) {
  OpenFileServer();
  if (!ready_) return;
  std::vector<std::string> failures;
  double idle_closed_after = -1;
  RunOutcome out = Serve([&] {
    auto expect = [&](bool ok, const std::string& what) {
      if (!ok) failures.push_back(what);
    };
    // A client that never completes a request is closed after 10 s, while the others go on.
    const int idle = Connect(port_);
    const auto t0 = Clock::now();
    std::thread idler([&] {
      timeval tv{15, 0};
      setsockopt(idle, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
      const std::string half = FileRequest("a.txt").substr(0, 6);
      send(idle, half.data(), half.size(), 0);
      char b[8];
      if (recv(idle, b, sizeof(b), 0) == 0)
        idle_closed_after = std::chrono::duration<double>(Clock::now() - t0).count();
      close(idle);
    });
    const int s = Connect(port_);
    const std::string exact = ReadAll(root_ + "/exact");
    const std::pair<std::string, std::pair<int32_t, std::string>> cases[] = {
        {"a.txt", {0, "hello file"}},     {"sub/d.txt", {0, "deep"}},
        {"missing", {-ENOENT, ""}},       {"../outside", {-EXDEV, ""}},
        {"/etc/hostname", {-EXDEV, ""}},  {"link", {-EXDEV, ""}},
        {"sub/../../outside", {-EXDEV, ""}}, {"exact", {0, exact}},
        {"big", {-EFBIG, ""}},            {"sub", {-EISDIR, ""}},
        {std::string(255, 'k'), {-ENOENT, ""}},
    };
    for (const auto& [key, want] : cases) {
      const std::string req = FileRequest(key);
      send(s, req.data(), req.size(), 0);
      expect(FileReply(s) == want, "key " + key.substr(0, 20));
    }
    // Pipelined, and split at every byte: replies in order.
    const std::string three = FileRequest("a.txt") + FileRequest("missing") + FileRequest("sub/d.txt");
    for (char ch : three) send(s, &ch, 1, 0);
    expect(FileReply(s) == std::make_pair(0, std::string("hello file")), "pipelined 1");
    expect(FileReply(s) == std::make_pair(-ENOENT, std::string()), "pipelined 2");
    expect(FileReply(s) == std::make_pair(0, std::string("deep")), "pipelined 3");
    // A bad length: -EINVAL, then the connection closes.
    for (uint32_t bad : {0u, 256u, 0xffffffffu}) {
      const int b = Connect(port_);
      send(b, &bad, 4, 0);
      expect(FileReply(b) == std::make_pair(-EINVAL, std::string()), "bad length");
      char x;
      expect(recv(b, &x, 1, 0) == 0, "closed after a bad length");
      close(b);
    }
    close(s);
    // 64 clients at once, each asking 5 times.
    std::atomic<int> good{0};
    std::vector<std::thread> cs;
    for (int i = 0; i < 64; ++i) {
      cs.emplace_back([&] {
        const int c = Connect(port_);
        int ok = 0;
        for (int r = 0; r < 5; ++r) {
          const std::string req = FileRequest(r % 2 ? "a.txt" : "sub/d.txt");
          send(c, req.data(), req.size(), 0);
          ok += FileReply(c).first == 0;
        }
        close(c);
        if (ok == 5) good++;
      });
    }
    for (auto& c : cs) c.join();
    expect(good.load() == 64, "64 concurrent clients: " + std::to_string(good.load()) + " good");
    idler.join();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  });
  EXPECT_EQ(out.status, RunStatus::kInterrupted) << out.controller_error;
  EXPECT_TRUE(failures.empty()) << ::testing::PrintToString(failures);
  EXPECT_GE(idle_closed_after, 9.5);
  EXPECT_LE(idle_closed_after, 14.0);
  EXPECT_EQ(Get("served"), 1 + 1 + 3 + 64);
}

// Hostile clients, all at once, while a well-behaved client keeps asking: 4 KiB of garbage (its
// first four bytes a length far over 255: -EINVAL and closed), a frame cut off by the client's
// close (closed without a reply), a request sent one byte a second (answered: its 9 bytes take 8
// s, within the 10 s limit), and 2,000 connections in rounds of 100 that close at once (as many
// as the 64 lanes and the listen backlog of 64 take while two lanes are busy). The
// well-behaved client gets every answer right throughout, the server serves a new client after
// it all, and no descriptor is left behind.
TEST_F(FileServer, HostileClientsChangeNothingForTheOthers) {
  OpenFileServer();
  if (!ready_) return;
  std::vector<std::string> failures;
  std::mutex failures_mu;
  auto expect = [&](bool ok, const std::string& what) {
    if (ok) return;
    std::lock_guard<std::mutex> lock(failures_mu);
    failures.push_back(what);
  };
  const size_t fds_before = OpenFds();
  size_t fds_after = 0;
  RunOutcome out = Serve([&] {
    const auto t_start = Clock::now();
    std::atomic<bool> hostile_done{false};
    std::thread steady([&] {
      const int s = Connect(port_);
      int asked = 0;
      while (!hostile_done.load() || asked < 10) {
        const std::string req = FileRequest(asked % 2 ? "a.txt" : "sub/d.txt");
        send(s, req.data(), req.size(), MSG_NOSIGNAL);
        const auto want = asked % 2 ? std::make_pair(0, std::string("hello file"))
                                    : std::make_pair(0, std::string("deep"));
        expect(FileReply(s) == want, "steady client, request " + std::to_string(asked));
        asked++;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      close(s);
    });
    std::thread slow([&] {
      const int s = Connect(port_);
      timeval tv{15, 0};
      setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
      const std::string req = FileRequest("a.txt");
      for (size_t i = 0; i < req.size(); ++i) {
        send(s, &req[i], 1, MSG_NOSIGNAL);
        if (i + 1 < req.size()) std::this_thread::sleep_for(std::chrono::seconds(1));
      }
      expect(FileReply(s) == std::make_pair(0, std::string("hello file")),
             "the one-byte-a-second client");
      close(s);
    });
    {
      const int g = Connect(port_);
      std::string garbage = RandomBytes(4096, 7);
      const uint32_t huge = 0xdeadbeef;
      std::memcpy(garbage.data(), &huge, 4);
      send(g, garbage.data(), garbage.size(), MSG_NOSIGNAL);
      expect(FileReply(g) == std::make_pair(-EINVAL, std::string()), "garbage: -EINVAL");
      char x;
      expect(recv(g, &x, 1, 0) <= 0, "garbage: closed");
      close(g);
    }
    {
      const int t = Connect(port_);
      const std::string cut = FileRequest(std::string(100, 'k')).substr(0, 14);
      send(t, cut.data(), cut.size(), MSG_NOSIGNAL);
      close(t);
    }
    for (int round = 0; round < 20; ++round) {
      std::vector<int> burst;
      for (int i = 0; i < 100; ++i) {
        const int c = Connect(port_);
        if (c >= 0) burst.push_back(c);
      }
      expect(burst.size() == 100, "burst " + std::to_string(round) + ": " +
                                      std::to_string(burst.size()) + " of 100 connected");
      for (int c : burst) close(c);
    }
    std::printf("hostile: bursts done after %.1f s\n",
                std::chrono::duration<double>(Clock::now() - t_start).count());
    hostile_done = true;
    slow.join();
    steady.join();
    {
      const int s = Connect(port_);
      const std::string req = FileRequest("a.txt");
      send(s, req.data(), req.size(), MSG_NOSIGNAL);
      expect(FileReply(s) == std::make_pair(0, std::string("hello file")), "a client after it all");
      close(s);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    fds_after = OpenFds();
  });
  EXPECT_EQ(out.status, RunStatus::kInterrupted) << out.controller_error;
  EXPECT_TRUE(failures.empty()) << ::testing::PrintToString(failures);
  EXPECT_EQ(fds_after, fds_before) << "descriptors left open";
  EXPECT_EQ(Get("served"), 1 + 1 + 1 + 1 + 2000 + 1);
}


TEST_F(Compiled, WithinOnAPipeThatNeverGetsDataTimesOutOnTime) {
  int p[2];
  ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
  HostBuffer buf(64);
  Open(t_within_pipe_bpf_obj, "within_pipe", [&](Controller&) {
    Set("p", p[0]);
    SetU("limit", 200'000'000);  // 200 ms
    SetBuf("buf", buf);
  });
  if (ready_) {
    const auto t0 = Clock::now();
    RunOutcome out = Run();
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    EXPECT_EQ(out.status, RunStatus::kDone);
    EXPECT_EQ(Get("res"), -62);  // -ETIME
    EXPECT_GE(s, 0.19);
    EXPECT_LE(s, 0.6);
    std::printf("within 200 ms: timed out after %.3f s\n", s);
    ExpectNothingLeft("within_pipe");
  }
  close(p[0]);
  close(p[1]);
}

TEST_F(Compiled, AnyReturnsTheFirstResultAndCancelsTheRest) {
  TwoPipes p;
  ASSERT_EQ(write(p.b[1], "hello", 5), 5);
  HostBuffer buf(2 * 4096);
  OpenWithPipes(ex_hedge_bpf_obj, "hedge", p, buf);
  if (ready_) {
    RunOutcome out = Run();
    EXPECT_EQ(out.status, RunStatus::kDone) << out.controller_error;
    EXPECT_EQ(Get("winner"), 1);
    EXPECT_EQ(Get("bytes"), 5);
    ExpectNothingLeft("hedge");
    ExpectCancelledReadsLeftThePipe(p.a);  // the losing read
  }
}

TEST_F(Compiled, AnyWithNoAnswerFailsWithEtimeAtItsDeadline) {
  TwoPipes p;
  HostBuffer buf(2 * 4096);
  OpenWithPipes(ex_hedge_bpf_obj, "hedge", p, buf);
  if (ready_) {
    const auto t0 = Clock::now();
    RunOutcome out = Run();
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    EXPECT_EQ(out.status, RunStatus::kFailed);
    EXPECT_EQ(out.controller_error, -62);  // -ETIME
    EXPECT_LE(s, 0.5);
    ExpectNothingLeft("hedge");
  }
}

TEST_F(Compiled, AFailingRequestFailsTheGraphWithItsErrno) {
  HostBuffer buf(64);
  Open(t_bad_fd_bpf_obj, "bad_fd", [&](Controller&) {
    Set("f", 9999);  // not open
    SetBuf("buf", buf);
  });
  if (!ready_) return;
  RunOutcome out = Run();
  EXPECT_EQ(out.status, RunStatus::kFailed);
  EXPECT_EQ(out.controller_error, -EBADF);
  EXPECT_EQ(Get("reached"), 0);
  ExpectNothingLeft("bad_fd");
}

// i8/i16 are signed in BTF: the text a user gives `--arg` ("-1") is accepted, the controller
// computes with the sign, and the outputs read and print as negative numbers.
TEST_F(Compiled, NegativeSmallIntegersRoundTrip) {
  for (auto [a, b] : {std::pair{"-1", "-2"}, std::pair{"-128", "-32768"}, std::pair{"127", "32767"}}) {
    SCOPED_TRACE(std::string(a) + " " + b);
    Open(t_signed_small_bpf_obj, "signed_small", [&](Controller& c) {
      auto ra = c.Set("a", a);
      ASSERT_TRUE(ra.ok()) << ra.error().message;
      auto rb = c.Set("b", b);
      ASSERT_TRUE(rb.ok()) << rb.error().message;
      EXPECT_FALSE(c.Set("a", "-129").ok());
      EXPECT_FALSE(c.Set("a", "128").ok());
      EXPECT_FALSE(c.Set("b", "-32769").ok());
    });
    if (!ready_) return;
    ASSERT_EQ(Run().status, RunStatus::kDone);
    const int64_t va = std::stoll(a), vb = std::stoll(b);
    EXPECT_EQ(Get("x"), va);
    EXPECT_EQ(Get("y"), vb);
    EXPECT_EQ(Get("neg"), static_cast<int8_t>(-va));  // -(-128) wraps to -128 in i8
    EXPECT_EQ(Get("wide"), va + vb);
    EXPECT_EQ(*ctl_->Format("x"), a);
    EXPECT_EQ(*ctl_->Format("y"), b);
    ready_ = false;
    ctl_.reset();
    ring_.reset();
  }
}

TEST_F(Compiled, AFailingParallelInstanceCancelsAllTheOthers) {
  TwoPipes p;
  ASSERT_TRUE(p.ok);
  HostBuffer buf(2 * 64);
  Open(t_cancel_siblings_bpf_obj, "cancel_siblings", [&](Controller&) {
    Set("p", p.a[0]);
    SetBuf("buf", buf);
  });
  if (!ready_) return;
  RunOutcome out = Run();
  EXPECT_EQ(out.status, RunStatus::kFailed);
  EXPECT_EQ(out.controller_error, -EPERM);
  EXPECT_GE(Get("started"), 1);
  EXPECT_LE(Get("started"), 6);
  ExpectNothingLeft("cancel_siblings");
  ExpectCancelledReadsLeftThePipe(p.a);  // every instance's read
}

TEST_F(Compiled, AFailingAnyArmReachesTheCatchAndCancelsTheOtherArms) {
  TwoPipes p;
  HostBuffer buf(2 * 64);
  OpenWithPipes(t_any_error_bpf_obj, "any_error", p, buf);
  if (ready_) {
    RunOutcome out = Run();
    EXPECT_EQ(out.status, RunStatus::kDone) << out.controller_error;
    EXPECT_EQ(Get("caught"), EAGAIN);    // the arm's `within 20 ms else fail EAGAIN`
    EXPECT_EQ(Get("from_fn"), -EAGAIN);  // the same `any` inside a fn: the fn returns -errno
    EXPECT_EQ(Get("after"), 10);         // no arm block ran, nor the rest of the try body
    ExpectNothingLeft("any_error");
    ExpectCancelledReadsLeftThePipe(p.b);  // both reads of the arms that did not fail
  }
}

TEST_F(Compiled, ABadBufferIndexRaisesEfaultToTheInnermostTry) {
  const std::string path = TempPath("bad_index");
  WriteAll(path, "twelve bytes");
  const int f = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(f, 0);
  HostBuffer buf(2 * 64);
  Open(t_bad_index_bpf_obj, "bad_index", [&](Controller&) {
    Set("f", f);
    Set("k", 5);  // buf[5] and buf[6] are out of range, buf[k - 4] is buf[1]
    SetBuf("buf", buf);
  });
  if (ready_) {
    RunOutcome out = Run();
    EXPECT_EQ(out.status, RunStatus::kDone) << out.controller_error;
    EXPECT_EQ(Get("caught"), EFAULT);      // the task's own code, inside `try`
    EXPECT_EQ(Get("caught_all"), EFAULT);  // a branch of `all`, raised at the `all`
    EXPECT_EQ(Get("reads"), 1);            // neither try body went on after its bad index
    EXPECT_EQ(Get("after"), 12);           // ... and the last read read the file into buf[1]
    EXPECT_EQ(std::string(static_cast<char*>(buf.p) + 64, 12), "twelve bytes");
    ExpectNothingLeft("bad_index");
  }
  close(f);
  unlink(path.c_str());
}

// `i < 4 && len(bufs[i]) > 0` with i = 4..7: the index check on the right never runs (it used to be
// evaluated with the left side and failed the graph with EFAULT).
TEST_F(Compiled, TheRightSideOfAndOrRunsOnlyWhenTheLeftDoesNotDecide) {
  HostBuffer bufs(4 * 64);
  Open(t_short_circuit_bpf_obj, "short_circuit", [&](Controller&) { SetBuf("bufs", bufs); });
  if (!ready_) return;
  RunOutcome out = Run();
  EXPECT_EQ(out.status, RunStatus::kDone) << out.controller_error;
  EXPECT_EQ(Get("hits"), 4);    // i = 0..3
  EXPECT_EQ(Get("misses"), 8);  // i = 4..7, once per condition
}

// docs/language.md, section 6: a fired `within` gives a sleep and a fn call the value -ETIME,
// runs the `else` block if there is one, and the graph goes on (it used to yield 0 for the sleep
// and to fail the graph for the fn call).
TEST_F(Compiled, WithinOnASleepAndOnAFnCallGivesEtime) {
  int p[2];
  ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
  HostBuffer buf(64);
  Open(t_within_call_bpf_obj, "within_call", [&](Controller&) {
    Set("p", p[0]);
    SetU("long", 10'000'000'000);  // 10 s
    SetU("short", 40'000'000);     // 40 ms
    SetBuf("buf", buf);
  });
  if (ready_) {
    const auto t0 = Clock::now();
    RunOutcome out = Run();
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    EXPECT_EQ(out.status, RunStatus::kDone) << out.controller_error;
    EXPECT_EQ(Get("slept"), -ETIME);
    EXPECT_EQ(Get("slept_else"), -ETIME);
    EXPECT_EQ(Get("acted"), 1);
    EXPECT_EQ(Get("short_sleep"), 0);  // the sleep's own expiry is its success
    EXPECT_EQ(Get("called"), -ETIME);
    EXPECT_EQ(Get("called_else"), -ETIME);
    EXPECT_EQ(Get("fn_acted"), 1);
    EXPECT_EQ(Get("after"), 1);
    EXPECT_LE(s, 2.0) << "a `within` did not fire";
    ExpectNothingLeft("within_call");
  }
  close(p[0]);
  close(p[1]);
}

// docs/language.md, section 10: a block deadline's timeout outlives the block and serves its
// next run. Ten 30 ms runs under `within 100 ms` meet that timeout twice (at 100 and 200 ms) while
// a later run is going: none may expire. A 300 ms run then expires 100 ms after its own start, not
// at the older run's deadline; and a run whose limit (100 ms) is shorter than the timeout still
// armed (10 s, from the run before) expires on its own limit.
TEST_F(Compiled, ABlockDeadlineRunAgainAndAgainExpiresOnlyWhenARunOverstays) {
  Open(t_deadline_reuse_bpf_obj, "deadline_reuse", [&](Controller&) {
    SetU("step", 30'000'000);
    SetU("limit", 100'000'000);
    SetU("runs", 10);
    SetU("last", 300'000'000);
    SetU("long", 10'000'000'000);
  });
  if (ready_) {
    const auto t0 = Clock::now();
    RunOutcome out = Run();
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    EXPECT_EQ(out.status, RunStatus::kDone) << out.controller_error;
    EXPECT_EQ(Get("completed"), 10);
    EXPECT_EQ(Get("early"), 0) << "a run expired at an earlier run's deadline";
    EXPECT_EQ(Get("last_expired"), 1);
    EXPECT_EQ(Get("shortened"), 1) << "the 100 ms limit waited for the 10 s timeout";
    // 10 x 30 ms, then 100 ms, 300 ms and 100 ms: an expiry before its run's own deadline ends
    // the graph sooner.
    EXPECT_GE(s, 0.79);
    EXPECT_LE(s, 5.0);
    ExpectNothingLeft("deadline_reuse");
  }
}

// A run-time duration of 2^63 ns or more saturates (about 292 years) instead of firing at once.
TEST_F(Compiled, AHugeRunTimeDurationSaturatesInsteadOfFiringAtOnce) {
  for (uint64_t huge : {uint64_t{1} << 63, ~uint64_t{0}}) {
    int p[2];
    ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
    HostBuffer buf(64);
    Open(t_duration_range_bpf_obj, "duration_range", [&](Controller&) {
      Set("p", p[0]);
      SetU("huge", huge);
      SetU("short", 50'000'000);  // 50 ms
      SetBuf("buf", buf);
    });
    if (ready_) {
      RunOutcome out = Run();
      EXPECT_EQ(out.status, RunStatus::kDone) << out.controller_error;
      EXPECT_EQ(Get("winner"), 2) << "`within " << huge << " ns` fired before a 50 ms sleep";
      ExpectNothingLeft("duration_range");
    }
    close(p[0]);
    close(p[1]);
    ctl_.reset();
    ring_.reset();
    ready_ = false;
  }
}

// A request that fails while the kernel prepares it (an empty openat path) in a batch with
// others: its -ENOENT is its own result and the rest of the batch is submitted (the ring has
// IORING_SETUP_SUBMIT_ALL, so the kernel goes on), on both kinds of SQ.
TEST_F(Compiled, APrepFailureIsThatRequestsResultAndTheBatchGoesOn) {
  // The tail ring first: a kernel without SQ_REWIND skips the test at the rewind ring.
  for (RingMode mode : {RingMode::kTail, RingMode::kRewind}) {
    SCOPED_TRACE(uringc::RingModeName(mode));
    const int dir = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(dir, 0);
    HostBuffer buf(64);
    ring_mode_ = mode;
    Open(mode == RingMode::kTail ? t_prep_fail_any_bpf_obj : t_prep_fail_bpf_obj, "prep_fail",
         [&](Controller&) {
      Set("dir", dir);
      SetBuf("buf", buf);
    });
    if (ready_) {
      EXPECT_TRUE(ring_->params().flags & IORING_SETUP_SUBMIT_ALL);
      RunOutcome out = Run();
      EXPECT_EQ(out.status, RunStatus::kDone) << out.controller_error;
      EXPECT_EQ(Get("empty"), -ENOENT);
      EXPECT_EQ(Get("first"), 0);
      EXPECT_EQ(Get("second"), -ENOENT);
      EXPECT_EQ(Get("linked"), -ENOENT);  // a linked head's failed prep does not stop the batch
      ExpectNothingLeft("prep_fail");
    }
    close(dir);
    ctl_.reset();
    ring_.reset();
    ready_ = false;
  }
}

// After `any`, a failing `all` branch, a block deadline's ACTION, a failing `parallel` instance
// and a fn call's `within`, the cancelled reads have completed before the graph goes on:
// `cancel(a)` right after each finds nothing (0).
TEST_F(Compiled, ACancellingConstructGoesOnOnlyOnceItsCancelledRequestsCompleted) {
  int p[2];
  ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
  HostBuffer buf(64);
  Open(t_cancel_done_bpf_obj, "cancel_done", [&](Controller&) {
    Set("a", p[0]);
    SetBuf("buf", buf);
  });
  if (ready_) {
    RunOutcome out = Run();
    EXPECT_EQ(out.status, RunStatus::kDone) << out.controller_error;
    EXPECT_EQ(Get("after_any"), 0);
    EXPECT_EQ(Get("caught"), 2 * EPERM);  // the `all` branch, then the `parallel` instance
    EXPECT_EQ(Get("after_all"), 0);
    EXPECT_EQ(Get("after_deadline"), 0);
    EXPECT_EQ(Get("after_parallel"), 0);
    EXPECT_EQ(Get("waited"), -ETIME);
    EXPECT_EQ(Get("after_call"), 0);
    ExpectNothingLeft("cancel_done");
    ExpectCancelledReadsLeftThePipe(p);
  }
  close(p[0]);
  close(p[1]);
}

// A directory with the files `a` ("A") and `ab` ("AB-file"), removed at the end of the test.
struct OpenatDir {
  OpenatDir() {
    mkdir(path.c_str(), 0755);
    WriteAll(path + "/a", "A");
    WriteAll(path + "/ab", "AB-file");
    fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  }
  ~OpenatDir() {
    close(fd);
    unlink((path + "/a").c_str());
    unlink((path + "/ab").c_str());
    rmdir(path.c_str());
  }
  const std::string path = TempPath("openat_dir");
  int fd = -1;
};

TEST_F(Compiled, OpenatPathsEndAtTheViewAndLongOnesFailWithEnametoolong) {
  OpenatDir dir;
  ASSERT_GE(dir.fd, 0);
  const size_t size = 8 * 1024;
  HostBuffer buf(4 * size);
  char* b = static_cast<char*>(buf.p);
  // buf[0]: the view is "a" (n_exact = 1), and the host's bytes go on with "b" and a NUL: the
  // kernel, reading to the NUL, would open "ab".
  std::memset(b, 0, size);
  std::memcpy(b, "ab", 3);
  // buf[1]: "ab", NUL, more bytes: the whole 8 KiB buffer is the view.
  std::memset(b + size, 'z', size);
  std::memcpy(b + size, "ab", 3);
  // buf[2]: "./" * 2047 + "a" is the longest path the kernel takes (4095 bytes); with "b" after
  // it the view of 4096 bytes has no NUL.
  std::string longest;
  for (int i = 0; i < 2047; ++i) longest += "./";
  longest += "ab";
  std::memcpy(b + 2 * size, longest.data(), longest.size());
  std::memset(b + 3 * size, 0, size);
  Open(t_openat_path_bpf_obj, "openat_path", [&](Controller&) {
    Set("dir", dir.fd);
    SetU("n_exact", 1);
    SetU("n_max", 4095);
    SetU("n_over", 4096);
    SetBuf("buf", buf);
  });
  if (ready_) {
    RunOutcome out = Run();
    EXPECT_EQ(out.status, RunStatus::kDone) << out.controller_error;
    EXPECT_EQ(Get("exact"), 1);
    EXPECT_EQ(std::string(b + 3 * size, 1), "A") << "opened another file than `a`";
    EXPECT_EQ(Get("nul"), 7);
    EXPECT_EQ(std::string(b + 3 * size + 16, 7), "AB-file");
    EXPECT_EQ(Get("at_max"), 1);
    EXPECT_EQ(Get("over"), -ENAMETOOLONG);
    EXPECT_EQ(Get("one"), 1);
    EXPECT_EQ(std::string(b + 3 * size + 64, 1), "A");
    EXPECT_EQ(Get("two"), 7);
    EXPECT_EQ(std::string(b + 3 * size + 80, 7), "AB-file");
    ExpectNothingLeft("openat_path");
  }
}

TEST_F(Compiled, OpenatInAOneTaskGraphCompletesALongPathWithEnametoolong) {
  OpenatDir dir;
  ASSERT_GE(dir.fd, 0);
  HostBuffer buf(8 * 1024);
  std::memset(buf.p, 'x', buf.size);  // no NUL anywhere
  static_cast<char*>(buf.p)[0] = 'a';
  Open(t_openat_one_bpf_obj, "openat_one", [&](Controller&) {
    Set("dir", dir.fd);
    SetBuf("buf", buf);
  });
  if (!ready_) return;
  RunOutcome out = Run();
  EXPECT_EQ(out.status, RunStatus::kDone) << out.controller_error;
  EXPECT_EQ(Get("long_err"), ENAMETOOLONG);
  EXPECT_EQ(Get("short_ok"), 1);
  ExpectNothingLeft("openat_one");
}

// tests/compiled/data.uring: the graph reads what the host put into a shared buffer, writes
// integers the host reads back, copies, compares, and sends and opens byte-string literals.
TEST_F(Compiled, SharedBuffersHoldDataTheGraphReadsAndWrites) {
  OpenatDir dir;
  ASSERT_GE(dir.fd, 0);
  const std::string outp = TempPath("data_out"), recp = TempPath("data_rec");
  WriteAll(recp, std::string("\x05\x00\x00\x00hello", 9));
  const int out = open(outp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int rec = open(recp.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(out, 0);
  ASSERT_GE(rec, 0);
  Open(t_data_bpf_obj, "data", [&](Controller&) {
    Set("out", out);
    Set("dir", dir.fd);
    Set("rec", rec);
    SetU("n", 4);
  });
  if (ready_) {
    auto input = ctl_->SharedBuffer("input");
    ASSERT_TRUE(input.ok()) << input.error().message;
    ASSERT_EQ(input->size(), 64u);
    const uint8_t bytes[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0xfe, 0xff};
    std::memcpy(input->data(), bytes, sizeof(bytes));
    RunOutcome o = Run();
    EXPECT_EQ(o.status, RunStatus::kDone) << o.controller_error;
    EXPECT_EQ(Get("le32"), 0x04030201);
    EXPECT_EQ(Get("be32"), 0x01020304);
    EXPECT_EQ(Get("be16"), 0x0304);
    EXPECT_EQ(Get("s16"), -2);
    EXPECT_EQ(static_cast<uint64_t>(Get("le64")), 0x0807060504030201u);
    EXPECT_EQ(static_cast<uint64_t>(Get("be64")), 0x0102030405060708u);
    EXPECT_EQ(Get("s8"), -1);
    EXPECT_EQ(Get("u8v"), 255);
    EXPECT_EQ(Get("fault_get"), EFAULT);
    EXPECT_EQ(Get("fault_put"), EFAULT);
    EXPECT_EQ(Get("same"), 1);
    EXPECT_EQ(Get("differ"), 0);
    EXPECT_EQ(Get("shorter"), 0);
    EXPECT_EQ(Get("copied"), 15);
    EXPECT_EQ(Get("moved"), 6);
    EXPECT_EQ(Get("sent"), 15);
    EXPECT_EQ(Get("opened"), 1);
    EXPECT_EQ(Get("key_len"), 5);
    EXPECT_EQ(Get("key_ok"), 1);
    EXPECT_EQ(Get("beneath_ok"), 1);
    EXPECT_EQ(Get("beneath_up"), -EXDEV);
    EXPECT_EQ(Get("beneath_abs"), -EXDEV);
    auto work = ctl_->SharedBuffer("work");
    ASSERT_TRUE(work.ok()) << work.error().message;
    const uint8_t* w = work->data();
    const uint8_t w0[] = {0xde, 0xad, 0xbe, 0xef, 0x34, 0x12, 0, 0,
                          0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x80};
    EXPECT_EQ(std::memcmp(w, w0, sizeof(w0)), 0);
    const uint8_t tail[] = {1, 2, 3, 4, 5, 6, 7, 8};
    EXPECT_EQ(std::memcmp(w + 56, tail, 8), 0);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(w + 64), 2), std::string("\x05\0", 2))
        << "work[1] holds the record read from the file";
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(w + 128), 15), "GET /index.html");
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(w + 192), 8), "ababcdef");
    ExpectNothingLeft("data");
    EXPECT_EQ(ReadAll(outp), "hello, literal\n");  // the write completed before the graph ended
  }
  close(out);
  close(rec);
  unlink(outp.c_str());
  unlink(recp.c_str());
}

// tests/compiled/copy_user.uring: copy_from_user copies the host's memory at an address into
// shared views, in words and in bytes; an unmapped address gives -EFAULT and zeroes nothing else.
TEST_F(Compiled, CopyFromUserReadsTheHostsMemoryAtAnAddress) {
  // A ublk descriptor's shape: op_flags, nr_sectors, start_sector, addr; then 8 more bytes.
  alignas(8) static uint8_t src[32];
  for (size_t i = 0; i < sizeof(src); ++i) src[i] = static_cast<uint8_t>(0x10 + i);
  const uint32_t op = 1, sectors = 8;
  const uint64_t start = 0x123456789aull;
  std::memcpy(src, &op, 4);
  std::memcpy(src + 4, &sectors, 4);
  std::memcpy(src + 8, &start, 8);
  void* hole = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(hole, MAP_FAILED);
  Open(t_copy_user_bpf_obj, "copy_user", [&](Controller&) {
    SetU("src", reinterpret_cast<uint64_t>(src));
    SetU("bad", reinterpret_cast<uint64_t>(hole));
  });
  if (ready_) {
    RunOutcome o = Run();
    EXPECT_EQ(o.status, RunStatus::kDone) << o.controller_error;
    EXPECT_EQ(Get("whole"), 0);
    EXPECT_EQ(Get("odd"), 0);
    EXPECT_EQ(Get("fault"), -EFAULT);
    EXPECT_EQ(Get("op"), 1);
    EXPECT_EQ(Get("sectors"), 8);
    EXPECT_EQ(static_cast<uint64_t>(Get("start")), start);
    auto got = ctl_->SharedBuffer("got");
    ASSERT_TRUE(got.ok()) << got.error().message;
    const uint8_t* g = got->data();
    EXPECT_EQ(std::memcmp(g, src, 24), 0);
    EXPECT_EQ(g[24], 0) << "past the view";
    EXPECT_EQ(std::memcmp(g + 32 + 3, src + 24, 5), 0);
    EXPECT_EQ(g[32 + 2], 0);
    EXPECT_EQ(g[32 + 8], 0);
    for (int i = 16; i < 32; ++i) EXPECT_EQ(g[32 + i], 0) << "the failed copy wrote byte " << i;
  }
  munmap(hole, 4096);
}

// tests/compiled/address_of.uring: address_of gives the user address of a host buffer view,
// the one the host set for the parameter plus the buffer's place and the slice's start.
TEST_F(Compiled, AddressOfIsTheHostsAddressOfABufferView) {
  HostBuffer buf(4 * 64);
  Open(t_address_of_bpf_obj, "addresses", [&](Controller&) {
    SetBuf("buf", buf);
    SetU("tag", 3);
  });
  if (ready_) {
    RunOutcome o = Run();
    EXPECT_EQ(o.status, RunStatus::kDone) << o.controller_error;
    EXPECT_EQ(static_cast<uint64_t>(Get("one")), buf.addr() + 64);
    EXPECT_EQ(static_cast<uint64_t>(Get("two_at_8")), buf.addr() + 2 * 64 + 8);
    EXPECT_EQ(static_cast<uint64_t>(Get("tag_at_16")), buf.addr() + 3 * 64 + 16);
  }
}

TEST_F(Compiled, DeadlineFallsBackWhenThePrimaryDoesNotAnswer) {
  int p[2];
  ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
  const std::string fb = TempPath("fallback"), outp = TempPath("out");
  WriteAll(fb, "fallback data");
  const int f = open(fb.c_str(), O_RDONLY | O_CLOEXEC);
  const int o = open(outp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  HostBuffer buf(16 * 1024);
  Open(ex_deadline_bpf_obj, "deadline", [&](Controller&) {
    Set("primary", p[0]);
    Set("fallback", f);
    Set("out", o);
    SetBuf("buf", buf);
  });
  if (ready_) {
    RunOutcome out = Run();
    EXPECT_EQ(out.status, RunStatus::kDone) << out.controller_error;
    EXPECT_EQ(Get("used_fallback"), 1);
    EXPECT_EQ(Get("size"), 13);
    ExpectNothingLeft("deadline");
    EXPECT_EQ(ReadAll(outp), "fallback data");
  }
  for (int fd : {p[0], p[1], f, o}) close(fd);
  unlink(fb.c_str());
  unlink(outp.c_str());
}

TEST_F(Compiled, RetryReadsAndWrites) {
  const std::string src = TempPath("rsrc"), dst = TempPath("rdst");
  WriteAll(src, "retry me");
  const int s = open(src.c_str(), O_RDONLY | O_CLOEXEC);
  const int d = open(dst.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  HostBuffer buf(4096);
  Open(ex_retry_bpf_obj, "retry", [&](Controller&) {
    Set("src", s);
    Set("dst", d);
    SetBuf("buf", buf);
  });
  if (ready_) {
    RunOutcome out = Run();
    EXPECT_EQ(out.status, RunStatus::kDone) << out.controller_error;
    EXPECT_EQ(Get("attempts"), 1);
    EXPECT_EQ(ReadAll(dst), "retry me");
    ExpectNothingLeft("retry");
  }
  close(s);
  close(d);
  unlink(src.c_str());
  unlink(dst.c_str());
}

TEST_F(Compiled, TeeWritesBothOutputs) {
  const std::string src = TempPath("tsrc"), a = TempPath("ta"), b = TempPath("tb");
  const std::string data = RandomBytes(200000, 7);
  WriteAll(src, data);
  const int s = open(src.c_str(), O_RDONLY | O_CLOEXEC);
  const int fa = open(a.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int fb = open(b.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  HostBuffer buf(64 * 1024);
  Open(ex_tee_bpf_obj, "tee", [&](Controller&) {
    Set("src", s);
    Set("a", fa);
    Set("b", fb);
    SetBuf("buf", buf);
  });
  if (ready_) {
    RunOutcome out = Run();
    EXPECT_EQ(out.status, RunStatus::kDone) << out.controller_error;
    EXPECT_EQ(Get("total"), 200000);
    ExpectNothingLeft("tee");
  }
  close(s);
  close(fa);
  close(fb);
  if (ready_) {
    EXPECT_TRUE(ReadAll(a) == data);
    EXPECT_TRUE(ReadAll(b) == data);
  }
  for (const auto& p : {src, a, b}) unlink(p.c_str());
}

TEST_F(Compiled, SleepSleeps) {
  Open(t_sleep_once_bpf_obj, "sleep_once", [&](Controller&) { SetU("d", 50'000'000); });
  if (!ready_) return;
  const auto t0 = Clock::now();
  RunOutcome out = Run();
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_EQ(out.status, RunStatus::kDone);
  EXPECT_EQ(Get("slept"), 1);
  EXPECT_GE(s, 0.045);
  ExpectNothingLeft("sleep_once");
}

// What a compiled controller declares of its ring is checked before anything reaches the kernel
// (so this runs on any host with io_uring): a parameter region smaller than uringc_mem_min, and
// more SQ entries than the controller has timespec slots (uringc_sq_max), a ring without
// SUBMIT_ALL (uringc_needs_submit_all), and a ring with an SQ tail for a program compiled for
// SQ_REWIND rings only (uringc_needs_sq_rewind), are load errors that say what to change.
TEST_F(Compiled, ARingTheControllerCannotUseIsRefusedAtLoad) {
  struct Case {
    uint32_t sq_entries;
    size_t mem_region;
    const char* says;
    bool submit_all = true;
    RingMode mode = RingMode::kAuto;
  };
  auto opened = [] {
    uringc::ControllerOptions o;
    o.object_name = "sleep_once";
    return Controller::OpenMemory(t_sleep_once_bpf_obj.begin, t_sleep_once_bpf_obj.size(), o);
  };
  auto probe = opened();
  ASSERT_TRUE(probe.ok()) << probe.error().message;
  auto mem_min = (*probe)->GetInt("uringc_mem_min");
  auto sq_max = (*probe)->GetInt("uringc_sq_max");
  ASSERT_TRUE(mem_min.ok() && sq_max.ok());
  ASSERT_GT(*mem_min, 0);
  ASSERT_EQ(*sq_max, 4096);
  EXPECT_TRUE((*probe)->NeedsRewindRing());  // compiled for SQ_REWIND rings only, the default
  for (const Case& k :
       {Case{64, 0, "needs a parameter region of at least"},
        Case{8192, static_cast<size_t>(*mem_min), "at most 4096 SQ entries"},
        Case{64, static_cast<size_t>(*mem_min), "RingOptions::submit_all", /*submit_all=*/false},
        Case{64, static_cast<size_t>(*mem_min), "compiled for SQ_REWIND rings only",
             /*submit_all=*/true, RingMode::kTail}}) {
    auto c = opened();
    ASSERT_TRUE(c.ok()) << c.error().message;
    uringc::RingOptions ro;
    ro.sq_entries = k.sq_entries;
    ro.mem_region_size = k.mem_region;
    ro.submit_all = k.submit_all;
    ro.mode = k.mode;
    auto r = Ring::Create(ro);
    ASSERT_TRUE(r.ok()) << r.error().message;
    auto loaded = (*c)->Load(**r);
    ASSERT_FALSE(loaded.ok()) << k.says;
    EXPECT_EQ(loaded.error().code, -EINVAL);
    EXPECT_NE(loaded.error().message.find(k.says), std::string::npos) << loaded.error().message;
  }
}

// `uringc compile --ring=any` makes one object for both kinds of SQ: it declares no need of an
// SQ_REWIND ring (the NopChain runs load it on both).
TEST_F(Compiled, AnAnyRingObjectNeedsNoRewindRing) {
  auto c = Controller::OpenMemory(ex_nop_chain_any_bpf_obj.begin, ex_nop_chain_any_bpf_obj.size());
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_FALSE((*c)->NeedsRewindRing());
  EXPECT_TRUE((*c)->HandlesRewindRings());
}

// The lowering compiled with --test-break-null-check leaves out the parameter region's null
// check: the verifier rejects the first access through it, which is the sleep's timespec, and
// the runtime's diagnostic names that `.uring` line.
TEST_F(Compiled, BrokenLoweringIsReportedAtTheUringLine) {
  URINGC_SKIP_ON_HOST_ENGINE();
  uringc::ControllerOptions o;
  o.object_name = "sleep_once";
  auto c = Controller::OpenMemory(t_sleep_once_broken_bpf_obj.begin,
                                  t_sleep_once_broken_bpf_obj.size(), o);
  ASSERT_TRUE(c.ok()) << c.error().message;
  uringc::RingOptions ro;
  ro.mem_region_size = 65536;
  auto r = Ring::Create(ro);
  ASSERT_TRUE(r.ok());
  auto loaded = (*c)->Load(**r);
  URINGC_SKIP_IF_NO_BPF_OPS(loaded);
  ASSERT_FALSE(loaded.ok()) << "the broken program was accepted";
  const uringc::VerifierReport* report = (*c)->verifier_report();
  ASSERT_NE(report, nullptr) << loaded.error().message;
  std::printf("%s\n", report->text.c_str());
  EXPECT_NE(report->text.find("sleep_once.uring:4:"), std::string::npos) << report->text;
  EXPECT_NE(report->text.find("sleep(d)"), std::string::npos) << report->text;
  EXPECT_NE(report->text.find("this is a bug in uringc"), std::string::npos) << report->text;
}

}  // namespace
}  // namespace uringc_test
