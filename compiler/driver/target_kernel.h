// `--target-kernel`: which kernel ABI variant to compile for, including `auto`, which reads the
// running kernel's BTF through the runtime's feature detection. Apart from compile_command.h and
// free of LLVM, so the kernel tests can check `auto` inside each guest of the VM matrix.
#pragma once

#include <string>
#include <vector>

#include "emit/kernel_abi.h"

namespace uringc::driver {

/// The values `--target-kernel` takes, for messages and --help: "7.1, 7.2, 7.3 or auto".
std::string TargetKernelValues();

/// Parses `--target-kernel` (7.1, 7.2, 7.3, auto: the running kernel's BTF). False with `error`.
bool ResolveTargetKernel(const std::string& value, KernelAbi& abi, std::string& error);

/// `auto` for `uringc run --vm`: the program runs in the guests of `suites` (the VM runner's
/// names; `X-7.1` pins Linux 7.1, `sid` is 7.2, `trixie-backports` 7.3), not on this kernel.
/// False with `error` when the suites have different ABIs (then the target must be named).
bool ResolveTargetKernelForSuites(const std::vector<std::string>& suites, KernelAbi& abi,
                                  std::string& error);

}  // namespace uringc::driver
