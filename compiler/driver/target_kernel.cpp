// `--target-kernel` values, `auto` included (see target_kernel.h).
#include "driver/target_kernel.h"

#include "uringc/features.h"

namespace uringc::driver {

std::string TargetKernelValues() {
  std::string values;
  for (const KernelVersion& k : kKernelVersions) values += std::string(k.version) + ", ";
  values.resize(values.size() - 2);
  return values + " or auto";
}

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
    error = "--target-kernel is " + TargetKernelValues() + ", not `" + value + "`";
    return false;
  }
  abi = *parsed;
  return true;
}

bool ResolveTargetKernelForSuites(const std::vector<std::string>& suites, KernelAbi& abi,
                                  std::string& error) {
  auto of = [](const std::string& suite) {
    const std::string pin = "-7.1";
    const bool is_71 = suite.size() > pin.size() &&
                       suite.compare(suite.size() - pin.size(), pin.size(), pin) == 0;
    return is_71 ? KernelAbi::kLinux7_1 : KernelAbi::kLinux7_2;
  };
  abi = of(suites.empty() ? "sid" : suites[0]);
  for (const std::string& s : suites) {
    if (of(s) != abi) {
      error = "--target-kernel=auto: the suites run kernels of different ABIs (7.1 and 7.2+); "
              "name one with --target-kernel=7.1|7.2";
      return false;
    }
  }
  return true;
}

}  // namespace uringc::driver
