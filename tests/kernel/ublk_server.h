// A ublk server of one queue for the kernel tests: a device made through the runtime's control
// plane (uringc/ublk.h), a thread that owns the queue's ring (SINGLE_ISSUER: its creator submits)
// and runs a controller on it until every tag is aborted, START from the test's thread, block I/O
// through /dev/ublkbN, STOP, and DELETE once the character device is closed. Used with the
// hand-written null target (ublk_test.cpp) and with examples/ublk/null.uring
// (compiled_ublk_test.cpp), so both are held to the same checks.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "kernel_test_util.h"
#include "uringc/controller.h"
#include "uringc/ring.h"
#include "uringc/ublk.h"

namespace uringc_test {

inline bool UblkRequired() {
  const char* v = std::getenv("URINGC_REQUIRE_UBLK");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

// Skips (host) or fails (a VM that packed ublk_drv) when the driver is not there.
#define URINGC_SKIP_IF_NO_UBLK(control)                                                     \
  do {                                                                                      \
    if (!(control).ok() && (control).error().kind == uringc::DiagKind::kUblkUnavailable) {  \
      if (uringc_test::UblkRequired()) FAIL() << (control).error().message;                \
      GTEST_SKIP() << "no ublk driver: " << (control).error().message;                     \
    }                                                                                       \
    ASSERT_TRUE((control).ok()) << (control).error().message;                               \
  } while (0)

/// What a queue's controller gets: the character device, the queue, its descriptors, its tags'
/// buffers (depth * max_io_bytes).
struct UblkQueue {
  const uringc::ublk::QueueMapping& mapping;
  const uringc::ublk::DeviceInfo& device;
  void* bufs;
};

class UblkQueueServer {
 public:
  /// Opens the controller (nothing set yet).
  using OpenFn = std::function<uringc::Result<std::unique_ptr<uringc::Controller>>()>;
  /// Sets the controller's parameters for the queue; "" or why not.
  using ConfigureFn = std::function<std::string(uringc::Controller&, const UblkQueue&)>;

  /// Starts the thread and waits until its controller is attached. "" or why not (a load
  /// refused because the kernel lacks io_uring_bpf_ops starts with "ESRCH ").
  std::string Start(const UblkQueue& q, OpenFn open, ConfigureFn configure,
                    uringc::RingMode mode) {
    struct sigaction sa {};
    sa.sa_handler = [](int) {};  // no SA_RESTART: the enter returns -EINTR
    sigaction(SIGUSR1, &sa, nullptr);
    auto loaded = loaded_.get_future();
    thread_ = std::thread([this, &q, open, configure, mode] { Serve(q, open, configure, mode); });
    std::string why = loaded.get();
    if (!why.empty()) thread_.join();
    return why;
  }

  /// Waits for the run to end (STOP_DEV aborts the FETCHes); after 20 s a signal stops it and
  /// the test fails.
  void Join() {
    auto done = std::async(std::launch::async, [&] { thread_.join(); });
    if (done.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
      ADD_FAILURE() << "the controller still runs 20 s after STOP_DEV";
      pthread_kill(handle_, SIGUSR1);
      done.wait();
    }
  }

  const uringc::Result<uringc::RunOutcome>& outcome() const { return outcome_; }
  uringc::Controller& controller() { return *controller_; }
  /// Unloads and closes the ring (before DELETE).
  void Close() {
    controller_.reset();
    ring_.reset();
  }

 private:
  void Serve(const UblkQueue& q, const OpenFn& open, const ConfigureFn& configure,
             uringc::RingMode mode) {
    handle_ = pthread_self();
    auto c = open();
    if (!c.ok()) return loaded_.set_value("open: " + c.error().message);
    controller_ = std::move(*c);
    const std::string why = configure(*controller_, q);
    if (!why.empty()) return loaded_.set_value("set: " + why);
    uringc::RingOptions ro;
    ro.sq_entries = 2 * q.device.depth;
    ro.cq_entries = 4 * q.device.depth;
    ro.mode = mode;
    if (controller_->globals().Has("uringc_mem_min")) {
      ro.mem_region_size = static_cast<size_t>(*controller_->GetInt("uringc_mem_min"));
    }
    auto r = uringc::Ring::Create(ro);
    if (!r.ok()) return loaded_.set_value("ring: " + r.error().message);
    ring_ = std::move(*r);
    auto l = controller_->Load(*ring_);
    if (!l.ok()) {
      return loaded_.set_value((l.error().code == -ESRCH ? "ESRCH " : "load: ") +
                               l.error().message + "\nlibbpf: " + controller_->libbpf_messages());
    }
    auto a = controller_->Attach();
    if (!a.ok()) return loaded_.set_value("attach: " + a.error().message);
    loaded_.set_value("");
    uringc::RunOptions run;
    run.return_on_interrupt = true;  // Join's SIGUSR1 ends a run that would hang
    outcome_ = controller_->Run(run);
  }

  std::unique_ptr<uringc::Ring> ring_;
  std::unique_ptr<uringc::Controller> controller_;
  std::thread thread_;
  pthread_t handle_{};
  std::promise<std::string> loaded_;
  uringc::Result<uringc::RunOutcome> outcome_ = uringc::Error{};
};

/// 1 MiB of O_DIRECT writes at 4 KiB, 1 MiB of reads at 1 MiB, an fsync: 16 requests each way
/// with requests of at most 64 KiB.
inline void DriveBlockIo(const std::string& block_path) {
  int fd = open(block_path.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
  ASSERT_GE(fd, 0) << block_path << ": " << std::strerror(errno);
  void* data = std::aligned_alloc(4096, 1 << 20);
  std::memset(data, 0x5a, 1 << 20);
  EXPECT_EQ(pwrite(fd, data, 1 << 20, 4096), 1 << 20) << std::strerror(errno);
  EXPECT_EQ(pread(fd, data, 1 << 20, 1 << 20), 1 << 20) << std::strerror(errno);
  EXPECT_EQ(fsync(fd), 0) << std::strerror(errno);
  close(fd);
  std::free(data);
}

/// A device of 16 MiB, one queue of `depth` tags and requests of at most 64 KiB, served by the
/// controller `open` gives and `configure` sets up; `check` looks at the controller after STOP.
/// Ends with the device deleted and its block device gone.
inline void ServeBlockIo(uint16_t depth, uringc::RingMode mode, UblkQueueServer::OpenFn open,
                         UblkQueueServer::ConfigureFn configure,
                         const std::function<void(uringc::Controller&,
                                                  const uringc::RunOutcome&)>& check) {
  auto control = uringc::ublk::Control::Open();
  URINGC_SKIP_IF_NO_UBLK(control);
  uringc::ublk::Control& ctl = **control;
  uringc::ublk::DeviceOptions options;
  options.size_bytes = 16 << 20;
  options.depth = depth;
  options.max_io_bytes = 64 << 10;
  auto dev = ctl.Add(options);
  ASSERT_TRUE(dev.ok()) << dev.error().message;
  auto queue = uringc::ublk::QueueMapping::Open(*dev, 0);
  ASSERT_TRUE(queue.ok()) << queue.error().message;
  std::unique_ptr<void, decltype(&std::free)> bufs(
      std::aligned_alloc(4096, size_t{dev->depth} * dev->max_io_bytes), &std::free);
  ASSERT_NE(bufs, nullptr);
  const UblkQueue q{**queue, *dev, bufs.get()};
  UblkQueueServer server;
  const std::string why = server.Start(q, open, configure, mode);
  if (!why.empty()) {
    server.Close();
    queue->reset();  // DEL_DEV waits for the character device to be closed
    (void)ctl.Delete(dev->dev_id);
    if (why.rfind("ESRCH ", 0) == 0 && !FeatureRequired()) {
      GTEST_SKIP() << "kernel lacks io_uring_bpf_ops: " << why;
    }
    FAIL() << why;
  }
  // START_DEV returns once the controller has a FETCH pending for every tag.
  auto started = ctl.Start(dev->dev_id, getpid());
  EXPECT_TRUE(started.ok()) << started.error().message;
  if (started.ok()) DriveBlockIo(dev->block_path());
  auto stopped = ctl.Stop(dev->dev_id);
  EXPECT_TRUE(stopped.ok()) << stopped.error().message;
  server.Join();
  EXPECT_TRUE(server.outcome().ok()) << server.outcome().error().message;
  if (server.outcome().ok()) {
    EXPECT_EQ(server.outcome()->status, uringc::RunStatus::kDone)
        << "controller error " << server.outcome()->controller_error;
    check(server.controller(), *server.outcome());
  }
  server.Close();
  queue->reset();
  auto deleted = ctl.Delete(dev->dev_id);
  EXPECT_TRUE(deleted.ok()) << deleted.error().message;
  struct stat st;
  EXPECT_NE(stat(dev->block_path().c_str(), &st), 0) << dev->block_path() << " is still there";
}

}  // namespace uringc_test
