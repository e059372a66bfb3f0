// The subcommands `check` and `graph`, and the table that lists them (see subcommands.h).
#include "driver/subcommands.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "uringc/diag/formatter.h"
#include "driver/pipeline.h"
#include "rgir/dot.h"

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
  cmd.add_option("FILE", opts->files, "the .uring files to check (- for standard input)");
  return [opts](Io& io) { return Check(*opts, io); };
}

// Pipes `dot_text` through `dot -Tsvg -o svg_path`. False when dot is missing or fails.
bool WriteSvg(const std::string& dot_text, const std::string& svg_path, std::string& error) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    dup2(fds[0], 0);
    close(fds[0]);
    close(fds[1]);
    execlp("dot", "dot", "-Tsvg", "-o", svg_path.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[0]);
  size_t off = 0;
  while (off < dot_text.size()) {
    ssize_t n = write(fds[1], dot_text.data() + off, dot_text.size() - off);
    if (n <= 0) break;
    off += static_cast<size_t>(n);
  }
  close(fds[1]);
  int wstatus = 0;
  waitpid(pid, &wstatus, 0);
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
    error = WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 127 ? "`dot` is not installed"
                                                               : "`dot` failed";
    return false;
  }
  return true;
}

std::string SvgPathFor(const std::string& input) {
  std::string base = input.substr(input.find_last_of('/') + 1);
  if (size_t dot = base.rfind(".uring"); dot != std::string::npos && dot + 6 == base.size())
    base.resize(dot);
  return base + ".svg";
}

struct GraphCommand {
  Options opts;
  std::string file;
};

int Graph(const GraphCommand& cmd, Io& io) {
  const Options& opts = cmd.opts;
  const std::vector<std::string> files =
      cmd.file.empty() ? std::vector<std::string>{} : std::vector<std::string>{cmd.file};
  if (int s = CheckInputsOrSay(files, opts.program, io); s != kExitOk) return s;
  Compilation c;
  if (!LoadCompilation(opts, cmd.file, c, io)) return kExitUsage;
  RunPipeline(c, FrontendPhases(), "");
  PrintDiagnostics(opts.diagnostics_format, c, io);
  FinishDiagnostics(opts.diagnostics_format, io);
  if (c.diagnostics.HasErrors() || !c.rgir) return kExitErrors;
  const std::string dot_text = rgir::ToDot(*c.rgir);
  io.out << dot_text;
  // From standard input or -e, the SVG is named after the first graph.
  const bool named = !opts.program && cmd.file != "-";
  const std::string svg = !opts.output.empty() ? opts.output
                          : named              ? SvgPathFor(cmd.file)
                          : c.rgir->graphs.empty() ? "uringc.svg"
                                                   : c.rgir->graphs[0].name + ".svg";
  std::string error;
  if (WriteSvg(dot_text, svg, error)) {
    io.err << "uringc: wrote " << svg << "\n";
  } else if (!error.empty()) {
    io.err << "uringc: note: no SVG written: " << error << "\n";
  }
  return kExitOk;
}

Runner DeclareGraph(CLI::App& cmd) {
  auto s = std::make_shared<GraphCommand>();
  AddOutputOption(cmd, s->opts, "where the SVG goes (default: FILE's name with .svg)");
  AddDiagnosticsOptions(cmd, s->opts);
  AddStdlibOption(cmd, s->opts.stdlib);
  AddProgramOption(cmd, s->opts.program);
  cmd.add_option("FILE", s->file, "the .uring file (- for standard input)");
  return [s](Io& io) { return Graph(*s, io); };
}

}  // namespace

static std::vector<Subcommand>& Table() {
  static std::vector<Subcommand> kTable = {
      {"check", "parse and check; print diagnostics", DeclareCheck},
      {"graph", "print the request graph as DOT; write SVG via dot", DeclareGraph},
  };
  return kTable;
}

const std::vector<Subcommand>& Subcommands() { return Table(); }

void AddSubcommand(const Subcommand& s) { Table().push_back(s); }

}  // namespace uringc::driver
