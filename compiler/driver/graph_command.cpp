// `uringc graph` (see graph_command.h): runs the front end, then writes the chosen view as DOT
// and, through `dot -Tsvg`, as SVG.
#include "driver/graph_command.h"

#include <sys/wait.h>
#include <unistd.h>

#include "driver/pipeline.h"
#include "rgir/dot.h"
#include "view/dot.h"

namespace uringc::driver {
namespace {

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
    error = WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 127
                ? "`dot` is not installed (Debian: apt-get install graphviz)"
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
  std::string view = "requests";  ///< requests | ir
  std::string format;             ///< "" (DOT on stdout and SVG if dot is there) | dot | svg
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
  const std::string dot_text =
      cmd.view == "ir" ? rgir::ToDot(*c.rgir) : view::ToDot(*c.rgir, c.sources);
  if (cmd.format == "dot") {
    if (opts.output.empty() || opts.output == "-") {
      io.out << dot_text;
      return kExitOk;
    }
    FILE* f = std::fopen(opts.output.c_str(), "w");
    if (f == nullptr || std::fwrite(dot_text.data(), 1, dot_text.size(), f) != dot_text.size()) {
      if (f) std::fclose(f);
      io.err << "uringc: error: cannot write " << opts.output << "\n";
      return kExitErrors;
    }
    std::fclose(f);
    io.err << "uringc: wrote " << opts.output << "\n";
    return kExitOk;
  }
  if (cmd.format.empty()) io.out << dot_text;
  // From standard input or -e, the SVG is named after the first graph.
  const bool named = !opts.program && cmd.file != "-";
  const std::string svg = !opts.output.empty() ? opts.output
                          : named              ? SvgPathFor(cmd.file)
                          : c.rgir->graphs.empty() ? "uringc.svg"
                                                   : c.rgir->graphs[0].name + ".svg";
  std::string error;
  if (WriteSvg(dot_text, svg, error)) {
    io.err << "uringc: wrote " << svg << "\n";
  } else if (cmd.format == "svg") {
    io.err << "uringc: error: cannot write the SVG " << svg << ": "
           << (error.empty() ? "cannot start `dot`" : error)
           << "; --format=dot prints the DOT text instead\n";
    return kExitErrors;
  } else if (!error.empty()) {
    io.err << "uringc: note: no SVG written: " << error << "\n";
  }
  return kExitOk;
}

}  // namespace

Runner DeclareGraph(CLI::App& cmd) {
  auto s = std::make_shared<GraphCommand>();
  cmd.add_option("--view", s->view,
                 "requests (default): requests, the values between them, forks, loops and "
                 "deadlines; ir: every node of the request-graph IR")
      ->type_name("VIEW")
      ->check(CLI::IsMember({"requests", "ir"}));
  cmd.add_option("--format", s->format,
                 "dot: only the DOT text (stdout, or -o FILE); svg: only the SVG (fails without "
                 "`dot`); default: DOT on stdout and the SVG when `dot` is installed")
      ->type_name("FORMAT")
      ->check(CLI::IsMember({"dot", "svg"}));
  AddOutputOption(cmd, s->opts,
                  "where the SVG goes (default: FILE's name with .svg); with --format=dot, the "
                  "DOT");
  AddDiagnosticsOptions(cmd, s->opts);
  AddStdlibOption(cmd, s->opts.stdlib);
  AddProgramOption(cmd, s->opts.program);
  cmd.add_option("FILE", s->file, "the .uring file (- for standard input)");
  return [s](Io& io) { return Graph(*s, io); };
}

}  // namespace uringc::driver
