// The kernel ABI variants a controller can be compiled for. They differ only in the name of the
// struct that loop_step and the kfuncs receive first (`struct iou_ctx` from Linux 7.2 on, `struct
// io_ring_ctx` in 7.1); the choice shows up in the object's BTF. Neither libbpf nor the verifier
// compares that name, so an object of either ABI also runs on the other kernel (the kernel tests
// run both ABIs in the 7.1, 7.2 and 7.3 guests); the target makes the BTF match the kernel's.
#pragma once

#include <optional>
#include <string_view>

namespace uringc {

enum class KernelAbi {
  kLinux7_1,  ///< loop_step(struct io_ring_ctx *, struct iou_loop_params *)
  kLinux7_2,  ///< loop_step(struct iou_ctx *, struct iou_loop_params *); also 7.3
};

/// The kernel versions `--target-kernel` names and the ABI of each, oldest first. 7.3 kept the
/// 7.2 ABI (checked on Debian's 7.3.4 kernel).
struct KernelVersion {
  std::string_view version;
  KernelAbi abi;
};
inline constexpr KernelVersion kKernelVersions[] = {
    {"7.1", KernelAbi::kLinux7_1}, {"7.2", KernelAbi::kLinux7_2}, {"7.3", KernelAbi::kLinux7_2}};

/// The first kernel version of `abi`: "7.1" or "7.2" (which 7.3 kept).
constexpr std::string_view KernelAbiVersion(KernelAbi abi) {
  for (const KernelVersion& k : kKernelVersions) {
    if (k.abi == abi) return k.version;
  }
  return {};
}

/// The default of `--target-kernel`, as an ABI and as the option's text.
inline constexpr KernelAbi kDefaultKernelAbi = KernelAbi::kLinux7_2;
inline constexpr std::string_view kDefaultTargetKernel = KernelAbiVersion(kDefaultKernelAbi);

/// Parses a `--target-kernel` value (a version of kKernelVersions); nullopt for anything else.
/// `auto` (read the running kernel's BTF) belongs to the driver, which calls this with what it
/// found.
std::optional<KernelAbi> ParseKernelAbi(std::string_view version);

/// The name of the context struct the kernel passes to loop_step and the kfuncs.
std::string_view ContextStructName(KernelAbi abi);

}  // namespace uringc
