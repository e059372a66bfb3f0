// Explanations for attach and load failures (see explain.h): each errno gets its kind
// (diag/kinds.def) and a sentence.
#include "uringc/explain.h"

#include <cerrno>
#include <cstring>
#include <regex>

namespace uringc {

Error ExplainAttachError(int err) {
  const int e = err < 0 ? -err : err;
  const std::string what = "cannot attach the controller to the ring (" +
                           std::string(strerror(e)) + ")";
  switch (e) {
    case EOPNOTSUPP:
      return MakeError(DiagKind::kRingNotSupported, err,
                  what +
                      ": the ring was not created with IORING_SETUP_DEFER_TASKRUN, or it uses "
                      "SQPOLL or IOPOLL; controllers run only on SINGLE_ISSUER|DEFER_TASKRUN "
                      "rings (create the ring with uringc::Ring / uringc_ring__create)");
    case EBUSY:
      return MakeError(DiagKind::kRingBusy, err,
                  what +
                      ": the ring already has a controller attached; detach that one first "
                      "(a ring runs one controller at a time)");
    case EBADF:
      return MakeError(DiagKind::kApiMisuse, err, what +
                                            ": `ring_fd` is not an open io_uring ring (was "
                                            "the ring closed before attaching?)");
    case EINVAL:
      return MakeError(DiagKind::kAttachFailed, err,
                  what +
                      ": the kernel rejected the struct_ops map (ring_fd not set, or a ring "
                      "that is being torn down)");
    case EPERM:
    case EACCES:
      return MakeError(DiagKind::kMissingPrivileges, err, what + ": " + MissingPrivileges(ReadPrivileges()));
    default:
      return MakeError(DiagKind::kAttachFailed, err, what);
  }
}

Error ExplainLoadError(int err, const std::string& libbpf_messages, const Privileges& privs) {
  const int e = err < 0 ? -err : err;
  const std::string what = "cannot load the controller (" + std::string(strerror(e)) + ")";
  std::smatch m;
  static const std::regex kfunc(R"(extern \(func ksym\) '([^']+)': not found in kernel)");
  if (std::regex_search(libbpf_messages, m, kfunc)) {
    return MakeError(DiagKind::kUnknownKfunc, err,
                what + ": the kernel has no kfunc `" + m[1].str() +
                    "`; it is newer than this kernel or misspelt (declare it __weak and check "
                    "bpf_ksym_exists() to make it optional)");
  }
  if (e == ESRCH || libbpf_messages.find("is not found in kernel BTF") != std::string::npos) {
    return MakeError(DiagKind::kNoBpfOps, err, what +
                                         ": this kernel has no io_uring_bpf_ops struct_ops "
                                         "type: Linux 7.1+ with CONFIG_IO_URING_BPF_OPS is needed");
  }
  if (e == EPERM || e == EACCES) {
    const std::string missing = MissingPrivileges(privs);
    if (!missing.empty()) return MakeError(DiagKind::kMissingPrivileges, err, what + ": " + missing);
    return MakeError(DiagKind::kMissingPrivileges, err,
                what +
                    ": the kernel refused although the process has CAP_BPF and CAP_PERFMON; "
                    "check kernel.unprivileged_bpf_disabled, lockdown and LSM policy");
  }
  if (e == E2BIG) {
    return MakeError(DiagKind::kLoadFailed, err,
                what + ": the program or a map is larger than the kernel allows");
  }
  if (e == ENOMEM) {
    return MakeError(DiagKind::kOutOfMemory, err,
                what + ": out of memory for maps; raise RLIMIT_MEMLOCK (ulimit -l)");
  }
  return MakeError(DiagKind::kLoadFailed, err, what);
}

}  // namespace uringc
