// The table of `uringc` subcommands. To add one, write a function that declares its options on
// its own CLI11 app and returns what runs it, and add a row in subcommands.cpp (a subcommand of
// the back end, like `compile` and `run`, is added with AddSubcommand); `uringc --help` lists it
// and the driver (driver.h) dispatches to it. Helpers shared by subcommands are declared here too.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "diag/exit_status.h"
#include "uringc/diag/formatter.h"
#include "driver/compilation.h"
#include "driver/options.h"

namespace uringc::driver {

struct Io {
  std::ostream& out;
  std::ostream& err;
};

/// What runs a subcommand once its command line has parsed; returns the exit status.
using Runner = std::function<int(Io&)>;

struct Subcommand {
  std::string_view name;
  std::string_view summary;  ///< one line for `uringc --help`
  /// Declares the subcommand's options and positionals on `cmd` (its own CLI11 app, so
  /// `uringc NAME --help` lists them), bound to state that the returned Runner owns.
  std::function<Runner(CLI::App& cmd)> declare;
};

const std::vector<Subcommand>& Subcommands();
/// Adds a subcommand defined outside uringc_driver (the back end's `compile`, `run`), before
/// Main runs.
void AddSubcommand(const Subcommand& s);

// ----- helpers for subcommands -----

/// Prints the usage error of a command line whose input is missing or named twice (CheckInputs)
/// and returns kExitUsage; kExitOk when the input is right.
int CheckInputsOrSay(const std::vector<std::string>& files,
                     const std::optional<std::string>& program, Io& io);

/// Builds a Compilation from the options (--stdlib, --error-limit, -e) and loads `file`; on an I/O
/// error prints it and returns false.
bool LoadCompilation(const Options& opts, const std::string& file, Compilation& c, Io& io);

/// Prints the diagnostics of `c` to io.err in `format`. For JSON, one array spans every
/// compilation printed until FinishDiagnostics.
void PrintDiagnostics(DiagnosticsFormat format, const Compilation& c, Io& io);

/// Called once after the last PrintDiagnostics; for JSON it closes the array.
void FinishDiagnostics(DiagnosticsFormat format, Io& io);

}  // namespace uringc::driver
