// `uringc-test`: the `uringc` driver with the test-only switches of `compile` accepted
// (`--test-break-null-check`, `--test-llvm-fatal`: a deliberately broken lowering). The tests
// build their broken objects and provoke LLVM's fatal errors with it; the product `uringc`
// refuses these switches like any unknown option.
#include "driver/compile_command.h"

int main(int argc, char** argv) {
  return uringc::driver::BackendMain(argc, argv, /*test_switches=*/true);
}
