// Compiling a `.uring` file for a command that runs it (see compile_to_temp.h).
#include "driver/compile_to_temp.h"

#include <iostream>

#include "driver/compile_command.h"
#include "temp_files.h"
#include "uringc/diag/formatter.h"

namespace uringc::driver {

bool EndsWith(const std::string& s, const std::string& e) {
  return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0;
}

std::optional<std::string> CompileToTemp(const RunCompiledCommand& cmd, const std::string& what,
                                         std::string& dir, int& status, SourceTexts& texts,
                                         std::unique_ptr<HostJit>& host) {
  status = kExitUsage;
  CompileRequest req = cmd.request;
  req.file = cmd.program ? kProgramName : cmd.file;
  req.program = cmd.program;
  if (!cmd.run.vm && cmd.run.engine != EngineChoice::kKernel) req.target = CodeTarget::kHost;
  // `--ring tail` asks for a ring with an SQ tail, which a program for SQ_REWIND rings refuses.
  if (cmd.run.ring_mode == RingMode::kTail) req.sq_ring = SqRing::kAny;
  std::string error;
  // With --vm the program runs in the guests, so `auto` means their kernels, not this one.
  const bool guests = cmd.run.vm && cmd.target_kernel == "auto";
  const bool resolved = guests ? ResolveTargetKernelForSuites(cmd.run.suites, req.abi, error)
                               : ResolveTargetKernel(cmd.target_kernel, req.abi, error);
  if (!resolved) {
    std::cerr << what << ": error: " << error << "\n";
    return std::nullopt;
  }
  if (guests) {
    std::cerr << "note: --target-kernel=auto with --vm: compiling for "
              << KernelAbiVersion(req.abi) << ", the guests' ABI\n";
  }
  Compilation c;
  c.options.stdlib_dir = cmd.stdlib.empty() ? DefaultStdlibDir() : cmd.stdlib;
  std::string io_error;
  auto obj = CompileFile(req, c, io_error);
  if (!io_error.empty()) {
    std::cerr << what << ": error: " << io_error << "\n";
    return std::nullopt;
  }
  const std::vector<Diagnostic>& diagnostics = c.diagnostics.items();
  if (cmd.run.diagnostics_format == DiagnosticsFormat::kJson && !diagnostics.empty()) {
    std::cerr << FormatJson(diagnostics, c.sources);
  } else if (cmd.run.diagnostics_format == DiagnosticsFormat::kText) {
    for (const Diagnostic& d : diagnostics) std::cerr << FormatText(d, c.sources);
  }
  status = kExitErrors;
  if (!obj) return std::nullopt;
  const std::string& graph = BackendOf(c)->graph->name;
  if (req.target == CodeTarget::kHost) {
    std::string error;
    host = HostJit::Link(*obj, graph, error);
    if (host == nullptr) {
      std::cerr << what << ": error: cannot link the host engine's code: " << error << "\n";
      return std::nullopt;
    }
    *obj = BackendOf(c)->bpf_object;
  }
  auto made = MakeTempDir("uringc-run");
  if (!made) {
    std::cerr << what << ": error: " << made.error().message << "\n";
    return std::nullopt;
  }
  dir = *made;
  const std::string path = dir + "/" + graph + ".bpf.o";
  auto written = WriteNewFile(path, *obj);
  if (!written) {
    std::cerr << what << ": error: cannot write the compiled object: "
              << written.error().message << "\n";
    return std::nullopt;
  }
  for (const SourceFile& f : c.sources.files()) texts.emplace_back(f.name(), f.text());
  return path;
}

}  // namespace uringc::driver
