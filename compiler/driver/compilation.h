// One run of the compiler over one root file: the sources, the diagnostics, the modules (root
// plus imports, parsed and checked), once built the request-graph IR, and what the back end's
// rows keep. Subcommands build a Compilation, run the pipeline (pipeline.h) over it, and print
// what they need from it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "uringc/diag/diagnostic.h"
#include "parse/defines.h"
#include "parse/parser.h"
#include "rgir/rgir.h"
#include "sema/program.h"
#include "uringc/source_file.h"

namespace uringc::driver {

struct FrontendOptions {
  /// Where `import std.x` looks first (the stdlib/ directory of the source tree by default).
  std::string stdlib_dir;
  ParseOptions parse;
  /// `-e PROGRAM`: the root module's text, instead of a file's.
  std::optional<std::string> program;
  /// -D NAME=VALUE: values for the root module's top-level constants (parse/defines.h).
  std::vector<Define> defines;
};

/// The root module's name in diagnostics when it comes from `-` or `-e` (as GCC names them);
/// imports beside it are looked for in the current directory.
inline constexpr const char* kStdinName = "<stdin>";
inline constexpr const char* kProgramName = "<command-line>";

/// The default stdlib directory: $URINGC_STDLIB, else the installed one beside the executable
/// (share/uringc/stdlib), else the source tree's.
std::string DefaultStdlibDir();

/// The back end's part of a Compilation (the chosen graph, the LLVM module, the output): defined
/// in backend_phases.h, beside LLVM, so this library stays free of it.
struct BackendState {
  virtual ~BackendState() = default;
};

struct Compilation {
  FrontendOptions options;
  SourceManager sources;
  DiagnosticList diagnostics;
  sema::Program program;
  std::unique_ptr<rgir::Module> rgir;
  /// Set by the back end before its rows run; empty when only the front end runs.
  std::unique_ptr<BackendState> backend;

  /// Reads `path` as the root module (not yet parsed): standard input when it is `-`, and
  /// options.program instead of any file when that is set. False with `io_error` set when the
  /// input cannot be read: that is a usage/I-O failure (exit code 2), not a diagnostic.
  bool LoadRoot(const std::string& path, std::string& io_error);
  /// Makes `text` the root module, named `name` (imports beside it are looked for next to that
  /// path): what LoadRoot does once it has the text, and what the language server does with an
  /// editor's unsaved buffer.
  void SetRoot(const std::string& name, std::string text);
};

}  // namespace uringc::driver
