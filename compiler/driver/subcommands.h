// The table of `uringc` subcommands. To add one (e.g. `compile`, `run`), write a function with
// the Subcommand::run signature and add a row in subcommands.cpp; `uringc --help` lists it and
// the dispatcher in driver.cpp finds it. Helpers shared by subcommands are declared here too.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "driver/compilation.h"
#include "driver/options.h"

namespace uringc::driver {

/// Exit codes of every subcommand.
enum ExitCode : int { kExitOk = 0, kExitErrors = 1, kExitUsage = 2 };

struct Io {
  std::ostream& out;
  std::ostream& err;
};

struct Subcommand {
  std::string_view name;
  std::string_view usage;    ///< "check [options] FILE..."
  std::string_view summary;  ///< one line for --help
  std::vector<std::string_view> flags;  ///< accepted --flags (without dashes)
  int (*run)(const Options&, Io&);
};

const std::vector<Subcommand>& Subcommands();
/// Adds a subcommand defined outside uringc_frontend (the back end's `compile`, `run`), before
/// Main runs.
void AddSubcommand(const Subcommand& s);

// ----- helpers for subcommands -----

/// Flags every front-end subcommand accepts.
extern const std::vector<std::string_view> kFrontendFlags;

/// Sets how many errors (and warnings) `c` keeps and prints from --error-limit=N (default
/// DiagnosticList::kDefaultLimit, 0 for no limit). False, printed, when N is not a number.
bool ApplyErrorLimit(const Options& opts, Compilation& c, Io& io);

/// Builds a Compilation from the options (--stdlib) and loads `file`; on an I/O error prints
/// it and returns false.
bool LoadCompilation(const Options& opts, const std::string& file, Compilation& c, Io& io);

/// Prints the diagnostics of `c` to io.err in the format --diagnostics-format asks for. For
/// JSON, `first` says whether this is the first file (one array spans all files).
void PrintDiagnostics(const Options& opts, const Compilation& c, Io& io);

/// Called once after all files when --diagnostics-format=json, to close the array.
void FinishDiagnostics(const Options& opts, Io& io);

}  // namespace uringc::driver
