// `uringc run FILE ...`: one command line, parsed once with the driver's, that declares the run
// command's options (runtime/cli/run_args.h) and the compile options a `.uring` FILE needs
// (-O0/-O2, --target-kernel, --graph, --stdlib). A `.uring` file is compiled in memory and the
// object written to a private temporary directory (the runtime and --vm need a file), then the
// runtime's RunParsedCommand runs it exactly as `uringc-run` would; a `.bpf.o` runs as it is.
// Unless --engine=kernel or --vm, the file is compiled for the host too (--target=host) and that
// object linked into this process (host_jit.h), so the runtime can choose the host engine.
// `--target-kernel=auto --vm` targets the guests' kernels (the suites given), not the host's.
// The temporary object is removed however the command ends, by a signal before the run starts
// too (runtime/cli/interrupt.h); a failed write of it is an error, not half an object.
// BackendMain, the whole `uringc` command (and the tests' `uringc-test`), lives here too.
#include <unistd.h>

#include <exception>
#include <iostream>
#include <memory>
#include <new>

#include "uringc/diag/formatter.h"
#include "driver/compile_command.h"
#include "driver/compile_to_temp.h"
#include "driver/driver.h"
#include "driver/host_jit.h"
#include "driver/ublk_compiled.h"
#include "lsp/lsp_command.h"
#include "interrupt.h"
#include "run_args.h"
#include "run_command.h"
#include "temp_files.h"

namespace uringc::driver {
namespace {

int RunCompiled(const RunCompiledCommand& cmd) {
  const std::vector<std::string> files =
      cmd.file.empty() ? std::vector<std::string>{} : std::vector<std::string>{cmd.file};
  Io io{std::cout, std::cerr};
  if (int s = CheckInputsOrSay(files, cmd.program, io); s != kExitOk) return s;
  RunArgs args = cmd.run;
  args.object = cmd.file;
  std::string dir;
  SourceTexts texts;
  std::unique_ptr<HostJit> host;
  // A program from standard input or -e is source text, like a `.uring` file.
  if (EndsWith(cmd.file, ".uring") || cmd.file == "-" || cmd.program) {
    int status = kExitOk;
    auto object = CompileToTemp(cmd, "uringc run", dir, status, texts, host);
    if (!object) {
      if (!dir.empty()) RemoveTemp(dir);
      return status;
    }
    args.object = *object;
    if (host) args.host_program = &host->program();
  }
  const int status = RunParsedCommand(args, "uringc run", texts);
  if (!dir.empty()) {
    RemoveTemp(args.object);
    RemoveTemp(dir);
  }
  return status;
}

}  // namespace

Runner DeclareRunCompiled(CLI::App& cmd) {
  auto s = std::make_shared<RunCompiledCommand>();
  AddRunOptions(cmd, s->run);
  AddBackendOptions(cmd, s->request, s->target_kernel);
  AddStdlibOption(cmd, s->stdlib);
  AddProgramOption(cmd, s->program);
  cmd.add_option("FILE", s->file,
                 "a .uring file (compiled in memory; - for standard input) or a .bpf.o object");
  cmd.footer("Exit status: 0 done, 1 failed (or FILE has errors), 2 usage error, 130 interrupted.");
  // From the temporary object's creation until the run starts, a signal removes it and ends the
  // command with 130 (RunParsedCommand takes over from there, and hands this back).
  return [s](Io&) { return RunGuarded("uringc run", [&] { return RunCompiled(*s); }); };
}

int BackendMain(int argc, char** argv, bool test_switches) {
  AddSubcommand({"compile", "compile a graph to a BPF controller object (or assembly, LLVM IR)",
                 [test_switches](CLI::App& cmd) { return DeclareCompile(cmd, test_switches); }});
  AddSubcommand({"run", "compile FILE.uring in memory (or take a .bpf.o) and run it",
                 DeclareRunCompiled});
  AddSubcommand({"ublk", "serve a ublk block device with a compiled target (add, del)",
                 DeclareUblk});
  // The language server needs only the front end; it is registered here, in the executable's
  // main, because uringc_lsp is built on uringc_driver and the table there cannot name it.
  AddSubcommand(lsp::LspSubcommand());
  return Main(std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
}

}  // namespace uringc::driver
