// Compiling a `.uring` file for a command that then runs it (`uringc run`, `uringc ublk add`):
// in memory, the BPF object written to a private temporary directory (the runtime and --vm need a
// file), and unless the command runs on the kernel engine only, the host engine's code linked
// into this process (host_jit.h). Diagnostics are printed as the command's --diagnostics-format
// says.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "driver/backend_phases.h"
#include "driver/host_jit.h"
#include "driver/target_kernel.h"
#include "run_args.h"
#include "uringc/verifier_report.h"

namespace uringc::driver {

/// What `uringc run` parsed; `uringc ublk add` fills the parts it needs.
struct RunCompiledCommand {
  RunArgs run;       ///< with `object` set once FILE is compiled
  std::string file;  ///< FILE: a `.uring` source or an object
  CompileRequest request;
  std::string target_kernel{kDefaultTargetKernel};
  std::string stdlib;
  std::optional<std::string> program;  ///< -e PROGRAM
};

bool EndsWith(const std::string& s, const std::string& e);

/// Compiles cmd.file into a new file in the private directory `dir` (made here); its path, or
/// nullopt after printing why not (`what` begins the messages, e.g. "uringc run"). The exit
/// status is then in `status`. `texts` gets the sources compiled, so a verifier report quotes
/// them rather than the files read back; `host` the host engine's code, when compiled for it.
std::optional<std::string> CompileToTemp(const RunCompiledCommand& cmd, const std::string& what,
                                         std::string& dir, int& status, SourceTexts& texts,
                                         std::unique_ptr<HostJit>& host);

}  // namespace uringc::driver
