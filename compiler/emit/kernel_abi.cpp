// Maps `--target-kernel` versions to the ABI variant they use.
#include "emit/kernel_abi.h"

namespace uringc {

std::optional<KernelAbi> ParseKernelAbi(std::string_view version) {
  if (version == "7.1") return KernelAbi::kLinux7_1;
  // 7.3 kept the 7.2 ABI (checked on Debian's 7.3.4 kernel).
  if (version == "7.2" || version == "7.3") return KernelAbi::kLinux7_2;
  return std::nullopt;
}

std::string_view KernelAbiVersion(KernelAbi abi) {
  return abi == KernelAbi::kLinux7_1 ? "7.1" : "7.2";
}

std::string_view ContextStructName(KernelAbi abi) {
  return abi == KernelAbi::kLinux7_1 ? "io_ring_ctx" : "iou_ctx";
}

}  // namespace uringc
