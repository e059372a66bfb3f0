// The sentences for attach and load failures: each names the cause and the remedy.
#include "uringc/explain.h"

#include <gtest/gtest.h>

namespace {

using uringc::DiagKind;

TEST(ExplainTest, AttachErrors) {
  const uringc::Error not_supported = uringc::ExplainAttachError(-EOPNOTSUPP);
  EXPECT_NE(not_supported.message.find("IORING_SETUP_DEFER_TASKRUN"), std::string::npos);
  EXPECT_EQ(not_supported.kind, DiagKind::kRingNotSupported);
  EXPECT_EQ(not_supported.code, -EOPNOTSUPP);
  const uringc::Error busy = uringc::ExplainAttachError(-EBUSY);
  EXPECT_NE(busy.message.find("detach that one first"), std::string::npos);
  EXPECT_EQ(busy.kind, DiagKind::kRingBusy);
  EXPECT_NE(uringc::ExplainAttachError(-EBADF).message.find("ring closed"), std::string::npos);
  EXPECT_EQ(uringc::ExplainAttachError(-EINVAL).kind, DiagKind::kAttachFailed);
  EXPECT_EQ(uringc::ExplainAttachError(-EPERM).kind, DiagKind::kMissingPrivileges);
}

TEST(ExplainTest, UnknownKfuncFromLibbpfsMessage) {
  const std::string libbpf =
      "libbpf: extern (func ksym) 'bpf_io_uring_frobnicate': not found in kernel or module BTFs\n"
      "libbpf: failed to load object 'bad_kfunc'\n";
  const uringc::Error e = uringc::ExplainLoadError(-ESRCH, libbpf, {});
  EXPECT_NE(e.message.find("no kfunc `bpf_io_uring_frobnicate`"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("bpf_ksym_exists()"), std::string::npos);
  EXPECT_EQ(e.kind, DiagKind::kUnknownKfunc);
}

TEST(ExplainTest, MissingStructOpsType) {
  const uringc::Error e = uringc::ExplainLoadError(
      -ESRCH,
      "libbpf: struct_ops init_kern: struct bpf_struct_ops_io_uring_bpf_ops is not found "
      "in kernel BTF\n",
      {});
  EXPECT_NE(e.message.find("Linux 7.1+ with CONFIG_IO_URING_BPF_OPS"), std::string::npos)
      << e.message;
  EXPECT_EQ(e.kind, DiagKind::kNoBpfOps);
}

TEST(ExplainTest, PermissionNamesTheCapability) {
  uringc::Privileges p;
  p.cap_bpf = true;
  const uringc::Error e = uringc::ExplainLoadError(-EPERM, "", p);
  EXPECT_NE(e.message.find("lacks CAP_PERFMON"), std::string::npos) << e.message;
  EXPECT_EQ(e.kind, DiagKind::kMissingPrivileges);
  p.cap_sys_admin = true;
  EXPECT_NE(uringc::ExplainLoadError(-EPERM, "", p).message.find("lockdown"), std::string::npos);
}

TEST(ExplainTest, OtherLoadErrors) {
  EXPECT_EQ(uringc::ExplainLoadError(-E2BIG, "", {}).kind, DiagKind::kLoadFailed);
  EXPECT_EQ(uringc::ExplainLoadError(-ENOMEM, "", {}).kind, DiagKind::kOutOfMemory);
  EXPECT_EQ(uringc::ExplainLoadError(-EINVAL, "", {}).kind, DiagKind::kLoadFailed);
}

}  // namespace
