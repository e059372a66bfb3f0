// A ublk device of one queue for the kernel tests, served by the runtime's ublk::Server
// (uringc/ublk_server.h: a thread, a ring and a controller per queue), block I/O through
// /dev/ublkbN, then STOP and DELETE. Used with the
// hand-written null target (ublk_test.cpp) and with examples/ublk/null.uring
// (compiled_ublk_test.cpp), so both are held to the same checks.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

#include "kernel_test_util.h"
#include "uringc/controller.h"
#include "uringc/ublk.h"
#include "uringc/ublk_server.h"

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

/// Opens a queue's controller (not loaded).
using OpenTarget = std::function<uringc::Result<std::unique_ptr<uringc::Controller>>()>;
/// Sets what the target needs beyond the standard parameters (uringc/ublk_server.h).
using ConfigureTarget =
    std::function<uringc::Result<void>(uringc::Controller&, const uringc::ublk::QueueContext&)>;

/// A device of 16 MiB, one queue of `depth` tags and, unless the target's `buf` says otherwise,
/// requests of at most 64 KiB, served by the runtime's ublk::Server with the controller `open`
/// gives; `check` looks at the controller after STOP. Ends with the device deleted and its block
/// device gone.
inline void ServeBlockIo(uint16_t depth, uringc::RingMode mode, OpenTarget open,
                         ConfigureTarget configure,
                         const std::function<void(uringc::Controller&,
                                                  const uringc::RunOutcome&)>& check) {
  auto control = uringc::ublk::Control::Open();
  URINGC_SKIP_IF_NO_UBLK(control);
  uringc::ublk::ServerOptions options;
  options.device.size_bytes = 16 << 20;
  options.device.depth = depth;
  options.device.max_io_bytes = 64 << 10;
  options.open = [&open](uint16_t) { return open(); };
  options.configure = configure;
  options.ring_mode = mode;
  auto server = uringc::ublk::Server::Start(**control, options);
  if (!server.ok()) {
    if (server.error().code == -ESRCH && !FeatureRequired()) {
      GTEST_SKIP() << "kernel lacks io_uring_bpf_ops: " << server.error().message;
    }
    FAIL() << server.error().message;
  }
  const std::string block = (*server)->device().block_path();
  DriveBlockIo(block);
  auto stopped = (*server)->Stop();
  EXPECT_TRUE(stopped.ok()) << stopped.error().message;
  EXPECT_FALSE((*server)->QueueEnded()) << "the controller ended while the device was live";
  const auto& outcome = (*server)->outcome(0);
  EXPECT_TRUE(outcome.ok()) << outcome.error().message;
  uringc::Controller* c = (*server)->controller(0);
  if (outcome.ok() && c != nullptr) {
    EXPECT_EQ(outcome->status, uringc::RunStatus::kDone)
        << "controller error " << outcome->controller_error;
    check(*c, *outcome);
  }
  struct stat st;
  EXPECT_NE(stat(block.c_str(), &st), 0) << block << " is still there";
}

}  // namespace uringc_test
