// The back end's face in the driver: compiling a `.uring` file to a BPF controller object (or
// LLVM IR / BPF assembly), the C header describing its parameters, buffers and outputs, and the
// `compile` and `run` subcommands. Registered with AddSubcommand by main.cpp, so uringc_frontend
// (which the fuzzer links) depends on neither LLVM nor the runtime.
#pragma once

#include <optional>
#include <string>

#include "driver/compilation.h"
#include "driver/subcommands.h"
#include "emit/codegen.h"
#include "driver/target_kernel.h"
#include "emit/kernel_abi.h"

namespace uringc::driver {

struct CompileRequest {
  std::string file;
  std::string graph;  ///< which graph; empty = the only one
  CodegenOptions codegen;
  KernelAbi abi = kDefaultKernelAbi;
  bool break_region_null_check = false;     ///< test only (uringc-test): see GraphLoweringOptions
  bool break_instruction_selection = false;  ///< test only (uringc-test): see GraphLoweringOptions
};

/// Runs the front end and the back end over `req.file` into `c`. Returns the output bytes, or
/// nullopt with the diagnostics in `c.diagnostics` (and `io_error` set when the file could not be
/// read). `graph_name` receives the compiled graph's name.
std::optional<std::string> CompileFile(const CompileRequest& req, Compilation& c,
                                       std::string& io_error, std::string* graph_name = nullptr,
                                       std::string* header = nullptr);

/// The back end alone: lowers one graph of `c.rgir` (checked, error-free) to a controller and
/// generates `req.codegen`'s output; nullopt with the diagnostics in `c.diagnostics`. Used by
/// CompileFile and by the back-end fuzzer, which has no file.
std::optional<std::string> CompileGraph(const rgir::Graph& g, const CompileRequest& req,
                                        Compilation& c);

/// Registers `compile` and `run` in the subcommand table. With `test_switches`, `compile` also
/// takes `--test-break-null-check` and `--test-llvm-fatal` (a deliberately broken lowering, see
/// GraphLoweringOptions): only the tests' `uringc-test` binary (tests/compiler/driver/) passes
/// true, so the product `uringc` refuses them like any unknown option.
void RegisterBackendSubcommands(bool test_switches = false);

/// `uringc run ...` with the raw arguments after `run` (repeated `--arg` flags do not fit the
/// common option map).
int RunCompiledMain(const std::vector<std::string>& args);

/// The whole `uringc` command: registers the back end's subcommands (with the test switches
/// when `test_switches`, see RegisterBackendSubcommands) and runs `argv`. `uringc` and the
/// tests' `uringc-test` are this with false and true (in run_compiled.cpp, beside `run`).
int BackendMain(int argc, char** argv, bool test_switches);

}  // namespace uringc::driver
