// The command line of `uringc`, parsed once by CLI11: one app with a subcommand app per row of
// the subcommand table, --help and --version, usage errors, and the dispatch (see driver.h).
#include "driver/driver.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <utility>

#include "driver/options.h"
#include "driver/subcommands.h"

namespace uringc::driver {
namespace {

constexpr const char* kDescription =
    "uringc compiles .uring request-graph programs into io_uring BPF controllers.";
constexpr const char* kFooter =
    "`uringc SUBCOMMAND --help` lists a subcommand's options and passes.\n"
    "exit status: 0 ok, 1 the input has errors, 2 usage or I/O error";

// A usage error: one line saying what is wrong, one saying where the usage is. Exit status 2.
int UsageError(std::ostream& err, const std::string& command, const std::string& message) {
  err << "uringc: error: " << message << "\nsee `" << command << " --help`\n";
  return kExitUsage;
}

// What the command line had that no option of `app` takes: `--name` (without its value), or a
// positional argument; empty when nothing. ("--" is CLI11's separator, not an argument.)
std::string FirstUnexpected(const CLI::App& app) {
  for (const std::string& arg : app.remaining()) {
    if (arg == "--") continue;
    return arg.rfind("--", 0) == 0 ? arg.substr(0, arg.find('=')) : arg;
  }
  return "";
}

}  // namespace

int Main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app(kDescription, "uringc");
  app.formatter(HelpFormatter());
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.set_version_flag("--version", std::string("uringc ") + URINGC_VERSION);
  app.require_subcommand(0, 1);
  app.allow_extras();
  app.footer(kFooter);
  std::vector<std::pair<CLI::App*, Runner>> commands;
  for (const Subcommand& s : Subcommands()) {
    CLI::App* cmd = app.add_subcommand(std::string(s.name), std::string(s.summary));
    cmd->allow_extras();
    commands.emplace_back(cmd, s.declare(*cmd));
  }
  const auto chosen = [&]() -> std::pair<CLI::App*, Runner>* {
    for (auto& c : commands) {
      if (c.first->parsed()) return &c;
    }
    return nullptr;
  };
  const auto name_of = [&](const std::pair<CLI::App*, Runner>* c) {
    return c ? "uringc " + c->first->get_name() : std::string("uringc");
  };
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them backwards
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    const auto* c = chosen();
    out << (c ? c->first->help("uringc") : app.help());
    return kExitOk;
  } catch (const CLI::CallForVersion& e) {
    out << e.what() << "\n";
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    return UsageError(err, name_of(chosen()), e.what());
  }
  auto* c = chosen();
  if (const std::string extra = FirstUnexpected(app); !extra.empty()) {
    return UsageError(err, "uringc",
                      extra[0] == '-' ? "unknown option `" + extra + "`"
                                      : "unknown subcommand `" + extra + "`");
  }
  if (c == nullptr) {
    err << app.help();
    return kExitUsage;
  }
  if (const std::string extra = FirstUnexpected(*c->first); !extra.empty()) {
    const std::string name = c->first->get_name();
    return UsageError(err, name_of(c),
                      extra[0] == '-' ? "`" + name + "` does not take `" + extra + "`"
                                      : "`" + name + "` takes one file, not also `" + extra + "`");
  }
  Io io{out, err};
  return c->second(io);
}

}  // namespace uringc::driver
