// The `uringc` executable: the front end's driver (driver/driver.h) with the back end's
// subcommands (`compile`, `run`) registered.
#include "driver/compile_command.h"

int main(int argc, char** argv) {
  return uringc::driver::BackendMain(argc, argv, /*test_switches=*/false);
}
