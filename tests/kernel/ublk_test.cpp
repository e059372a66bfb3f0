// ublk served from a controller: the runtime's control plane (uringc/ublk.h) creates a device,
// the hand-written null target (tests/controllers/ublk_null.bpf.c) serves its one queue from inside
// io_uring_enter, and real block I/O goes through /dev/ublkbN. The route the language lowers to
// (docs/ublk.md), checked on the real driver. Needs /dev/ublk-control: the VM loads ublk_drv from
// the kernel's modules package and sets URINGC_REQUIRE_UBLK=1, so a missing driver fails there;
// on the host these tests skip, saying why.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "kernel_test_util.h"
#include "uringc/controller.h"
#include "uringc/ring.h"
#include "uringc/ublk.h"

URINGC_EMBEDDED(ublk_null_bpf_object);

namespace {

using uringc::DiagKind;
namespace ublk = uringc::ublk;

bool UblkRequired() {
  const char* v = std::getenv("URINGC_REQUIRE_UBLK");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

// Skips (host) or fails (a VM that packed ublk_drv) when the driver is not there.
#define URINGC_SKIP_IF_NO_UBLK(control)                                                   \
  do {                                                                                    \
    if (!(control).ok() && (control).error().kind == DiagKind::kUblkUnavailable) {        \
      if (UblkRequired()) FAIL() << (control).error().message;                           \
      GTEST_SKIP() << "no ublk driver: " << (control).error().message;                   \
    }                                                                                     \
    ASSERT_TRUE((control).ok()) << (control).error().message;                             \
  } while (0)

void OnSignal(int) {}

// The server of one queue: a thread that owns the ring (SINGLE_ISSUER: its creator submits) and
// runs the null controller until every tag is aborted.
struct NullServer {
  std::unique_ptr<uringc::Ring> ring;
  std::unique_ptr<uringc::Controller> controller;
  std::thread thread;
  std::promise<std::string> loaded;  // "" once attached, else why not
  uringc::Result<uringc::RunOutcome> outcome = uringc::Error{};
  pthread_t handle{};

  void Serve(const ublk::QueueMapping& queue, const ublk::DeviceInfo& dev, void* bufs) {
    handle = pthread_self();
    uringc::RingOptions ro;
    ro.sq_entries = 2 * dev.depth;
    ro.cq_entries = 4 * dev.depth;
    ro.mode = uringc::RingMode::kTail;
    auto r = uringc::Ring::Create(ro);
    if (!r.ok()) return loaded.set_value("ring: " + r.error().message);
    ring = std::move(*r);
    auto c = uringc::Controller::OpenMemory(ublk_null_bpf_object_obj.begin,
                                            ublk_null_bpf_object_obj.size());
    if (!c.ok()) return loaded.set_value("open: " + c.error().message);
    controller = std::move(*c);
    for (auto set : {controller->SetInt("ublkc", queue.char_fd()),
                     controller->SetUint("queue", queue.queue()),
                     controller->SetUint("depth", dev.depth),
                     controller->SetUint("descs", queue.descs_address()),
                     controller->SetUint("bufs", reinterpret_cast<uint64_t>(bufs)),
                     controller->SetUint("buf_bytes", dev.max_io_bytes)}) {
      if (!set.ok()) return loaded.set_value("set: " + set.error().message);
    }
    auto l = controller->Load(*ring);
    if (!l.ok()) {
      return loaded.set_value((l.error().code == -ESRCH ? "ESRCH " : "load: ") +
                              l.error().message + "\nlibbpf: " + controller->libbpf_messages());
    }
    auto a = controller->Attach();
    if (!a.ok()) return loaded.set_value("attach: " + a.error().message);
    loaded.set_value("");
    uringc::RunOptions run;
    run.return_on_interrupt = true;  // the watchdog's SIGUSR1 ends a run that would hang
    outcome = controller->Run(run);
  }
};

int64_t Counter(uringc::Controller& c, const char* name) {
  auto v = c.GetInt(name);
  EXPECT_TRUE(v.ok()) << name << ": " << v.error().message;
  return v.ok() ? *v : -1;
}

TEST(Ublk, MissingControlDeviceSaysToLoadTheDriver) {
  auto control = ublk::Control::Open("/nonexistent/ublk-control");
  ASSERT_FALSE(control.ok());
  EXPECT_EQ(control.error().kind, DiagKind::kUblkUnavailable);
  EXPECT_EQ(control.error().code, -ENOENT);
  EXPECT_NE(control.error().message.find("modprobe ublk_drv"), std::string::npos)
      << control.error().message;
}

TEST(Ublk, CommandOnAMissingDeviceIsRefusedByName) {
  auto control = ublk::Control::Open();
  URINGC_SKIP_IF_NO_UBLK(control);
  auto features = (*control)->Features();
  ASSERT_TRUE(features.ok()) << features.error().message;
  std::printf("ublk features: 0x%llx\n", static_cast<unsigned long long>(*features));
  auto start = (*control)->Start(4000, getpid());
  ASSERT_FALSE(start.ok());
  EXPECT_EQ(start.error().kind, DiagKind::kUblkCommandFailed);
  EXPECT_NE(start.error().message.find("START_DEV of device 4000"), std::string::npos)
      << start.error().message;
  auto bad = (*control)->Add(ublk::DeviceOptions{.size_bytes = 1000});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, DiagKind::kBadParameter);
}

TEST(Ublk, NullTargetServesBlockIoFromTheController) {
  auto control = ublk::Control::Open();
  URINGC_SKIP_IF_NO_UBLK(control);
  ublk::Control& ctl = **control;
  ublk::DeviceOptions options;
  options.size_bytes = 16 << 20;
  options.depth = 8;
  options.max_io_bytes = 64 << 10;
  auto dev = ctl.Add(options);
  ASSERT_TRUE(dev.ok()) << dev.error().message;
  const int id = dev->dev_id;
  auto queue = ublk::QueueMapping::Open(*dev, 0);
  ASSERT_TRUE(queue.ok()) << queue.error().message;
  void* bufs = std::aligned_alloc(4096, size_t{dev->depth} * dev->max_io_bytes);
  ASSERT_NE(bufs, nullptr);

  struct sigaction sa {};
  sa.sa_handler = OnSignal;  // no SA_RESTART: the enter returns -EINTR
  sigaction(SIGUSR1, &sa, nullptr);
  NullServer server;
  auto loaded = server.loaded.get_future();
  server.thread = std::thread([&] { server.Serve(**queue, *dev, bufs); });
  const std::string why = loaded.get();
  if (!why.empty()) {
    server.thread.join();
    server.controller.reset();
    server.ring.reset();
    queue->reset();  // DEL_DEV waits for the character device to be closed
    (void)ctl.Delete(id);
    if (why.rfind("ESRCH ", 0) == 0 && !uringc_test::FeatureRequired()) {
      GTEST_SKIP() << "kernel lacks io_uring_bpf_ops: " << why;
    }
    FAIL() << why;
  }

  // START_DEV returns once the controller has a FETCH pending for every tag.
  auto started = ctl.Start(id, getpid());
  ASSERT_TRUE(started.ok()) << started.error().message;
  {
    int fd = open(dev->block_path().c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
    ASSERT_GE(fd, 0) << dev->block_path() << ": " << std::strerror(errno);
    void* data = std::aligned_alloc(4096, 1 << 20);
    std::memset(data, 0x5a, 1 << 20);
    EXPECT_EQ(pwrite(fd, data, 1 << 20, 4096), 1 << 20) << std::strerror(errno);
    EXPECT_EQ(pread(fd, data, 1 << 20, 1 << 20), 1 << 20) << std::strerror(errno);
    EXPECT_EQ(fsync(fd), 0) << std::strerror(errno);
    close(fd);
    std::free(data);
  }
  auto stopped = ctl.Stop(id);
  EXPECT_TRUE(stopped.ok()) << stopped.error().message;

  // STOP_DEV aborts the pending FETCHes, which ends the controller; a run still going after
  // 20 s is stopped by a signal and reported.
  auto done = std::async(std::launch::async, [&] { server.thread.join(); });
  if (done.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
    ADD_FAILURE() << "the controller still runs 20 s after STOP_DEV";
    pthread_kill(server.handle, SIGUSR1);
    done.wait();
  }
  ASSERT_TRUE(server.outcome.ok()) << server.outcome.error().message;
  EXPECT_EQ(server.outcome->status, uringc::RunStatus::kDone)
      << "controller error " << server.outcome->controller_error;
  uringc::Controller& c = *server.controller;
  EXPECT_EQ(Counter(c, "aborted"), dev->depth);
  EXPECT_EQ(Counter(c, "copy_error"), 0);
  EXPECT_GE(Counter(c, "writes"), 16);  // 1 MiB in requests of at most 64 KiB
  EXPECT_GE(Counter(c, "reads"), 16);
  EXPECT_GE(Counter(c, "bytes"), 2 << 20);
  std::printf("ublk null: %lld reads, %lld writes, %lld others, %lld bytes, %llu steps\n",
              static_cast<long long>(Counter(c, "reads")),
              static_cast<long long>(Counter(c, "writes")),
              static_cast<long long>(Counter(c, "others")),
              static_cast<long long>(Counter(c, "bytes")),
              static_cast<unsigned long long>(server.outcome->stats.steps));

  server.controller.reset();
  server.ring.reset();
  queue->reset();
  auto deleted = ctl.Delete(id);
  EXPECT_TRUE(deleted.ok()) << deleted.error().message;
  struct stat st;
  EXPECT_NE(stat(dev->block_path().c_str(), &st), 0) << dev->block_path() << " is still there";
  std::free(bufs);
}

}  // namespace
