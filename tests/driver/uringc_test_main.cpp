// `uringc-test`: the `uringc` driver with the test-only switches of `compile` accepted
// (`--test-break-null-check`, `--test-llvm-fatal`: a deliberately broken lowering). The tests
// build their broken objects and provoke LLVM's fatal errors with it; the product `uringc`
// refuses these switches like any unknown option.
#include <iostream>

#include "driver/compile_command.h"
#include "driver/driver.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  uringc::driver::RegisterBackendSubcommands(/*test_switches=*/true);
  if (!args.empty() && args[0] == "run") {
    return uringc::driver::RunCompiledMain({args.begin() + 1, args.end()});
  }
  return uringc::driver::Main(args, std::cout, std::cerr);
}
