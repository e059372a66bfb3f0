// The subcommands `check` and `graph`, and the table that lists them (see subcommands.h).
#include "driver/subcommands.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "ast/printer.h"
#include "diag/formatter.h"
#include "driver/pipeline.h"
#include "rgir/dot.h"
#include "rgir/printer.h"

namespace uringc::driver {

const std::vector<std::string_view> kFrontendFlags = {"emit", "dump-after", "diagnostics-format",
                                                      "stdlib", "error-limit"};

bool ApplyErrorLimit(const Options& opts, Compilation& c, Io& io) {
  if (!opts.Has("error-limit")) return true;
  const std::string text = opts.Get("error-limit");
  size_t limit = 0;
  const bool digits = !text.empty() && text.size() <= 9 &&
                      text.find_first_not_of("0123456789") == std::string::npos;
  if (digits) limit = std::stoul(text);
  if (!digits) {
    io.err << "uringc: error: `--error-limit` takes a number (0 for no limit), not `" << text
           << "`\n";
    return false;
  }
  c.diagnostics.set_limit(limit);
  return true;
}

bool LoadCompilation(const Options& opts, const std::string& file, Compilation& c, Io& io) {
  if (!ApplyErrorLimit(opts, c, io)) return false;
  c.options.stdlib_dir = opts.Get("stdlib", DefaultStdlibDir());
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

void PrintDiagnostics(const Options& opts, const Compilation& c, Io& io) {
  const auto& items = c.diagnostics.items();
  if (opts.Get("diagnostics-format", "text") == "json") {
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

void FinishDiagnostics(const Options& opts, Io& io) {
  if (opts.Get("diagnostics-format", "text") != "json") return;
  io.err << (json_started ? "\n]\n" : "[]\n");
  json_started = false;
}

namespace {

// Checks the common flags' values; prints the problem and returns false when one is bad.
bool ValidateFrontendFlags(const Options& opts, Io& io) {
  const std::string fmt = opts.Get("diagnostics-format", "text");
  if (fmt != "text" && fmt != "json") {
    io.err << "uringc: error: `--diagnostics-format` is `text` or `json`, not `" << fmt << "`\n";
    return false;
  }
  const std::string emit = opts.Get("emit", "");
  if (opts.Has("emit") && emit != "ast" && emit != "rgir") {
    io.err << "uringc: error: `--emit` is `ast` or `rgir`, not `" << emit << "`\n";
    return false;
  }
  if (opts.Has("dump-after") && FindPhase(opts.Get("dump-after")) == nullptr) {
    io.err << "uringc: error: no pass called `" << opts.Get("dump-after")
           << "` (run `uringc --help` for the list)\n";
    return false;
  }
  return true;
}

void Dump(const Compilation& c, Phase::Dump what, Io& io) {
  if (what == Phase::Dump::kRgir) {
    if (c.rgir) io.out << rgir::Print(*c.rgir);
    return;
  }
  for (const sema::Module& m : c.program.modules) {
    if (!m.ast) continue;
    if (c.program.modules.size() > 1) io.out << "// module " << (m.name.empty() ? m.path : m.name) << "\n";
    io.out << ast::PrintAst(*m.ast, c.sources);
  }
}

int Check(const Options& opts, Io& io) {
  if (!ValidateFrontendFlags(opts, io)) return kExitUsage;
  int status = kExitOk;
  for (const std::string& file : opts.files) {
    Compilation c;
    if (!LoadCompilation(opts, file, c, io)) {
      status = kExitUsage;
      continue;
    }
    const std::string dump_after = opts.Get("dump-after");
    const std::string emit = opts.Get("emit");
    // Through `lower`, whose limits (GraphTooLarge, TooManyTasks, nesting once inlined) are
    // errors `compile` would report too.
    RunPipeline(c, dump_after.empty() ? "" : dump_after,
                [&](const Phase& p) {
                  if (p.name == dump_after) Dump(c, p.dump, io);
                });
    if (dump_after.empty() && emit == "ast") Dump(c, Phase::Dump::kAst, io);
    if (dump_after.empty() && emit == "rgir") Dump(c, Phase::Dump::kRgir, io);
    PrintDiagnostics(opts, c, io);
    if (c.diagnostics.HasErrors() && status == kExitOk) status = kExitErrors;
  }
  FinishDiagnostics(opts, io);
  return status;
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

int Graph(const Options& opts, Io& io) {
  if (!ValidateFrontendFlags(opts, io)) return kExitUsage;
  if (opts.files.size() != 1) {
    io.err << "uringc: error: `graph` takes one file\n";
    return kExitUsage;
  }
  Compilation c;
  if (!LoadCompilation(opts, opts.files[0], c, io)) return kExitUsage;
  RunPipeline(c, "");
  PrintDiagnostics(opts, c, io);
  FinishDiagnostics(opts, io);
  if (c.diagnostics.HasErrors() || !c.rgir) return kExitErrors;
  const std::string dot_text = rgir::ToDot(*c.rgir);
  io.out << dot_text;
  const std::string svg = opts.Get("output", SvgPathFor(opts.files[0]));
  std::string error;
  if (WriteSvg(dot_text, svg, error)) {
    io.err << "uringc: wrote " << svg << "\n";
  } else if (!error.empty()) {
    io.err << "uringc: note: no SVG written: " << error << "\n";
  }
  return kExitOk;
}

std::vector<std::string_view> WithOutput(std::vector<std::string_view> v) {
  v.push_back("o");
  return v;
}

}  // namespace

static std::vector<Subcommand>& Table() {
  static std::vector<Subcommand> kTable = {
      {"check", "check [options] FILE...", "parse and check; print diagnostics", kFrontendFlags,
       Check},
      {"graph", "graph [-o FILE.svg] FILE", "print the request graph as DOT; write SVG via dot",
       WithOutput(kFrontendFlags), Graph},
  };
  return kTable;
}

const std::vector<Subcommand>& Subcommands() { return Table(); }

void AddSubcommand(const Subcommand& s) { Table().push_back(s); }

}  // namespace uringc::driver
