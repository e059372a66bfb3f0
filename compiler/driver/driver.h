// `uringc` as a library call: parses argv, dispatches to a subcommand (subcommands.h), returns the
// exit code. main.cpp is a one-line wrapper, so tests can run the whole tool in-process.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace uringc::driver {

/// `args` excludes argv[0]. Returns 0 (ok), 1 (errors in the input), 2 (usage or I/O error).
int Main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace uringc::driver
