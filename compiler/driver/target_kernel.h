// `--target-kernel`: which kernel ABI variant to compile for, including `auto`, which reads the
// running kernel's BTF through the runtime's feature detection. Apart from compile_command.h and
// free of LLVM, so the kernel tests can check `auto` inside each guest of the VM matrix.
#pragma once

#include <string>

#include "emit/kernel_abi.h"

namespace uringc::driver {

/// Parses `--target-kernel` (7.1, 7.2, 7.3, auto: the running kernel's BTF). False with `error`.
bool ResolveTargetKernel(const std::string& value, KernelAbi& abi, std::string& error);

}  // namespace uringc::driver
