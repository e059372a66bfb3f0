// The back end's rows of the pipeline (pipeline.h): lower one graph of the rgir to LLVM IR,
// optimize it, generate the object (or assembly, or IR text). `compile` and `run` run the front
// end's rows and then these (CompilePhases), so --dump-after=lower shows the LLVM IR. They live
// in uringc_backend_driver, beside LLVM, so uringc_driver (the front end's tests and fuzzer
// link it alone) stays free of it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "driver/compilation.h"
#include "driver/pipeline.h"
#include "emit/bpf_module.h"
#include "emit/codegen.h"
#include "emit/kernel_abi.h"
#include "lower/lower.h"

namespace uringc::driver {

/// What to make of a `.uring` file: which graph, for which kernel, at which level, as what.
struct CompileRequest {
  std::string file;                    ///< `-`: standard input
  std::optional<std::string> program;  ///< -e PROGRAM: the text, instead of `file`
  std::string graph;  ///< which graph; empty = the only one
  std::vector<Define> defines;  ///< -D NAME=VALUE: values of the root's top-level constants
  CodegenOptions codegen;
  /// kBpf: the BPF object. kHost: also the host engine's x86-64 object, which embeds the BPF
  /// object (emit/host_module.h); `codegen.emit` then applies to the host code.
  CodeTarget target = CodeTarget::kBpf;
  /// With kHost: the descriptor's symbol; empty for uringc_program_<graph> (HostProgramSymbol).
  std::string host_symbol;
  KernelAbi abi = kDefaultKernelAbi;
  /// `--ring`: SQ_REWIND rings only (the default), or any ring. The host target's objects are
  /// always for any ring (the host engine runs on rings with an SQ tail before Linux 7.0).
  SqRing sq_ring = SqRing::kRewind;
  bool break_region_null_check = false;     ///< test only (uringc-test): see GraphLoweringOptions
  bool break_instruction_selection = false;  ///< test only (uringc-test): see GraphLoweringOptions
};

/// What the back end's rows keep in a Compilation (Compilation::backend).
struct Backend final : BackendState {
  CompileRequest request;
  /// The graph to compile: set by `lower` (the one called request.graph, or the only one), or
  /// beforehand by a caller that chose it.
  const rgir::Graph* graph = nullptr;
  /// Why `lower` found no graph to compile: a command-line matter (exit status 2), not a
  /// diagnostic.
  std::string usage_error;
  std::unique_ptr<BpfModule> module;
  std::string output;      ///< the last codegen row's: the object's bytes, or text
  std::string bpf_object;  ///< with CodeTarget::kHost: the BPF object the host object embeds
};

/// Gives `c` a Backend for `request` (replacing any earlier one) and returns it.
Backend& StartBackend(Compilation& c, const CompileRequest& request);

/// The Backend of `c`, or nullptr when StartBackend was not called.
const Backend* BackendOf(const Compilation& c);

/// lower, optimize, codegen, and for CodeTarget::kHost host and host-codegen (rows that do nothing
/// for kBpf).
const std::vector<Phase>& BackendPhases();

/// FrontendPhases() then BackendPhases(): what `compile` runs, and lists in its --help.
const std::vector<Phase>& CompilePhases();

}  // namespace uringc::driver
