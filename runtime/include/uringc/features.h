// Capability detection before loading: does the running kernel have io_uring_bpf_ops (read from its
// BTF, /sys/kernel/btf/vmlinux), which ABI does loop_step use (7.1 passes `struct io_ring_ctx *`,
// 7.2+ `struct iou_ctx *`), are the two kfuncs there, and does this process hold the capabilities a
// struct_ops load needs. Each answer comes with a sentence a user can act on.
#pragma once

#include <string>

#include "uringc/result.h"

struct btf;

namespace uringc {

enum class BpfOpsAbi { kNone, kIoRingCtx, kIouCtx, kUnknown };

struct KernelFeatures {
  std::string release;  // "7.2.13+deb14-cloud-amd64"
  bool has_bpf_ops = false;
  BpfOpsAbi abi = BpfOpsAbi::kNone;
  bool has_get_region = false;   // kfunc bpf_io_uring_get_region
  bool has_submit_sqes = false;  // kfunc bpf_io_uring_submit_sqes
};

/// Reads the features from a kernel BTF (vmlinux); `release` is only used in messages.
KernelFeatures AnalyzeKernelBtf(const btf* vmlinux, const std::string& release);

/// Loads the running kernel's BTF (or `btf_path`) and analyses it. Fails when the BTF is missing.
Result<KernelFeatures> DetectKernelFeatures(const std::string& btf_path = "");

/// Ok when controllers can run; otherwise -ESRCH with what is missing, e.g. "this kernel (6.18)
/// has no io_uring_bpf_ops: Linux 7.1+ with CONFIG_IO_URING_BPF_OPS is needed".
Result<void> CheckKernelFeatures(const KernelFeatures& features);

/// "7.1 (loop_step takes struct io_ring_ctx *)" and the like.
std::string DescribeAbi(BpfOpsAbi abi);

/// "6.18" from "6.18.3-amd64".
std::string ShortRelease(const std::string& release);

/// The running kernel's release (uname -r), "unknown" when uname fails.
std::string RunningKernelRelease();

/// Empty, or a warning about a known defect of this kernel release that touches controllers:
/// 7.1.0-7.1.4 carry CVE-2026-72112 (an ops map bound to a second ring is a use-after-free,
/// fixed in 7.1.5). The runtime binds one map per ring, so it only warns.
std::string KernelReleaseWarning(const std::string& release);

/// Effective capabilities that matter for loading a controller.
struct Privileges {
  bool cap_sys_admin = false;
  bool cap_perfmon = false;
  bool cap_bpf = false;
};

/// From /proc/self/status (CapEff), or from a CapEff hex mask for tests.
Privileges ReadPrivileges();
Privileges PrivilegesFromCapEff(unsigned long long cap_eff);

/// Empty when the process may load a struct_ops controller; otherwise which capability is missing
/// and how to get it.
std::string MissingPrivileges(const Privileges& p);

}  // namespace uringc
