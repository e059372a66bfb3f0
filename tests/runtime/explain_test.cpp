// The sentences for attach and load failures: each names the cause and the remedy.
#include "uringc/explain.h"

#include <gtest/gtest.h>

namespace {

TEST(ExplainTest, AttachErrors) {
  EXPECT_NE(uringc::ExplainAttachError(-EOPNOTSUPP).find("IORING_SETUP_DEFER_TASKRUN"),
            std::string::npos);
  EXPECT_NE(uringc::ExplainAttachError(-EBUSY).find("detach that one first"), std::string::npos);
  EXPECT_NE(uringc::ExplainAttachError(-EBADF).find("ring closed"), std::string::npos);
}

TEST(ExplainTest, UnknownKfuncFromLibbpfsMessage) {
  const std::string libbpf =
      "libbpf: extern (func ksym) 'bpf_io_uring_frobnicate': not found in kernel or module BTFs\n"
      "libbpf: failed to load object 'bad_kfunc'\n";
  const std::string text = uringc::ExplainLoadError(-ESRCH, libbpf, {});
  EXPECT_NE(text.find("no kfunc `bpf_io_uring_frobnicate`"), std::string::npos) << text;
  EXPECT_NE(text.find("bpf_ksym_exists()"), std::string::npos);
}

TEST(ExplainTest, MissingStructOpsType) {
  const std::string text = uringc::ExplainLoadError(
      -ESRCH, "libbpf: struct_ops init_kern: struct bpf_struct_ops_io_uring_bpf_ops is not found "
              "in kernel BTF\n",
      {});
  EXPECT_NE(text.find("Linux 7.1+ with CONFIG_IO_URING_BPF_OPS"), std::string::npos) << text;
}

TEST(ExplainTest, PermissionNamesTheCapability) {
  uringc::Privileges p;
  p.cap_bpf = true;
  const std::string text = uringc::ExplainLoadError(-EPERM, "", p);
  EXPECT_NE(text.find("lacks CAP_PERFMON"), std::string::npos) << text;
  p.cap_sys_admin = true;
  EXPECT_NE(uringc::ExplainLoadError(-EPERM, "", p).find("lockdown"), std::string::npos);
}

}  // namespace
