// The command-line options `uringc`'s subcommands share, declared with CLI11, the one parser of
// every uringc command line. Each subcommand is its own CLI11 app, so `uringc NAME --help` lists
// its options, and `--opt=value` and `--opt value` both work. The values land in Options; a
// value that is not allowed is a usage error of the parse, before anything runs.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "uringc/diag/diagnostic.h"
#include "uringc/diag/formatter.h"
#include "driver/pipeline.h"
#include "parse/defines.h"

namespace uringc::driver {

struct Options {
  std::vector<std::string> files;  ///< `check`'s FILE...; one-file subcommands keep their own
  std::string output;      ///< -o FILE
  std::string emit;        ///< --emit=KIND; its kinds depend on the subcommand
  std::string dump_after;  ///< --dump-after=PASS
  DiagnosticsFormat diagnostics_format = DiagnosticsFormat::kText;
  size_t error_limit = DiagnosticList::kDefaultLimit;  ///< 0: no limit
  std::string stdlib;  ///< --stdlib=DIR; empty: DefaultStdlibDir()
  std::optional<std::string> program;  ///< -e PROGRAM
  std::vector<Define> defines;         ///< -D NAME=VALUE...
};

/// -e PROGRAM (also --program=PROGRAM): the program's text on the command line instead of a
/// FILE, as bpftrace's -e; FILE may also be `-`, standard input.
void AddProgramOption(CLI::App& cmd, std::optional<std::string>& program);

/// A letter or `_`, then letters, digits and `_`: a C identifier, and a name in a `.uring` file.
bool IsIdentifier(std::string_view name);

/// -D NAME=VALUE (also --define NAME=VALUE), repeatable: the value of the root module's
/// top-level `const NAME` (parse/defines.h). Without `=`, or with a NAME that is not an
/// identifier, it is a usage error.
void AddDefineOption(CLI::App& cmd, std::vector<Define>& defines);

/// "" when the command names its input once (FILE..., or -e PROGRAM, and `-` at most once),
/// else the usage error to print.
std::string CheckInputs(const std::vector<std::string>& files,
                        const std::optional<std::string>& program);

/// --diagnostics-format=text|json and --error-limit=N.
void AddDiagnosticsOptions(CLI::App& cmd, Options& opts);

/// --stdlib=DIR into `dir` (empty: DefaultStdlibDir()).
void AddStdlibOption(CLI::App& cmd, std::string& dir);

/// --emit=KIND, one of `kinds`.
void AddEmitOption(CLI::App& cmd, Options& opts, const std::vector<std::string>& kinds,
                   const std::string& description);

/// --dump-after=PASS: one of the rows of `phases` that print something. The help's footer lists
/// every row of `phases` with its description.
void AddDumpAfterOption(CLI::App& cmd, Options& opts, const std::vector<Phase>& phases);

/// -o FILE (also --output=FILE).
void AddOutputOption(CLI::App& cmd, Options& opts, const std::string& description);

/// CLI11's help layout, with a flag whose value is optional (declared `--name{}`, its
/// option_text `[=FILE]`) shown as `--name[=FILE]`. Set on the top app before its subcommands
/// are added; they inherit it.
std::shared_ptr<CLI::FormatterBase> HelpFormatter();

}  // namespace uringc::driver
