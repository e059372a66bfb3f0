// Capability detection against the running kernel (in the VM: 7.2 and 7.3, which must report the
// 7.2+ ABI) and the EPERM path for real: a child drops CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN and
// must be told which capability is missing.
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel_test_util.h"
#include "uringc/controller.h"
#include "uringc/features.h"

URINGC_EMBEDDED(nop_named_bpf_object);

namespace {

TEST(KernelFeaturesTest, ReportsTheAbiOfThisKernel) {
  auto f = uringc::DetectKernelFeatures();
  ASSERT_TRUE(f.ok()) << f.error().message;
  if (!f->has_bpf_ops) {
    if (uringc_test::FeatureRequired()) FAIL() << "kernel lacks io_uring_bpf_ops";
    GTEST_SKIP() << uringc::CheckKernelFeatures(*f).error().message;
  }
  EXPECT_TRUE(uringc::CheckKernelFeatures(*f).ok());
  EXPECT_TRUE(f->has_get_region);
  EXPECT_TRUE(f->has_submit_sqes);
  // Both Debian kernels of the matrix (7.2.x, 7.3.x) pass `struct iou_ctx *`.
  if (f->release.rfind("7.1.", 0) == 0) {
    EXPECT_EQ(f->abi, uringc::BpfOpsAbi::kIoRingCtx);
  } else {
    EXPECT_EQ(f->abi, uringc::BpfOpsAbi::kIouCtx);
  }
  std::printf("kernel %s: ABI %s\n", f->release.c_str(), uringc::DescribeAbi(f->abi).c_str());
}

// Clears the given capabilities from this process's effective set.
bool DropEffective(std::initializer_list<int> caps) {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capget, &header, data) != 0) return false;
  for (int cap : caps) data[cap / 32].effective &= ~(1u << (cap % 32));
  return syscall(SYS_capset, &header, data) == 0;
}

// Loads nop_named in a child that lacks caps; returns "<code> <message>" or what went wrong.
std::string LoadWithout(std::initializer_list<int> caps) {
  int pipefd[2];
  if (pipe(pipefd) != 0) return "pipe failed";
  const pid_t pid = fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    close(pipefd[0]);
    std::string report = "no report";
    if (!DropEffective(caps)) {
      report = "capset failed";
    } else {
      uringc::RingOptions ro;
      ro.mode = uringc::RingMode::kTail;  // nop_named advances the SQ tail
      auto ring = uringc::Ring::Create(ro);
      auto ctl = uringc::Controller::OpenMemory(nop_named_bpf_object_obj.begin,
                                                nop_named_bpf_object_obj.size());
      if (ring && ctl) {
        auto r = (*ctl)->Load(**ring);
        report = r.ok() ? "loaded" : std::to_string(r.error().code) + " " + r.error().message;
      }
    }
    (void)!write(pipefd[1], report.data(), report.size());
    _exit(0);
  }
  close(pipefd[1]);
  std::string report;
  char buf[4096];
  ssize_t n;
  while ((n = read(pipefd[0], buf, sizeof(buf))) > 0) report.append(buf, static_cast<size_t>(n));
  close(pipefd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return report;
}

class CapabilityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto f = uringc::DetectKernelFeatures();
    if (!f.ok() || !f->has_bpf_ops) {
      if (uringc_test::FeatureRequired()) FAIL() << "kernel lacks io_uring_bpf_ops";
      GTEST_SKIP() << "kernel lacks io_uring_bpf_ops";
    }
    if (geteuid() != 0) GTEST_SKIP() << "needs root to hold the capabilities it drops";
  }
};

TEST_F(CapabilityTest, WithoutBpfAndPerfmonBothAreNamed) {
  const std::string report = LoadWithout({CAP_SYS_ADMIN, CAP_BPF, CAP_PERFMON});
  EXPECT_EQ(report.rfind(std::to_string(-EPERM) + " ", 0), 0u) << report;
  EXPECT_NE(report.find("lacks CAP_BPF and CAP_PERFMON"), std::string::npos) << report;
  std::printf("%s\n", report.c_str());
}

TEST_F(CapabilityTest, WithoutPerfmonOnlyPerfmonIsNamed) {
  // struct_ops programs are "perfmon" program types: CAP_BPF alone is not enough.
  const std::string report = LoadWithout({CAP_SYS_ADMIN, CAP_PERFMON});
  EXPECT_EQ(report.rfind(std::to_string(-EPERM) + " ", 0), 0u) << report;
  EXPECT_NE(report.find("lacks CAP_PERFMON"), std::string::npos) << report;
  EXPECT_EQ(report.find("lacks CAP_BPF"), std::string::npos) << report;
  std::printf("%s\n", report.c_str());
}

}  // namespace
