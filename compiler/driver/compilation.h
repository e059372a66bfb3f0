// One run of the front end over one root file: the sources, the diagnostics, the modules (root
// plus imports, parsed and checked) and, once lowered, the request-graph IR. Subcommands build a
// Compilation, run the pipeline (pipeline.h) over it, and print what they need from it; code
// generation consumes `rgir`.
#pragma once

#include <memory>
#include <string>

#include "diag/diagnostic.h"
#include "parse/parser.h"
#include "rgir/rgir.h"
#include "sema/program.h"
#include "source/source_file.h"

namespace uringc::driver {

struct FrontendOptions {
  /// Where `import std.x` looks first (the stdlib/ directory of the source tree by default).
  std::string stdlib_dir;
  ParseOptions parse;
};

/// The default stdlib directory: $URINGC_STDLIB, else the one this build was configured with.
std::string DefaultStdlibDir();

struct Compilation {
  FrontendOptions options;
  SourceManager sources;
  DiagnosticList diagnostics;
  sema::Program program;
  std::unique_ptr<rgir::Module> rgir;

  /// Reads `path` as the root module (not yet parsed). False with `io_error` set when the file
  /// cannot be read: that is a usage/I-O failure (exit code 2), not a diagnostic.
  bool LoadRoot(const std::string& path, std::string& io_error);
};

}  // namespace uringc::driver
