// argv -> Options (see options.h). Knows no subcommand: validation happens in subcommands.cpp.
#include "driver/options.h"

namespace uringc::driver {

bool ParseCommandLine(const std::vector<std::string>& args, Options& out, std::string& error) {
  bool only_files = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (only_files || a.empty() || a[0] != '-' || a == "-") {
      if (out.subcommand.empty() && !only_files) {
        out.subcommand = a;
      } else {
        out.files.push_back(a);
      }
      continue;
    }
    if (a == "--") {
      only_files = true;
      continue;
    }
    if (a == "-o") {
      if (i + 1 >= args.size()) {
        error = "`-o` needs a file name";
        return false;
      }
      out.flags["output"] = args[++i];
      continue;
    }
    if (a == "-O0" || a == "-O2") {
      out.flags["opt"] = a.substr(2);
      continue;
    }
    if (a == "-h") {
      out.flags["help"] = "";
      continue;
    }
    if (a.rfind("--", 0) != 0) {
      error = "unknown option `" + a + "`";
      return false;
    }
    const size_t eq = a.find('=');
    const std::string name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    if (name.empty()) {
      error = "malformed option `" + a + "`";
      return false;
    }
    out.flags[name] = eq == std::string::npos ? "" : a.substr(eq + 1);
  }
  return true;
}

}  // namespace uringc::driver
