// Kernel feature and privilege detection from the kernel's BTF and /proc/self/status.
#include "uringc/features.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <sys/utsname.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace uringc {
namespace {

constexpr int kCapSysAdmin = 21;
constexpr int kCapPerfmon = 38;
constexpr int kCapBpf = 39;

// The struct a pointer parameter points to, through qualifiers and typedefs; nullptr otherwise.
const char* PointeeStructName(const btf* b, uint32_t id) {
  const btf_type* t = btf__type_by_id(b, id);
  if (!t || !btf_is_ptr(t)) return nullptr;
  t = btf__type_by_id(b, t->type);
  // Bounded: a cycle of typedefs in hostile BTF must not hang (libbpf's own limit is 32).
  for (int depth = 0; t && (btf_is_mod(t) || btf_is_typedef(t)); ++depth) {
    if (depth == 32) return nullptr;
    t = btf__type_by_id(b, t->type);
  }
  if (!t || !(btf_is_struct(t) || btf_is_fwd(t))) return nullptr;
  return btf__name_by_offset(b, t->name_off);
}

}  // namespace

std::string ShortRelease(const std::string& release) {
  size_t dots = 0, i = 0;
  for (; i < release.size(); ++i) {
    if (release[i] == '.' && ++dots == 2) break;
    if (release[i] != '.' && !isdigit(static_cast<unsigned char>(release[i]))) break;
  }
  return release.substr(0, i);
}

std::string RunningKernelRelease() {
  utsname u{};
  if (uname(&u) != 0) return "unknown";
  return u.release;
}

std::string KernelReleaseWarning(const std::string& release) {
  unsigned major = 0, minor = 0, patch = 0;
  if (std::sscanf(release.c_str(), "%u.%u.%u", &major, &minor, &patch) < 2) return "";
  if (major != 7 || minor != 1 || patch > 4) return "";
  const std::string version = release.substr(0, release.find_first_not_of("0123456789."));
  return "this kernel (" + version + ") has CVE-2026-72112: an io_uring_bpf_ops map bound to a second ring is freed while "
         "in use; uringc binds one map per ring, but other BPF users on this machine may not: "
         "upgrade to Linux 7.1.5 or later";
}

std::string DescribeAbi(BpfOpsAbi abi) {
  switch (abi) {
    case BpfOpsAbi::kNone: return "none";
    case BpfOpsAbi::kIoRingCtx: return "7.1 (loop_step takes `struct io_ring_ctx *`)";
    case BpfOpsAbi::kIouCtx: return "7.2+ (loop_step takes `struct iou_ctx *`)";
    case BpfOpsAbi::kUnknown: return "unknown (loop_step's first parameter is neither)";
  }
  return "unknown";
}

KernelFeatures AnalyzeKernelBtf(const btf* b, const std::string& release) {
  KernelFeatures f;
  f.release = release;
  const int id = btf__find_by_name_kind(b, "io_uring_bpf_ops", BTF_KIND_STRUCT);
  if (id > 0) {
    f.has_bpf_ops = true;
    f.abi = BpfOpsAbi::kUnknown;
    const btf_type* t = btf__type_by_id(b, id);
    const btf_member* m = btf_members(t);
    for (uint16_t i = 0; i < btf_vlen(t); ++i) {
      if (strcmp(btf__name_by_offset(b, m[i].name_off), "loop_step") != 0) continue;
      const btf_type* ptr = btf__type_by_id(b, m[i].type);
      if (!ptr || !btf_is_ptr(ptr)) break;
      const btf_type* proto = btf__type_by_id(b, ptr->type);
      if (!proto || !btf_is_func_proto(proto) || btf_vlen(proto) < 1) break;
      const char* first = PointeeStructName(b, btf_params(proto)[0].type);
      if (first && strcmp(first, "iou_ctx") == 0) f.abi = BpfOpsAbi::kIouCtx;
      if (first && strcmp(first, "io_ring_ctx") == 0) f.abi = BpfOpsAbi::kIoRingCtx;
    }
  }
  f.has_get_region = btf__find_by_name_kind(b, "bpf_io_uring_get_region", BTF_KIND_FUNC) > 0;
  f.has_submit_sqes = btf__find_by_name_kind(b, "bpf_io_uring_submit_sqes", BTF_KIND_FUNC) > 0;
  return f;
}

