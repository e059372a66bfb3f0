// `uringc run FILE.uring ...`: compiles the file in memory (the compile flags -O0/-O2,
// --target-kernel, --graph, --stdlib are taken out of the arguments), writes the object to a
// private temporary directory (the runtime and --vm need a file), and hands everything else to
// the runtime's RunCommandMain, exactly as `uringc-run` would. A `.bpf.o` runs as it is.
// `--target-kernel=auto --vm` targets the guests' kernels (the suites given), not the host's.
// The temporary object is removed however the command ends, by a signal before the run starts
// too (runtime/cli/interrupt.h); a failed write of it is an error, not half an object.
// BackendMain, the whole `uringc` command (and the tests' `uringc-test`), lives here too.
#include <unistd.h>

#include <exception>
#include <iostream>
#include <new>

#include "diag/formatter.h"
#include "driver/compile_command.h"
#include "driver/driver.h"
#include "interrupt.h"
#include "run_args.h"
#include "run_command.h"
#include "temp_files.h"

namespace uringc::driver {
namespace {

bool EndsWith(const std::string& s, const std::string& e) {
  return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0;
}

int RunCompiled(const std::vector<std::string>& args) {
  std::vector<std::string> rest;
  CompileRequest req;
  std::string stdlib, target(kDefaultTargetKernel);
  std::string source;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-O0" || a == "-O2") {
      req.codegen.opt = a == "-O0" ? OptLevel::kO0 : OptLevel::kO2;
    } else if (a.rfind("--target-kernel=", 0) == 0) {
      target = a.substr(16);
    } else if (a.rfind("--graph=", 0) == 0) {
      req.graph = a.substr(8);
    } else if (a.rfind("--stdlib=", 0) == 0) {
      stdlib = a.substr(9);
    } else if (source.empty() && a.size() > 0 && a[0] != '-' && EndsWith(a, ".uring") &&
               (i == 0 || args[i - 1] != "--arg")) {
      source = a;
      rest.push_back("");  // replaced by the object's path
    } else {
      rest.push_back(a);
    }
  }
  std::string dir;
  SourceTexts texts;
  if (!source.empty()) {
    std::string error;
    // With --vm the program runs in the guests, so `auto` means their kernels, not this one.
    // The runtime's own parser reads --vm and --suite; a malformed line goes straight to
    // RunCommandMain, which reports it with the usage, before anything is compiled.
    std::vector<std::string> run_argv_s = {"uringc run"};
    for (const std::string& r : rest) run_argv_s.push_back(r.empty() ? source : r);
    std::vector<char*> run_argv;
    for (std::string& r : run_argv_s) run_argv.push_back(r.data());
    auto run_args = ParseRunArgs(static_cast<int>(run_argv.size()), run_argv.data());
    if (!run_args.ok()) return RunCommandMain(static_cast<int>(run_argv.size()), run_argv.data());
    const bool vm = run_args->vm;
    const bool resolved = vm && target == "auto"
                              ? ResolveTargetKernelForSuites(run_args->suites, req.abi, error)
                              : ResolveTargetKernel(target, req.abi, error);
    if (resolved && vm && target == "auto") {
      std::cerr << "note: --target-kernel=auto with --vm: compiling for "
                << KernelAbiVersion(req.abi) << ", the guests' ABI\n";
    }
    if (!resolved) {
      std::cerr << "uringc run: error: " << error << "\n";
      return 2;
    }
    req.file = source;
    Compilation c;
    c.options.stdlib_dir = stdlib.empty() ? DefaultStdlibDir() : stdlib;
    std::string io_error, graph;
    auto obj = CompileFile(req, c, io_error, &graph);
    if (!io_error.empty()) {
      std::cerr << "uringc run: error: " << io_error << "\n";
      return 2;
    }
    for (const Diagnostic& d : c.diagnostics.items()) std::cerr << FormatText(d, c.sources);
    if (!obj) return 1;
    auto made = MakeTempDir("uringc-run");
    if (!made) {
      std::cerr << "uringc run: error: " << made.error().message << "\n";
      return 1;
    }
    dir = *made;
    const std::string path = dir + "/" + graph + ".bpf.o";
    auto written = WriteNewFile(path, *obj);
    if (!written) {
      RemoveTemp(dir);
      std::cerr << "uringc run: error: cannot write the compiled object: "
                << written.error().message << "\n";
      return 1;
    }
    for (std::string& r : rest) {
      if (r.empty()) r = path;
    }
    // A verifier report quotes the text just compiled, not the files read back.
    for (const SourceFile& f : c.sources.files()) texts.emplace_back(f.name(), f.text());
  }
  std::vector<std::string> argv_s = {"uringc run"};
  argv_s.insert(argv_s.end(), rest.begin(), rest.end());
  std::vector<char*> argv;
  for (std::string& s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);
  const int status = RunCommandMain(static_cast<int>(argv_s.size()), argv.data(), texts);
  if (!dir.empty()) {
    for (const std::string& r : rest) {
      if (r.rfind(dir + "/", 0) == 0) RemoveTemp(r);
    }
    RemoveTemp(dir);
  }
  return status;
}

}  // namespace

int RunCompiledMain(const std::vector<std::string>& args) {
  // From the temporary object's creation until the run starts, a signal removes it and ends
  // the command with 130 (RunCommandMain takes over from there, and hands this back).
  SignalScope scope;
  ExitOnSignal();
  try {
    return RunCompiled(args);
  } catch (const std::bad_alloc&) {
    std::cerr << "uringc run: error: out of memory\n";
  } catch (const std::exception& e) {
    std::cerr << "uringc run: internal error: " << e.what() << "\n";
  }
  return 1;
}

int BackendMain(int argc, char** argv, bool test_switches) {
  std::vector<std::string> args(argv + 1, argv + argc);
  RegisterBackendSubcommands(test_switches);
  if (!args.empty() && args[0] == "run") return RunCompiledMain({args.begin() + 1, args.end()});
  return Main(args, std::cout, std::cerr);
}

}  // namespace uringc::driver
