// runtime/src/ublk.cpp on the host, where no ublk driver is loaded: the checks made before any
// command goes to the driver, and the error for a missing control device. The driver's side
// (ADD, START, STOP, DEL with a controller serving I/O) is tests/kernel/ublk_test.cpp, in the VM.
#include "uringc/ublk.h"

#include <gtest/gtest.h>

namespace {

using uringc::DiagKind;
namespace ublk = uringc::ublk;

TEST(UblkOptions, APlainDeviceIsAccepted) {
  ublk::DeviceOptions o;
  o.size_bytes = 1 << 30;
  EXPECT_TRUE(ublk::CheckDeviceOptions(o).ok());
}

TEST(UblkOptions, SizeQueuesDepthAndRequestSizeAreChecked) {
  auto refused = [](ublk::DeviceOptions o, const char* says) {
    auto r = ublk::CheckDeviceOptions(o);
    ASSERT_FALSE(r.ok()) << says;
    EXPECT_EQ(r.error().kind, DiagKind::kBadParameter);
    EXPECT_EQ(r.error().code, -EINVAL);
    EXPECT_NE(r.error().message.find(says), std::string::npos) << r.error().message;
  };
  refused({.size_bytes = 0}, "positive multiple of 512");
  refused({.size_bytes = 1000}, "not 1000");
  refused({.size_bytes = 4096, .queues = 0}, "1 to 4096 queues");
  refused({.size_bytes = 4096, .depth = 0}, "1 to 4096 tags");
  refused({.size_bytes = 4096, .depth = 4097 & 0xffff}, "1 to 4096 tags");
  refused({.size_bytes = 4096, .max_io_bytes = 1000}, "multiple of 4096");
}

TEST(UblkControl, AMissingControlDeviceSaysToLoadTheDriver) {
  auto c = ublk::Control::Open("/nonexistent/ublk-control");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().kind, DiagKind::kUblkUnavailable);
  EXPECT_EQ(c.error().code, -ENOENT);
  EXPECT_NE(c.error().message.find("modprobe ublk_drv"), std::string::npos);
}

TEST(UblkDevice, PathsFollowTheDeviceNumber) {
  ublk::DeviceInfo d;
  d.dev_id = 3;
  EXPECT_EQ(d.char_path(), "/dev/ublkc3");
  EXPECT_EQ(d.block_path(), "/dev/ublkb3");
}

}  // namespace
