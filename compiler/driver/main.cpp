// The `uringc` executable: the front end's driver (driver/driver.h) with the back end's
// subcommands (`compile`, `run`) registered; `run` takes its own arguments (repeated --arg).
#include <iostream>

#include "driver/compile_command.h"
#include "driver/driver.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  uringc::driver::RegisterBackendSubcommands();
  if (!args.empty() && args[0] == "run") {
    return uringc::driver::RunCompiledMain({args.begin() + 1, args.end()});
  }
  return uringc::driver::Main(args, std::cout, std::cerr);
}
