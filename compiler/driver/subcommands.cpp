// The subcommand `check`, and the table that lists the subcommands (see subcommands.h;
// `graph` is in graph_command.cpp).
#include "driver/subcommands.h"

#include "uringc/diag/formatter.h"
#include "driver/graph_command.h"
#include "driver/pipeline.h"

namespace uringc::driver {

int CheckInputsOrSay(const std::vector<std::string>& files,
                     const std::optional<std::string>& program, Io& io) {
  const std::string error = CheckInputs(files, program);
  if (error.empty()) return kExitOk;
  io.err << "uringc: error: " << error << "\n";
  return kExitUsage;
}

bool LoadCompilation(const Options& opts, const std::string& file, Compilation& c, Io& io) {
  c.diagnostics.set_limit(opts.error_limit);
  c.options.stdlib_dir = opts.stdlib.empty() ? DefaultStdlibDir() : opts.stdlib;
  c.options.program = opts.program;
  c.options.defines = opts.defines;
  std::string error;
  if (!c.LoadRoot(file, error)) {
    io.err << "uringc: error: " << error << "\n";
    return false;
  }
  return true;
}

namespace {

bool json_started = false;

}  // namespace

void PrintDiagnostics(DiagnosticsFormat format, const Compilation& c, Io& io) {
  const auto& items = c.diagnostics.items();
  if (format == DiagnosticsFormat::kJson) {
    // FormatJson renders "[\n{..},\n{..}\n]\n"; splice the objects into one array for all files.
    std::string body = FormatJson(items, c.sources);
    if (items.empty()) return;
    body = body.substr(2, body.size() - 5);
    io.err << (json_started ? ",\n" : "[\n") << body;
    json_started = true;
    return;
  }
  for (const Diagnostic& d : items) io.err << FormatText(d, c.sources);
  const size_t warnings = c.diagnostics.WarningCount();
  const size_t errors = c.diagnostics.ErrorCount();
  if (errors || warnings) {
    io.err << (errors ? std::to_string(errors) + (errors == 1 ? " error" : " errors") : "")
           << (errors && warnings ? " and " : "")
           << (warnings ? std::to_string(warnings) + (warnings == 1 ? " warning" : " warnings")
                        : "")
           << " generated.\n";
  }
}

void FinishDiagnostics(DiagnosticsFormat format, Io& io) {
  if (format != DiagnosticsFormat::kJson) return;
  io.err << (json_started ? "\n]\n" : "[]\n");
  json_started = false;
}

namespace {

int Check(const Options& opts, Io& io) {
  if (int s = CheckInputsOrSay(opts.files, opts.program, io); s != kExitOk) return s;
  const std::vector<std::string> inputs =
      opts.program ? std::vector<std::string>{kProgramName} : opts.files;
  int status = kExitOk;
  for (const std::string& file : inputs) {
    Compilation c;
    if (!LoadCompilation(opts, file, c, io)) {
      status = kExitUsage;
      continue;
    }
    const std::string& dump_after = opts.dump_after;
    // Through `build`, whose limits (GraphTooLarge, TooManyTasks, nesting once inlined) are
    // errors `compile` would report too.
    RunPipeline(c, FrontendPhases(), dump_after, [&](const Phase& p) {
      if (p.name == dump_after) p.dump(c, io.out);
    });
    if (dump_after.empty() && opts.emit == "ast") DumpAst(c, io.out);
    if (dump_after.empty() && opts.emit == "rgir") DumpRgir(c, io.out);
    PrintDiagnostics(opts.diagnostics_format, c, io);
    if (c.diagnostics.HasErrors() && status == kExitOk) status = kExitErrors;
  }
  FinishDiagnostics(opts.diagnostics_format, io);
  return status;
}

Runner DeclareCheck(CLI::App& cmd) {
  auto opts = std::make_shared<Options>();
  AddEmitOption(cmd, *opts, {"ast", "rgir"}, "print the AST or the request-graph IR (stdout)");
  AddDumpAfterOption(cmd, *opts, FrontendPhases());
  AddDiagnosticsOptions(cmd, *opts);
  AddStdlibOption(cmd, opts->stdlib);
  AddProgramOption(cmd, opts->program);
  AddDefineOption(cmd, opts->defines);
  cmd.add_option("FILE", opts->files, "the .uring files to check (- for standard input)");
  return [opts](Io& io) { return Check(*opts, io); };
}

}  // namespace

static std::vector<Subcommand>& Table() {
  static std::vector<Subcommand> kTable = {
      {"check", "parse and check; print diagnostics", DeclareCheck},
      {"graph", "draw the requests (or --view=ir) as DOT; write SVG via dot", DeclareGraph},
  };
  return kTable;
}

const std::vector<Subcommand>& Subcommands() { return Table(); }

void AddSubcommand(const Subcommand& s) { Table().push_back(s); }

}  // namespace uringc::driver
