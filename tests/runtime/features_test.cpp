// Capability detection on hand-built kernel BTFs for each ABI (7.1 io_ring_ctx, 7.2+ iou_ctx, none)
// and on this machine's real /sys/kernel/btf/vmlinux; privileges from CapEff masks.
#include "uringc/features.h"

#include <bpf/btf.h>
#include <gtest/gtest.h>
#include <sys/utsname.h>

namespace {

// A vmlinux-like BTF with io_uring_bpf_ops whose loop_step takes `struct <ctx_name> *`.
btf* KernelBtf(const char* ctx_name, bool with_kfuncs) {
  btf* b = btf__new_empty();
  const int u32 = btf__add_int(b, "unsigned int", 4, 0);
  const int s32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
  const int ctx = btf__add_struct(b, ctx_name, 0);
  const int ctx_ptr = btf__add_ptr(b, ctx);
  const int lp = btf__add_struct(b, "iou_loop_params", 4);
  btf__add_field(b, "cq_wait_idx", u32, 0, 0);
  const int lp_ptr = btf__add_ptr(b, lp);
  const int proto = btf__add_func_proto(b, s32);
  btf__add_func_param(b, "ctx", ctx_ptr);
  btf__add_func_param(b, "lp", lp_ptr);
  const int proto_ptr = btf__add_ptr(b, proto);
  btf__add_struct(b, "io_uring_bpf_ops", 16);
  btf__add_field(b, "loop_step", proto_ptr, 0, 0);
  btf__add_field(b, "ring_fd", u32, 64, 0);
  if (with_kfuncs) {
    const int kproto = btf__add_func_proto(b, s32);
    btf__add_func_param(b, "ctx", ctx_ptr);
    btf__add_func(b, "bpf_io_uring_get_region", BTF_FUNC_GLOBAL, kproto);
    btf__add_func(b, "bpf_io_uring_submit_sqes", BTF_FUNC_GLOBAL, kproto);
  }
  return b;
}

TEST(FeaturesTest, Kernel72AbiWithIouCtx) {
  btf* b = KernelBtf("iou_ctx", true);
  const auto f = uringc::AnalyzeKernelBtf(b, "7.2.13+deb14-cloud-amd64");
  EXPECT_TRUE(f.has_bpf_ops);
  EXPECT_EQ(f.abi, uringc::BpfOpsAbi::kIouCtx);
  EXPECT_TRUE(f.has_get_region && f.has_submit_sqes);
  EXPECT_TRUE(uringc::CheckKernelFeatures(f).ok());
  EXPECT_NE(uringc::DescribeAbi(f.abi).find("iou_ctx"), std::string::npos);
  btf__free(b);
}

TEST(FeaturesTest, Kernel71AbiWithIoRingCtx) {
  btf* b = KernelBtf("io_ring_ctx", true);
  const auto f = uringc::AnalyzeKernelBtf(b, "7.1.5");
  EXPECT_EQ(f.abi, uringc::BpfOpsAbi::kIoRingCtx);
  EXPECT_TRUE(uringc::CheckKernelFeatures(f).ok());
  btf__free(b);
}

TEST(FeaturesTest, MissingKfuncIsNamed) {
  btf* b = KernelBtf("iou_ctx", false);
  const auto r = uringc::CheckKernelFeatures(uringc::AnalyzeKernelBtf(b, "7.1.0"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("bpf_io_uring_get_region"), std::string::npos);
  btf__free(b);
}

TEST(FeaturesTest, UnknownAbi) {
  btf* b = KernelBtf("something_else", true);
  const auto f = uringc::AnalyzeKernelBtf(b, "7.9");
  EXPECT_EQ(f.abi, uringc::BpfOpsAbi::kUnknown);
  EXPECT_EQ(uringc::CheckKernelFeatures(f).error().code, -ENOTSUP);
  btf__free(b);
}

TEST(FeaturesTest, KernelWithoutTheStructOpsType) {
  btf* b = btf__new_empty();
  btf__add_int(b, "int", 4, BTF_INT_SIGNED);
  const auto r = uringc::CheckKernelFeatures(uringc::AnalyzeKernelBtf(b, "6.18.3-amd64"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, -ESRCH);
  EXPECT_NE(r.error().message.find("this kernel (6.18) has no io_uring_bpf_ops: Linux 7.1+ with "
                                   "CONFIG_IO_URING_BPF_OPS is needed"),
            std::string::npos)
      << r.error().message;
  btf__free(b);
}

// The real kernel of this machine: 6.18 on the development host (no io_uring_bpf_ops); the VM
// kernels have it. Either way the answer must agree with the release's major version.
TEST(FeaturesTest, ThisMachinesKernel) {
  auto f = uringc::DetectKernelFeatures();
  if (!f.ok()) GTEST_SKIP() << f.error().message;
  utsname u{};
  uname(&u);
  EXPECT_EQ(f->release, u.release);
  const int major = atoi(u.release);
  if (major < 7) {
    EXPECT_FALSE(f->has_bpf_ops);
    const auto r = uringc::CheckKernelFeatures(*f);
    EXPECT_NE(r.error().message.find("this kernel (" + uringc::ShortRelease(u.release) + ")"),
              std::string::npos);
  }
  std::printf("kernel %s: io_uring_bpf_ops %s, ABI %s\n", u.release,
              f->has_bpf_ops ? "present" : "absent", uringc::DescribeAbi(f->abi).c_str());
}

TEST(FeaturesTest, ShortRelease) {
  EXPECT_EQ(uringc::ShortRelease("6.18.3-amd64"), "6.18");
  EXPECT_EQ(uringc::ShortRelease("7.2.13+deb14-cloud-amd64"), "7.2");
  EXPECT_EQ(uringc::ShortRelease("7.1"), "7.1");
}

// CVE-2026-72112: 7.1.0 to 7.1.4 are warned about, 7.1.5 and every other series are not.
TEST(FeaturesTest, KernelReleaseWarningNamesTheCveOn71Before715) {
  using uringc::KernelReleaseWarning;
  for (const char* bad : {"7.1.0-1-cloud-amd64", "7.1.4+deb13-cloud-amd64", "7.1"}) {
    const std::string w = KernelReleaseWarning(bad);
    EXPECT_NE(w.find("CVE-2026-72112"), std::string::npos) << bad;
    EXPECT_NE(w.find("7.1.5"), std::string::npos) << bad;
  }
  EXPECT_NE(KernelReleaseWarning("7.1.4+deb13-cloud-amd64").find("(7.1.4)"), std::string::npos);
  for (const char* fine : {"7.1.5", "7.1.13+deb13-cloud-amd64", "7.2.13+deb14-cloud-amd64",
                           "7.10.1", "6.18.3-amd64", "17.1.2", "unknown", ""}) {
    EXPECT_EQ(KernelReleaseWarning(fine), "") << fine;
  }
}

TEST(FeaturesTest, Privileges) {
  using uringc::MissingPrivileges;
  using uringc::PrivilegesFromCapEff;
  EXPECT_EQ(MissingPrivileges(PrivilegesFromCapEff(1ull << 21)), "");  // CAP_SYS_ADMIN
  EXPECT_EQ(MissingPrivileges(PrivilegesFromCapEff((1ull << 38) | (1ull << 39))), "");
  const std::string no_perfmon = MissingPrivileges(PrivilegesFromCapEff(1ull << 39));
  EXPECT_NE(no_perfmon.find("lacks CAP_PERFMON"), std::string::npos) << no_perfmon;
  const std::string none = MissingPrivileges(PrivilegesFromCapEff(0));
  EXPECT_NE(none.find("lacks CAP_BPF and CAP_PERFMON"), std::string::npos) << none;
  EXPECT_NE(none.find("setcap"), std::string::npos);
}

}  // namespace
