// Argument parsing, --help/--version, and dispatch through the subcommand table (see driver.h).
#include "driver/driver.h"

#include <algorithm>

#include "driver/options.h"
#include "driver/pipeline.h"
#include "driver/subcommands.h"

namespace uringc::driver {
namespace {

void PrintHelp(std::ostream& out) {
  out << "usage: uringc <subcommand> [options] FILE...\n\n"
         "uringc compiles .uring request-graph programs into io_uring BPF controllers.\n\n"
         "subcommands:\n";
  for (const Subcommand& s : Subcommands()) {
    std::string usage(s.usage);
    out << "  " << usage << std::string(usage.size() < 34 ? 34 - usage.size() : 1, ' ')
        << s.summary << "\n";
  }
  out << "\noptions:\n"
         "  --emit=ast|rgir                   print the AST or the request-graph IR\n"
         "  --dump-after=PASS                 print the AST (or IR) after PASS and stop\n"
         "  --diagnostics-format=text|json    how errors and warnings are printed (stderr)\n"
         "  --error-limit=N                   show at most N errors and N warnings (default 50,\n"
         "                                    0: all)\n"
         "  --stdlib=DIR                      where `import std.x` looks (default: built-in)\n"
         "  -o FILE                           output file (graph: the SVG)\n"
         "  --help, --version\n\n"
         "passes (for --dump-after):\n";
  for (const Phase& p : Pipeline()) {
    std::string name(p.name);
    out << "  " << name << std::string(name.size() < 10 ? 10 - name.size() : 1, ' ')
        << p.description << "\n";
  }
  out << "\nexit status: 0 ok, 1 the input has errors, 2 usage or I/O error\n";
}

}  // namespace

int Main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Options opts;
  std::string error;
  if (!ParseCommandLine(args, opts, error)) {
    err << "uringc: error: " << error << "\n(run `uringc --help` for usage)\n";
    return kExitUsage;
  }
  if (opts.Has("version")) {
    out << "uringc " << URINGC_VERSION << "\n";
    return kExitOk;
  }
  if (opts.Has("help") || (opts.subcommand.empty() && opts.files.empty())) {
    PrintHelp(opts.Has("help") ? out : err);
    return opts.Has("help") ? kExitOk : kExitUsage;
  }
  const auto& table = Subcommands();
  auto it = std::find_if(table.begin(), table.end(),
                         [&](const Subcommand& s) { return s.name == opts.subcommand; });
  if (it == table.end()) {
    err << "uringc: error: unknown subcommand `" << opts.subcommand
        << "`\n(run `uringc --help` for the list)\n";
    return kExitUsage;
  }
  for (const auto& [name, value] : opts.flags) {
    if (name == "output" && std::find(it->flags.begin(), it->flags.end(), "o") != it->flags.end())
      continue;
    if (std::find(it->flags.begin(), it->flags.end(), name) == it->flags.end()) {
      err << "uringc: error: `" << it->name << "` does not take `--" << name << "`\n";
      return kExitUsage;
    }
  }
  if (opts.files.empty()) {
    err << "uringc: error: no input file\nusage: uringc " << it->usage << "\n";
    return kExitUsage;
  }
  Io io{out, err};
  return it->run(opts, io);
}

}  // namespace uringc::driver
