// The shared options of `uringc`'s subcommands (see options.h). CLI11 checks each value against
// what the option allows; the messages say what was given and what is allowed.
#include "driver/options.h"

#include <cctype>

namespace uringc::driver {
namespace {

// CLI11 shows the value a bare flag gets in braces (`--emit-header{}`) and the flag's option
// text after a space; a flag whose value is optional reads `--emit-header[=FILE]` here.
class Formatter : public CLI::Formatter {
 public:
  std::string make_option_name(const CLI::Option* opt, bool positional) const override {
    std::string name = CLI::Formatter::make_option_name(opt, positional);
    if (const size_t braces = name.find("{}"); braces != std::string::npos) {
      name.replace(braces, 2, opt->get_option_text());
    }
    return name;
  }
  std::string make_option_opts(const CLI::Option* opt) const override {
    return HasOptionalValue(opt) ? "" : CLI::Formatter::make_option_opts(opt);
  }

 private:
  static bool HasOptionalValue(const CLI::Option* opt) {
    return opt->get_name(false, true).find("{}") != std::string::npos;
  }
};

}  // namespace

void AddDiagnosticsOptions(CLI::App& cmd, Options& opts) {
  cmd.add_option_function<std::string>(
         "--diagnostics-format",
         [&opts](const std::string& format) {
           opts.diagnostics_format =
               format == "json" ? DiagnosticsFormat::kJson : DiagnosticsFormat::kText;
         },
         "how errors and warnings are printed on stderr (default text)")
      ->check(CLI::IsMember({"text", "json"}));
  cmd.add_option_function<std::string>(
         "--error-limit",
         [&opts](const std::string& n) { opts.error_limit = std::stoul(n); },
         "show at most N errors and N warnings (default 50, 0: all)")
      ->type_name("N")
      ->check(CLI::Validator(
          [](const std::string& n) -> std::string {
            const bool digits = !n.empty() && n.size() <= 9 &&
                                n.find_first_not_of("0123456789") == std::string::npos;
            return digits ? "" : "takes a number (0 for no limit), not `" + n + "`";
          },
          ""));
}

void AddStdlibOption(CLI::App& cmd, std::string& dir) {
  cmd.add_option("--stdlib", dir, "where `import std.x` looks (default: built-in)")
      ->type_name("DIR");
}

void AddEmitOption(CLI::App& cmd, Options& opts, const std::vector<std::string>& kinds,
                   const std::string& description) {
  cmd.add_option("--emit", opts.emit, description)->type_name("KIND")->check(CLI::IsMember(kinds));
}

void AddDumpAfterOption(CLI::App& cmd, Options& opts, const std::vector<Phase>& phases) {
  cmd.add_option("--dump-after", opts.dump_after,
                 "print the AST, rgir or LLVM IR after PASS and stop")
      ->type_name("PASS")
      ->check(CLI::Validator(
          [&phases](const std::string& name) -> std::string {
            const Phase* p = FindPhase(phases, name);
            if (p == nullptr) return "no pass called `" + name + "`";
            if (p->dump == nullptr) return "`" + name + "` prints nothing: its output is the file";
            return "";
          },
          ""));
  std::string footer = "passes (for --dump-after):\n";
  for (const Phase& p : phases) {
    const std::string name(p.name);
    footer += "  " + name + std::string(name.size() < 10 ? 10 - name.size() : 1, ' ') +
              std::string(p.description) + "\n";
  }
  cmd.footer(footer);
}

void AddOutputOption(CLI::App& cmd, Options& opts, const std::string& description) {
  cmd.add_option("-o,--output", opts.output, description)->type_name("FILE");
}

void AddProgramOption(CLI::App& cmd, std::optional<std::string>& program) {
  cmd.add_option_function<std::string>(
         "-e,--program", [&program](const std::string& text) { program = text; },
         "the program's text instead of FILE (FILE may also be -, standard input)")
      ->type_name("PROGRAM");
}

bool IsIdentifier(std::string_view name) {
  bool ok = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
  for (char ch : name) ok = ok && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_');
  return ok;
}

void AddDefineOption(CLI::App& cmd, std::vector<Define>& defines) {
  cmd.add_option_function<std::vector<std::string>>(
         "-D,--define",
         [&defines](const std::vector<std::string>& options) {
           for (const std::string& d : options) {
             const size_t eq = d.find('=');
             defines.push_back({d.substr(0, eq), d.substr(eq + 1)});
           }
         },
         "give the program's top-level `const NAME` the value VALUE (source text, e.g. 64 or "
         "\"512 KiB\"); repeatable")
      ->type_name("NAME=VALUE")
      ->allow_extra_args(false)
      ->check(CLI::Validator(
          [](const std::string& d) -> std::string {
            const size_t eq = d.find('=');
            if (eq == std::string::npos) return "`" + d + "` is not NAME=VALUE";
            const std::string name = d.substr(0, eq);
            if (name.empty()) return "`" + d + "` has no NAME before `=`";
            return IsIdentifier(name) ? ""
                                      : "`" + name + "` in `" + d + "` is not a constant's name";
          },
          ""));
}

std::string CheckInputs(const std::vector<std::string>& files,
                        const std::optional<std::string>& program) {
  if (program && !files.empty()) return "give FILE or -e PROGRAM, not both";
  if (!program && files.empty()) return "no input: name a FILE, - for standard input, or -e PROGRAM";
  size_t stdin_uses = 0;
  for (const std::string& f : files) stdin_uses += f == "-";
  if (stdin_uses > 1) return "standard input (-) can be read only once";
  return "";
}

std::shared_ptr<CLI::FormatterBase> HelpFormatter() { return std::make_shared<Formatter>(); }

}  // namespace uringc::driver
