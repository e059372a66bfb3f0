// The back end's face in the driver: compiling a `.uring` file to a BPF controller object (or
// LLVM IR / BPF assembly) through the whole pipeline, and the `compile` and `run` subcommands.
// Registered with AddSubcommand by BackendMain, so uringc_driver (which the front end's tests and
// fuzzer link) depends on neither LLVM nor the runtime.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "driver/backend_phases.h"
#include "driver/compilation.h"
#include "driver/subcommands.h"
#include "driver/target_kernel.h"

namespace uringc::driver {

/// Runs the pipeline of `compile` (CompilePhases) over `req.file` into `c` up to and including
/// `last` (all when empty), calling `after` after each row. Returns the output when every row
/// ran; nullopt when `last` stopped the pipeline, with the diagnostics in `c.diagnostics`, or
/// with `io_error` set when the file cannot be read or has no graph to choose. BackendOf(c)
/// then holds the chosen graph.
std::optional<std::string> CompileFile(const CompileRequest& req, Compilation& c,
                                       std::string& io_error, std::string_view last = {},
                                       const std::function<void(const Phase&)>& after = nullptr);

/// The back end alone: runs its rows (BackendPhases) over one graph of `c.rgir` (checked,
/// error-free); nullopt with the diagnostics in `c.diagnostics`. For the back-end fuzzer, which
/// compiles several graphs of one file.
std::optional<std::string> CompileGraph(const rgir::Graph& g, const CompileRequest& req,
                                        Compilation& c);

/// The options `compile` and `run` share: -O0|-O2, --graph=NAME and -D NAME=VALUE into `req`, and
/// --target-kernel=VERSION into `target_kernel` (resolved once the command knows where the
/// program runs: `auto` under `run --vm` means the guests' kernels).
void AddBackendOptions(CLI::App& cmd, CompileRequest& req, std::string& target_kernel);

/// Declares `uringc compile` (the Subcommand::declare of its row). With `test_switches`, it also
/// takes `--test-break-null-check` and `--test-llvm-fatal` (a deliberately broken lowering, see
/// GraphLoweringOptions): only the tests' `uringc-test` binary (tests/compiler/driver/) asks for
/// them, so the product `uringc` refuses them like any unknown option.
Runner DeclareCompile(CLI::App& cmd, bool test_switches);

/// Declares `uringc run` (run_compiled.cpp): the run command's options (runtime/cli/run_args.h)
/// and the compile options a `.uring` file needs.
Runner DeclareRunCompiled(CLI::App& cmd);

/// The whole `uringc` command: adds `compile` (with the test switches when `test_switches`) and
/// `run` to the subcommand table and runs `argv`. `uringc` and the tests' `uringc-test` are this
/// with false and true (in run_compiled.cpp, beside `run`).
int BackendMain(int argc, char** argv, bool test_switches);

}  // namespace uringc::driver
