// The `uringc` executable: everything happens in the uringc_frontend library (driver/driver.h).
#include <iostream>

#include "driver/driver.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return uringc::driver::Main(args, std::cout, std::cerr);
}
