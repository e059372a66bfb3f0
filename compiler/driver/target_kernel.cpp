// `--target-kernel` values, `auto` included (see target_kernel.h).
#include "driver/target_kernel.h"

#include "uringc/features.h"

namespace uringc::driver {

bool ResolveTargetKernel(const std::string& value, KernelAbi& abi, std::string& error) {
  if (value == "auto") {
    auto f = DetectKernelFeatures();
    if (!f) {
      error = "--target-kernel=auto: " + f.error().message;
      return false;
    }
    switch (f->abi) {
      case BpfOpsAbi::kIoRingCtx: abi = KernelAbi::kLinux7_1; return true;
      case BpfOpsAbi::kIouCtx: abi = KernelAbi::kLinux7_2; return true;
      default:
        error = "--target-kernel=auto: this kernel (" + f->release +
                ") has no io_uring_bpf_ops (Linux 7.1+ with CONFIG_IO_URING_BPF_OPS is needed); "
                "name the target with --target-kernel=7.1|7.2|7.3";
        return false;
    }
  }
  auto parsed = ParseKernelAbi(value);
  if (!parsed) {
    error = "--target-kernel is 7.1, 7.2, 7.3 or auto, not `" + value + "`";
    return false;
  }
  abi = *parsed;
  return true;
}

}  // namespace uringc::driver
