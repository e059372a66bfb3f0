// Ring creation on the host kernel (io_uring with SINGLE_ISSUER|DEFER_TASKRUN and memory regions
// exist on 6.18) and through a fake kernel for the failures a real one rarely gives.
#include "uringc/ring.h"

#include <gtest/gtest.h>
#include <liburing.h>

#include "uringc/liburing_compat.h"

namespace {

// Passes every call to the real kernel except those it is told to fail.
class FailingKernel : public uringc::KernelInterface {
 public:
  int IoUringSetup(uint32_t entries, io_uring_params* p) override {
    return setup_error ? setup_error : uringc::SystemKernel().IoUringSetup(entries, p);
  }
  int IoUringEnter(int fd, uint32_t s, uint32_t c, uint32_t f) override {
    return uringc::SystemKernel().IoUringEnter(fd, s, c, f);
  }
  int IoUringRegister(int fd, uint32_t op, void* arg, uint32_t n) override {
    if (op == URINGC_IORING_REGISTER_MEM_REGION && register_error) return register_error;
    return uringc::SystemKernel().IoUringRegister(fd, op, arg, n);
  }
  int Close(int fd) override {
    ++closes;
    return uringc::SystemKernel().Close(fd);
  }
  int setup_error = 0;
  int register_error = 0;
  int closes = 0;
};

TEST(RingTest, CreatesASingleIssuerDeferTaskrunRingAndPrimesIt) {
  uringc::RingOptions o;
  o.sq_entries = 32;
  o.cq_entries = 128;
  auto ring = uringc::Ring::Create(o);
  ASSERT_TRUE(ring.ok()) << ring.error().message;
  const io_uring_params& p = (*ring)->params();
  EXPECT_TRUE(p.flags & IORING_SETUP_SINGLE_ISSUER);
  EXPECT_TRUE(p.flags & IORING_SETUP_DEFER_TASKRUN);
  EXPECT_TRUE(p.flags & IORING_SETUP_SUBMIT_ALL);  // a failed prep does not stop the batch
  EXPECT_EQ((*ring)->layout().sq_entries, 32u);
  EXPECT_EQ((*ring)->layout().cq_entries, 128u);
  EXPECT_GE((*ring)->fd(), 0);
  EXPECT_EQ((*ring)->mem_region(), nullptr);
}

TEST(RingTest, ParameterRegionIsRegistered) {
  uringc::RingOptions o;
  o.mem_region_size = 100;
  auto ring = uringc::Ring::Create(o);
  if (!ring.ok() && ring.error().code == -EINVAL) {
    GTEST_SKIP() << "this kernel has no IORING_REGISTER_MEM_REGION: " << ring.error().message;
  }
  ASSERT_TRUE(ring.ok()) << ring.error().message;
  EXPECT_NE((*ring)->mem_region(), nullptr);
  EXPECT_EQ((*ring)->mem_region_size(), 4096u);  // rounded up to a page
  static_cast<char*>((*ring)->mem_region())[4095] = 1;  // mapped and writable
}

TEST(RingTest, RefusedFlagsAreExplained) {
  uringc::RingOptions o;
  o.extra_flags = IORING_SETUP_SQPOLL;
  auto ring = uringc::Ring::Create(o);
  ASSERT_FALSE(ring.ok());
  EXPECT_EQ(ring.error().code, -EINVAL);
  EXPECT_NE(ring.error().message.find("SINGLE_ISSUER|DEFER_TASKRUN"), std::string::npos);
  EXPECT_EQ(ring.error().kind, uringc::DiagKind::kRingNotSupported);
}

// Whether this kernel takes NO_SQARRAY|SQ_REWIND rings (Linux 7.0+), asked of it directly.
bool KernelHasSqRewind() {
  io_uring_params p{};
  p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_NO_SQARRAY |
            IORING_SETUP_SQ_REWIND;
  const int fd = uringc::SystemKernel().IoUringSetup(8, &p);
  if (fd >= 0) uringc::SystemKernel().Close(fd);
  return fd >= 0;
}

TEST(RingTest, AutoModeIsRewindWhereTheKernelHasIt) {
  auto ring = uringc::Ring::Create({});
  ASSERT_TRUE(ring.ok()) << ring.error().message;
  const bool rewind = KernelHasSqRewind();
  EXPECT_EQ((*ring)->rewind(), rewind);
  EXPECT_EQ((*ring)->layout().sq_rewind, rewind ? 1u : 0u);
  EXPECT_EQ(static_cast<bool>((*ring)->params().flags & IORING_SETUP_NO_SQARRAY), rewind);
  EXPECT_EQ((*ring)->CqReady(), 0u);  // the priming NOP was reaped on either ring
}

TEST(RingTest, AutoModeWithoutSubmitAllIsTail) {
  uringc::RingOptions o;
  o.submit_all = false;
  auto ring = uringc::Ring::Create(o);
  ASSERT_TRUE(ring.ok()) << ring.error().message;
  EXPECT_FALSE((*ring)->rewind());
  EXPECT_FALSE((*ring)->params().flags & (IORING_SETUP_NO_SQARRAY | IORING_SETUP_SQ_REWIND));
}

TEST(RingTest, RewindModeIsARewindRingOrExplainsTheKernel) {
  uringc::RingOptions o;
  o.mode = uringc::RingMode::kRewind;
  auto ring = uringc::Ring::Create(o);
  if (KernelHasSqRewind()) {
    ASSERT_TRUE(ring.ok()) << ring.error().message;
    EXPECT_TRUE((*ring)->rewind());
    EXPECT_EQ((*ring)->CqReady(), 0u);
  } else {
    ASSERT_FALSE(ring.ok());
    EXPECT_EQ(ring.error().code, -EINVAL);
    EXPECT_NE(ring.error().message.find("SQ_REWIND"), std::string::npos) << ring.error().message;
    EXPECT_NE(ring.error().message.find("Linux 7.0+"), std::string::npos);
  }
}

TEST(RingTest, TailModeHasAnSqArray) {
  uringc::RingOptions o;
  o.mode = uringc::RingMode::kTail;
  auto ring = uringc::Ring::Create(o);
  ASSERT_TRUE(ring.ok()) << ring.error().message;
  EXPECT_FALSE((*ring)->rewind());
  EXPECT_FALSE((*ring)->params().flags & IORING_SETUP_NO_SQARRAY);
}

TEST(RingTest, RewindFlagsAsExtraFlagsAreRefused) {
  for (uint32_t flag : {IORING_SETUP_SQ_REWIND, IORING_SETUP_NO_SQARRAY}) {
    uringc::RingOptions o;
    o.extra_flags = flag;
    auto ring = uringc::Ring::Create(o);
    ASSERT_FALSE(ring.ok());
    EXPECT_EQ(ring.error().kind, uringc::DiagKind::kRingNotSupported);
    EXPECT_NE(ring.error().message.find("RingMode::kRewind"), std::string::npos);
  }
}

TEST(RingTest, RingModesParseByName) {
  for (uringc::RingMode m :
       {uringc::RingMode::kAuto, uringc::RingMode::kRewind, uringc::RingMode::kTail}) {
    uringc::RingMode parsed =
        m == uringc::RingMode::kTail ? uringc::RingMode::kAuto : uringc::RingMode::kTail;
    ASSERT_TRUE(uringc::ParseRingMode(uringc::RingModeName(m), &parsed));
    EXPECT_EQ(parsed, m);
  }
  uringc::RingMode unused;
  EXPECT_FALSE(uringc::ParseRingMode("circular", &unused));
}

TEST(RingTest, SetupFailureIsExplained) {
  FailingKernel k;
  k.setup_error = -EPERM;
  uringc::RingOptions o;
  o.kernel = &k;
  auto ring = uringc::Ring::Create(o);
  ASSERT_FALSE(ring.ok());
  EXPECT_EQ(ring.error().code, -EPERM);
  EXPECT_NE(ring.error().message.find("io_uring_disabled"), std::string::npos);
  EXPECT_EQ(ring.error().kind, uringc::DiagKind::kRingSetupFailed);
}

TEST(RingTest, MemRegionFailureClosesTheRingAndIsExplained) {
  FailingKernel k;
  k.register_error = -ENOMEM;
  uringc::RingOptions o;
  o.kernel = &k;
  o.mem_region_size = 4096;
  auto ring = uringc::Ring::Create(o);
  ASSERT_FALSE(ring.ok());
  EXPECT_NE(ring.error().message.find("RLIMIT_MEMLOCK"), std::string::npos);
  EXPECT_EQ(k.closes, 1);  // nothing leaks
}

// Before Linux 6.13 (EINVAL) the region stays user memory: the host engine's, not the kernel's.
TEST(RingTest, AKernelWithoutMemoryRegionsKeepsTheRegionUnregistered) {
  FailingKernel k;
  k.register_error = -EINVAL;
  uringc::RingOptions o;
  o.kernel = &k;
  o.mem_region_size = 4096;
  auto ring = uringc::Ring::Create(o);
  ASSERT_TRUE(ring.ok()) << ring.error().message;
  EXPECT_NE((*ring)->mem_region(), nullptr);
  EXPECT_FALSE((*ring)->mem_region_registered());
}

TEST(RingTest, HandleOutlivesTheRingAndSeesItClosed) {
  auto ring = uringc::Ring::Create({});
  ASSERT_TRUE(ring.ok());
  auto handle = (*ring)->handle();
  EXPECT_GE(handle->fd, 0);
  ring->reset();
  EXPECT_EQ(handle->fd, -1);
}

TEST(RingTest, BorrowedRingIsNotClosed) {
  io_uring raw{};
  ASSERT_EQ(io_uring_queue_init(8, &raw, 0), 0);
  io_uring_params p{};
  p.sq_entries = 8;
  p.cq_entries = 16;
  {
    FailingKernel k;
    auto ring = uringc::Ring::Borrow(raw.ring_fd, p, &k);
    ASSERT_TRUE(ring.ok());
    ring->reset();
    EXPECT_EQ(k.closes, 0);
  }
  io_uring_queue_exit(&raw);
}

}  // namespace
