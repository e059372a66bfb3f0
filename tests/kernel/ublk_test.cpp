// ublk served from a controller: the runtime's control plane (uringc/ublk.h) creates a device,
// the hand-written null target (tests/controllers/ublk_null.bpf.c) serves its one queue from inside
// io_uring_enter, and real block I/O goes through /dev/ublkbN (ublk_server.h). The route the
// language lowers to (docs/ublk.md), checked on the real driver. Needs /dev/ublk-control: the VM
// loads ublk_drv from the kernel's modules package and sets URINGC_REQUIRE_UBLK=1, so a missing
// driver fails there; on the host these tests skip, saying why.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "kernel_test_util.h"
#include "ublk_server.h"
#include "uringc/controller.h"
#include "uringc/ublk.h"

URINGC_EMBEDDED(ublk_null_bpf_object);

namespace {

using uringc::DiagKind;
namespace ublk = uringc::ublk;

int64_t Counter(uringc::Controller& c, const char* name) {
  auto v = c.GetInt(name);
  EXPECT_TRUE(v.ok()) << name << ": " << v.error().message;
  return v.ok() ? *v : -1;
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
  uringc_test::ServeBlockIo(
      8, uringc::RingMode::kTail,
      [] {
        return uringc::Controller::OpenMemory(ublk_null_bpf_object_obj.begin,
                                              ublk_null_bpf_object_obj.size());
      },
      // ublkc, queue and descs are the standard parameters the server sets; this target takes
      // its buffers as an address and a size rather than a `buf` buffers parameter.
      [](uringc::Controller& c, const ublk::QueueContext& q) -> uringc::Result<void> {
        URINGC_TRY(c.SetUint("depth", q.device->depth));
        URINGC_TRY(c.SetUint("bufs", reinterpret_cast<uint64_t>(q.bufs)));
        return c.SetUint("buf_bytes", q.device->max_io_bytes);
      },
      [](uringc::Controller& c, const uringc::RunOutcome& o) {
        EXPECT_EQ(Counter(c, "aborted"), 8);
        EXPECT_EQ(Counter(c, "copy_error"), 0);
        EXPECT_GE(Counter(c, "writes"), 16);  // 1 MiB in requests of at most 64 KiB
        EXPECT_GE(Counter(c, "reads"), 16);
        EXPECT_GE(Counter(c, "bytes"), 2 << 20);
        std::printf("ublk null (C): %lld reads, %lld writes, %lld others, %llu steps\n",
                    static_cast<long long>(Counter(c, "reads")),
                    static_cast<long long>(Counter(c, "writes")),
                    static_cast<long long>(Counter(c, "others")),
                    static_cast<unsigned long long>(o.stats.steps));
      });
}

}  // namespace
