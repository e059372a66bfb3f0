// `uringc compile`: the whole pipeline (CompilePhases: the front end, then the back end's rows),
// the output file, the C header (--emit-header, driver/c_header.h) and the skeleton
// (--emit-skeleton, driver/skeleton.h), and the options `compile` and `run` share. See
// compile_command.h.
#include "driver/compile_command.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>

#include "driver/c_header.h"
#include "driver/skeleton.h"
#include "emit/host_module.h"
#include "llvm/IR/PassTimingInfo.h"
#include "llvm/Pass.h"
#include "llvm/Support/raw_ostream.h"

namespace uringc::driver {
namespace {

struct CompileCommand {
  Options opts;
  CompileRequest request;
  std::string target_kernel{kDefaultTargetKernel};
  CLI::Option* emit_header = nullptr;
  std::string header_path;  ///< --emit-header=FILE; empty: the output's name with .h
  CLI::Option* emit_skeleton = nullptr;
  std::string skeleton_path;  ///< --emit-skeleton=FILE; empty: <graph>.skel.h beside the output
  bool time_passes = false;  ///< hidden --time-passes: phase and LLVM pass times on stderr
};

// Writes `bytes` to `path` ("-": stdout); false, printed, when that fails.
bool WriteOutput(const std::string& path, const std::string& bytes, Io& io) {
  if (path == "-") {
    io.out << bytes;
    return true;
  }
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();  // bytes still buffered are written here; a failure there counts too
  if (!f) io.err << "uringc: error: cannot write `" << path << "`\n";
  return static_cast<bool>(f);
}

// The header's default path: the output's, its extension replaced by `.h`.
std::string HeaderPathFor(std::string path) {
  for (const std::string ext : {".bpf.o", ".o", ".s", ".ll"}) {
    if (path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0) {
      path.resize(path.size() - ext.size());
      break;
    }
  }
  return path + ".h";
}

int Compile(const CompileCommand& cmd, Io& io) {
  const Options& opts = cmd.opts;
  CompileRequest req = cmd.request;
  const std::vector<std::string> files =
      req.file.empty() ? std::vector<std::string>{} : std::vector<std::string>{req.file};
  if (int s = CheckInputsOrSay(files, opts.program, io); s != kExitOk) return s;
  if (opts.program) {
    req.program = opts.program;
    req.file = kProgramName;
  }
  req.codegen.emit = opts.emit == "asm"    ? EmitKind::kAsm
                     : opts.emit == "llvm" ? EmitKind::kLlvm
                                           : EmitKind::kObj;
  std::string error;
  const bool skeleton = cmd.emit_skeleton->count() > 0;
  if (skeleton && req.codegen.emit != EmitKind::kObj) {
    io.err << "uringc: error: --emit-skeleton embeds the compiled object, so it cannot go with "
              "--emit="
           << opts.emit << " (leave --emit out)\n";
    return kExitUsage;
  }
  if (!ResolveTargetKernel(cmd.target_kernel, req.abi, error)) {
    io.err << "uringc: error: " << error << "\n";
    return kExitUsage;
  }
  Compilation c;
  c.diagnostics.set_limit(opts.error_limit);
  c.options.stdlib_dir = opts.stdlib.empty() ? DefaultStdlibDir() : opts.stdlib;
  const Phase* dumped = FindPhase(CompilePhases(), opts.dump_after);
  std::string io_error;
  llvm::TimePassesIsEnabled = cmd.time_passes;
  using Clock = std::chrono::steady_clock;
  Clock::time_point phase_start = Clock::now();
  std::string phase_times;
  auto out = CompileFile(req, c, io_error, opts.dump_after, [&](const Phase& p) {
    if (&p == dumped) p.dump(c, io.out);
    if (!cmd.time_passes) return;
    const Clock::time_point now = Clock::now();
    char line[64];
    std::snprintf(line, sizeof line, "%10.3f ms  %s\n",
                  std::chrono::duration<double, std::milli>(now - phase_start).count(),
                  std::string(p.name).c_str());
    phase_times += line;
    phase_start = now;
  });
  if (cmd.time_passes) {
    llvm::reportAndResetTimings(&llvm::errs());  // codegen's (legacy) pass timers
    io.err << "uringc phases (wall):\n" << phase_times;
  }
  if (!io_error.empty()) {
    io.err << "uringc: error: " << io_error << "\n";
    return kExitUsage;
  }
  PrintDiagnostics(opts.diagnostics_format, c, io);
  FinishDiagnostics(opts.diagnostics_format, io);
  if (dumped != nullptr) return c.diagnostics.HasErrors() ? kExitErrors : kExitOk;
  if (!out) return kExitErrors;
  const rgir::Graph& graph = *BackendOf(c)->graph;
  std::string path = opts.output;
  if (path.empty()) {
    const bool host = req.target == CodeTarget::kHost;
    path = graph.name + (req.codegen.emit == EmitKind::kObj   ? (host ? ".o" : ".bpf.o")
                         : req.codegen.emit == EmitKind::kAsm ? ".s"
                                                              : ".ll");
  }
  const std::string header = cmd.emit_header->count() == 0 ? ""
                             : cmd.header_path.empty()      ? HeaderPathFor(path)
                                                            : cmd.header_path;
  const std::string symbol = req.target != CodeTarget::kHost ? ""
                             : req.host_symbol.empty()       ? HostProgramSymbol(graph.name)
                                                             : req.host_symbol;
  std::string skel_path, skel_text;
  if (skeleton) {
    skel_path = cmd.skeleton_path.empty() ? SkeletonPathFor(path, graph.name) : cmd.skeleton_path;
    const char* clash = skel_path == path     ? "the output (-o)"
                        : skel_path == header ? "the header (--emit-header)"
                                              : nullptr;
    if (clash != nullptr) {
      io.err << "uringc: error: --emit-skeleton would write `" << skel_path << "`, which is also "
             << clash << ": give it another FILE (--emit-skeleton=FILE)\n";
      return kExitUsage;
    }
    SkeletonInput in{&graph, req.file,
                     req.target == CodeTarget::kHost ? BackendOf(c)->bpf_object : *out, symbol};
    auto text = CSkeleton(in, error);
    if (!text) {
      io.err << "uringc: error: " << error << "\n";
      return kExitUsage;
    }
    skel_text = std::move(*text);
  }
  if (!WriteOutput(path, *out, io)) return kExitUsage;
  if (!header.empty() && !WriteOutput(header, CHeader(graph, req.file, symbol), io))
    return kExitUsage;
  if (skeleton && !WriteOutput(skel_path, skel_text, io)) return kExitUsage;
  return kExitOk;
}

}  // namespace

std::optional<std::string> CompileFile(const CompileRequest& req, Compilation& c,
                                       std::string& io_error, std::string_view last,
                                       const std::function<void(const Phase&)>& after) {
  if (c.options.stdlib_dir.empty()) c.options.stdlib_dir = DefaultStdlibDir();
  c.options.program = req.program;
  c.options.defines = req.defines;
  if (!c.LoadRoot(req.file, io_error)) return std::nullopt;
  Backend& b = StartBackend(c, req);
  const bool ran = RunPipeline(c, CompilePhases(), last, after);
  io_error = b.usage_error;
  if (!ran || !io_error.empty() || !last.empty()) return std::nullopt;
  return std::move(b.output);
}

std::optional<std::string> CompileGraph(const rgir::Graph& g, const CompileRequest& req,
                                        Compilation& c) {
  Backend& b = StartBackend(c, req);
  b.graph = &g;
  if (!RunPipeline(c, BackendPhases(), "")) return std::nullopt;
  return std::move(b.output);
}

void AddBackendOptions(CLI::App& cmd, CompileRequest& req, std::string& target_kernel) {
  cmd.add_option_function<std::string>(
         "-O",
         [&req](const std::string& level) {
           req.codegen.opt = level == "0" ? OptLevel::kO0 : OptLevel::kO2;
         },
         "the optimisation level: -O0, or -O2 (default)")
      ->type_name("LEVEL")
      ->check(CLI::Validator(
          [](const std::string& level) -> std::string {
            return level == "0" || level == "2" ? "" : "the optimisation level is -O0 or -O2";
          },
          ""));
  cmd.add_option("--target-kernel", target_kernel,
                 "the kernel ABI: " + TargetKernelValues() + " (the running kernel's); default " +
                     std::string(kDefaultTargetKernel))
      ->type_name("VERSION")
      ->check(CLI::Validator(
          [](const std::string& v) -> std::string {
            return v == "auto" || ParseKernelAbi(v) ? ""
                                                    : "`" + v + "` is not " + TargetKernelValues();
          },
          ""));
  cmd.add_option("--graph", req.graph, "the graph to compile (needed when the file has several)")
      ->type_name("NAME");
  AddDefineOption(cmd, req.defines);
}

Runner DeclareCompile(CLI::App& cmd, bool test_switches) {
  auto s = std::make_shared<CompileCommand>();
  AddOutputOption(cmd, s->opts,
                  "the output (default: the graph's name with .bpf.o (.o for "
                  "--target=host), .s or .ll; -: stdout)");
  AddEmitOption(cmd, s->opts, {"obj", "asm", "llvm"}, "an object (default), assembly, or LLVM IR");
  cmd.add_option_function<std::string>(
         "--target",
         [s](const std::string& target) {
           s->request.target = target == "host" ? CodeTarget::kHost : CodeTarget::kBpf;
         },
         "bpf (default): the kernel engine's BPF object; host: an x86-64 object to link into an "
         "application, with the host engine's loop_step and the BPF object inside "
         "(`uringc_program_<graph>`, runtime/include/uringc/program.h)")
      ->type_name("TARGET")
      ->check(CLI::IsMember({"bpf", "host"}));
  cmd.add_option("--symbol", s->request.host_symbol,
                 "with --target=host: the descriptor's symbol (default uringc_program_<graph>), "
                 "to link two builds of one graph into one program")
      ->type_name("NAME")
      ->check(CLI::Validator(
          [](const std::string& v) -> std::string {
            return IsIdentifier(v) ? "" : "`" + v + "` is not a C identifier";
          },
          ""));
  cmd.add_option_function<std::string>(
         "--ring",
         [s](const std::string& ring) {
           s->request.sq_ring = ring == "any" ? SqRing::kAny : SqRing::kRewind;
         },
         "the submission queues the BPF object runs on: rewind (default): SQ_REWIND rings only "
         "(Linux 7.0+, what `uringc run` makes), no SQ-tail code in the object; any: also rings "
         "with an SQ tail (`uringc run --ring tail`). --target=host objects run on any ring")
      ->type_name("RING")
      ->check(CLI::IsMember({"rewind", "any"}));
  AddBackendOptions(cmd, s->request, s->target_kernel);
  s->emit_header =
      cmd.add_flag("--emit-header{}", s->header_path,
                   "also write the C header of its parameters, buffers and outputs (default: "
                   "the output's name with .h)")
          ->option_text("[=FILE]");
  s->emit_skeleton =
      cmd.add_flag("--emit-skeleton{}", s->skeleton_path,
                   "also write the skeleton: a C/C++ header with the object embedded, typed "
                   "parameters and outputs, and <graph>__open/load/attach/run/destroy (default: "
                   "<graph>.skel.h beside the output)")
          ->option_text("[=FILE]");
  AddDumpAfterOption(cmd, s->opts, CompilePhases());
  AddDiagnosticsOptions(cmd, s->opts);
  AddStdlibOption(cmd, s->opts.stdlib);
  // For measuring compile time (scripts/gen_programs.py): not in --help.
  cmd.add_flag("--time-passes", s->time_passes,
               "print each phase's time and LLVM's pass timers on stderr")
      ->group("");
  if (test_switches) {
    const std::string group = "Test switches (uringc-test only)";
    cmd.add_flag("--test-break-null-check", s->request.break_region_null_check,
                 "leave out the parameter region's null check (the verifier rejects it)")
        ->group(group);
    cmd.add_flag("--test-llvm-fatal", s->request.break_instruction_selection,
                 "add an instruction the BPF backend cannot select (LLVM fails fatally)")
        ->group(group);
  }
  AddProgramOption(cmd, s->opts.program);
  cmd.add_option("FILE", s->request.file, "the .uring file (- for standard input)");
  return [s](Io& io) { return Compile(*s, io); };
}

}  // namespace uringc::driver