Result<KernelFeatures> DetectKernelFeatures(const std::string& btf_path) {
  const std::string release = RunningKernelRelease();
  btf* b = btf_path.empty() ? btf__load_vmlinux_btf() : btf__parse(btf_path.c_str(), nullptr);
  if (!b) {
    const int err = -errno;
    return MakeError(DiagKind::kKernelBtfUnreadable, err ? err : -ENOENT,
                     "cannot read the kernel's BTF (" +
                         (btf_path.empty() ? std::string("/sys/kernel/btf/vmlinux") : btf_path) +
                         ": " + strerror(err ? -err : ENOENT) + "): this kernel (" +
                         ShortRelease(release) +
                         ") was built without CONFIG_DEBUG_INFO_BTF, "
                         "which io_uring_bpf_ops needs; use Linux 7.1+ with "
                         "CONFIG_IO_URING_BPF_OPS=y");
  }
  KernelFeatures f = AnalyzeKernelBtf(b, release);
  btf__free(b);
  return f;
}

Result<void> CheckKernelFeatures(const KernelFeatures& f) {
  const std::string kernel = "this kernel (" + ShortRelease(f.release) + ")";
  if (!f.has_bpf_ops) {
    return MakeError(DiagKind::kNoBpfOps, ESRCH,
                     kernel +
                         " has no io_uring_bpf_ops: Linux 7.1+ with "
                         "CONFIG_IO_URING_BPF_OPS is needed (try `uringc run --vm`)");
  }
  if (!f.has_get_region || !f.has_submit_sqes) {
    return MakeError(
        DiagKind::kNoBpfOps, ESRCH,
        kernel + " has io_uring_bpf_ops but lacks the kfunc " +
            (f.has_get_region ? "bpf_io_uring_submit_sqes" : "bpf_io_uring_get_region") +
            ": use a kernel whose io_uring_bpf_ops is complete (7.2+)");
  }
  if (f.abi == BpfOpsAbi::kUnknown) {
    return MakeError(DiagKind::kNoBpfOps, ENOTSUP,
                     kernel +
                         " has io_uring_bpf_ops with an ABI this runtime does not "
                         "know: loop_step's first parameter is neither "
                         "`struct iou_ctx *` nor `struct io_ring_ctx *`");
  }
  return {};
}

Privileges PrivilegesFromCapEff(unsigned long long cap_eff) {
  Privileges p;
  p.cap_sys_admin = (cap_eff >> kCapSysAdmin) & 1;
  p.cap_perfmon = (cap_eff >> kCapPerfmon) & 1;
  p.cap_bpf = (cap_eff >> kCapBpf) & 1;
  return p;
}

Privileges ReadPrivileges() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("CapEff:", 0) == 0) {
      // strtoull, not std::stoull: a malformed line must not throw out of the runtime.
      return PrivilegesFromCapEff(strtoull(line.c_str() + 7, nullptr, 16));
    }
  }
  return {};
}

std::string MissingPrivileges(const Privileges& p) {
  if (p.cap_sys_admin || (p.cap_bpf && p.cap_perfmon)) return "";
  std::string missing;
  if (!p.cap_bpf) missing = "CAP_BPF";
  if (!p.cap_perfmon) missing += std::string(missing.empty() ? "" : " and ") + "CAP_PERFMON";
  return "loading a controller (a struct_ops program) needs CAP_BPF and CAP_PERFMON, or "
         "CAP_SYS_ADMIN; this process lacks " + missing +
         ": run it as root, or grant them with `sudo setcap cap_bpf,cap_perfmon+ep <program>`";
}

}  // namespace uringc
