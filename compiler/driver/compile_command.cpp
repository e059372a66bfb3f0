// `uringc compile`: front end, rgir lowering (compiler/lower), codegen; the C header
// (--emit-header, driver/c_header.h) and the subcommand registration. See compile_command.h.
#include "driver/compile_command.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "driver/c_header.h"
#include "driver/pipeline.h"
#include "lower/lower.h"

namespace uringc::driver {
namespace {

int Compile(const Options& opts, Io& io) {
  if (opts.files.size() != 1) {
    io.err << "uringc: error: `compile` takes one file\n";
    return kExitUsage;
  }
  CompileRequest req;
  req.file = opts.files[0];
  req.graph = opts.Get("graph");
  const std::string emit = opts.Get("emit", "obj");
  if (emit == "obj") {
    req.codegen.emit = EmitKind::kObj;
  } else if (emit == "asm") {
    req.codegen.emit = EmitKind::kAsm;
  } else if (emit == "llvm") {
    req.codegen.emit = EmitKind::kLlvm;
  } else {
    io.err << "uringc: error: `--emit` is `obj`, `asm` or `llvm` for compile, not `" << emit
           << "`\n";
    return kExitUsage;
  }
  const std::string opt = opts.Get("opt", "2");
  if (opt != "0" && opt != "2") {
    io.err << "uringc: error: the optimisation level is -O0 or -O2\n";
    return kExitUsage;
  }
  req.codegen.opt = opt == "0" ? OptLevel::kO0 : OptLevel::kO2;
  std::string error;
  const std::string target = opts.Get("target-kernel", std::string(kDefaultTargetKernel));
  if (!ResolveTargetKernel(target, req.abi, error)) {
    io.err << "uringc: error: " << error << "\n";
    return kExitUsage;
  }
  req.break_region_null_check = opts.Has("test-break-null-check");
  req.break_instruction_selection = opts.Has("test-llvm-fatal");
  Compilation c;
  if (!ApplyErrorLimit(opts, c, io)) return kExitUsage;
  c.options.stdlib_dir = opts.Get("stdlib", DefaultStdlibDir());
  std::string io_error, graph, header;
  auto out = CompileFile(req, c, io_error, &graph, opts.Has("emit-header") ? &header : nullptr);
  if (!io_error.empty()) {
    io.err << "uringc: error: " << io_error << "\n";
    return kExitUsage;
  }
  PrintDiagnostics(opts, c, io);
  FinishDiagnostics(opts, io);
  if (!out) return kExitErrors;
  std::string path = opts.Get("output");
  if (path.empty()) {
    path = graph + (req.codegen.emit == EmitKind::kObj   ? ".bpf.o"
                    : req.codegen.emit == EmitKind::kAsm ? ".s"
                                                         : ".ll");
  }
  auto write = [&](const std::string& p, const std::string& bytes) {
    if (p == "-") {
      io.out << bytes;
      return true;
    }
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.close();  // bytes still buffered are written here; a failure there counts too
    if (!f) {
      io.err << "uringc: error: cannot write `" << p << "`\n";
      return false;
    }
    return true;
  };
  if (!write(path, *out)) return kExitUsage;
  if (opts.Has("emit-header")) {
    std::string hpath = opts.Get("emit-header");
    if (hpath.empty()) {
      hpath = path;
      for (const char* ext : {".bpf.o", ".o", ".s", ".ll"}) {
        const std::string e = ext;
        if (hpath.size() > e.size() && hpath.compare(hpath.size() - e.size(), e.size(), e) == 0) {
          hpath.resize(hpath.size() - e.size());
          break;
        }
      }
      hpath += ".h";
    }
    if (!write(hpath, header)) return kExitUsage;
  }
  return kExitOk;
}

}  // namespace

std::optional<std::string> CompileFile(const CompileRequest& req, Compilation& c,
                                       std::string& io_error, std::string* graph_name,
                                       std::string* header) {
  if (c.options.stdlib_dir.empty()) c.options.stdlib_dir = DefaultStdlibDir();
  if (!c.LoadRoot(req.file, io_error)) return std::nullopt;
  RunPipeline(c, "");
  if (c.diagnostics.HasErrors() || !c.rgir) return std::nullopt;
  const rgir::Graph* g = nullptr;
  // Choosing the graph is a command-line matter (exit status 2), not a diagnostic.
  if (req.graph.empty()) {
    if (c.rgir->graphs.size() != 1) {
      io_error = c.rgir->graphs.empty()
                     ? "`" + req.file + "` declares no `graph` to compile"
                     : "`" + req.file + "` declares " + std::to_string(c.rgir->graphs.size()) +
                           " graphs; choose one with --graph=NAME";
      return std::nullopt;
    }
    g = &c.rgir->graphs[0];
  } else {
    for (const rgir::Graph& x : c.rgir->graphs) {
      if (x.name == req.graph) g = &x;
    }
    if (g == nullptr) {
      io_error = "`" + req.file + "` has no graph called `" + req.graph + "`";
      return std::nullopt;
    }
  }
  if (graph_name) *graph_name = g->name;
  if (header) *header = CHeader(*g, req.file);
  return CompileGraph(*g, req, c);
}

std::optional<std::string> CompileGraph(const rgir::Graph& g, const CompileRequest& req,
                                        Compilation& c) {
  BpfModule module(BpfModuleOptions{.name = g.name,
                                    .sources = &c.sources,
                                    .main_file = g.range.file,
                                    .abi = req.abi,
                                    .optimized = req.codegen.opt != OptLevel::kO0});
  GraphLoweringOptions lo;
  lo.break_region_null_check = req.break_region_null_check;
  lo.break_instruction_selection = req.break_instruction_selection;
  if (!LowerGraphToBpf(g, module, lo, c.diagnostics)) return std::nullopt;
  return Codegen(module, req.codegen, c.diagnostics);
}

void RegisterBackendSubcommands(bool test_switches) {
  std::vector<std::string_view> options = {"emit",   "opt",   "target-kernel", "emit-header",
                                           "graph",  "stdlib", "diagnostics-format",
                                           "error-limit", "o"};
  if (test_switches) options.insert(options.end(), {"test-break-null-check", "test-llvm-fatal"});
  AddSubcommand({"compile",
                 "compile [options] FILE -o OUT",
                 "compile a graph to a BPF controller: --emit=obj|asm|llvm, -O0|-O2,\n"
                 "                                    --target-kernel=7.1|7.2|7.3|auto, "
                 "--emit-header[=FILE], --graph=NAME",
                 options, Compile});
  AddSubcommand({"run",
                 "run FILE [--vm] [--arg N=V]...",
                 "compile FILE.uring in memory (or take FILE.bpf.o) and run it through the\n"
                 "                                    runtime; the options of uringc-run (--help)",
                 {},
                 nullptr});
}

}  // namespace uringc::driver
