// Command-line options of `uringc`, parsed once for every subcommand: `--name=value` flags,
// `-o FILE`, and positional input files. Each subcommand says which flags it accepts.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace uringc::driver {

struct Options {
  std::string subcommand;
  std::vector<std::string> files;
  std::map<std::string, std::string> flags;  ///< "--emit=ast" -> {"emit", "ast"}; "--help" -> {"help", ""}

  bool Has(const std::string& name) const { return flags.count(name) != 0; }
  std::string Get(const std::string& name, const std::string& fallback = "") const {
    auto it = flags.find(name);
    return it == flags.end() ? fallback : it->second;
  }
};

/// Parses argv (without argv[0]). `-o X` becomes flag "output". Returns false with `error` set
/// on malformed input (an empty flag name, `-o` without a value, an unknown short option).
bool ParseCommandLine(const std::vector<std::string>& args, Options& out, std::string& error);

}  // namespace uringc::driver
