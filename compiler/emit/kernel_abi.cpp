// Maps `--target-kernel` versions to the ABI variant they use (the table is in kernel_abi.h).
#include "emit/kernel_abi.h"

namespace uringc {

std::optional<KernelAbi> ParseKernelAbi(std::string_view version) {
  for (const KernelVersion& k : kKernelVersions) {
    if (k.version == version) return k.abi;
  }
  return std::nullopt;
}

std::string_view ContextStructName(KernelAbi abi) {
  return abi == KernelAbi::kLinux7_1 ? "io_ring_ctx" : "iou_ctx";
}

}  // namespace uringc
