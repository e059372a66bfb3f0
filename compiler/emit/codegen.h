// Turns a finished BpfModule into text IR, BPF assembly or an ELF object, in memory, in two steps
// (the pipeline's rows `optimize` and `codegen`): LLVM's pass pipeline built with the BPF
// TargetMachine (the BPF-specific IR passes are registered only there; at least the O0 pipeline
// always runs), then the code generator. LLVM reports its own errors (e.g. the 512-byte BPF
// stack limit) through a context diagnostic handler installed for each step, so they come out as
// uringc Diagnostics at `.uring` locations instead of LLVM's default print-and-exit(1).
#pragma once

#include <optional>
#include <string>

#include "uringc/diag/diagnostic.h"
#include "emit/bpf_module.h"
#include "emit/target.h"

namespace uringc {

enum class EmitKind { kLlvm, kAsm, kObj };

/// Which of a BpfModule's modules a step works on: the BPF program, or the host copy
/// (BpfModule::CloneForHost, rewritten by emit/host_module.h) for x86-64.
enum class CodeTarget { kBpf, kHost };

struct CodegenOptions {
  OptLevel opt = OptLevel::kO2;
  EmitKind emit = EmitKind::kObj;
};

/// Finalizes `module` if needed (BpfModule::Finalize) and runs the optimisation pipeline of
/// `opt` on it in place (opt_pipeline.h). False with diagnostics in `diags` on any error: LLVM
/// backend errors have kind `BpfStackLimit` or `BackendError`, internal failures
/// `InternalCompilerError`; after a fatal error the module is abandoned (BpfModule::Abandon).
bool OptimizeModule(BpfModule& module, OptLevel opt, DiagnosticList& diags,
                    CodeTarget target = CodeTarget::kBpf);

/// Generates `options.emit`'s output from an optimized `module` (an ELF object's bytes, or text),
/// with the code generator of `options.opt`; nullopt with diagnostics as OptimizeModule. The same
/// module contents always give byte-identical output. Call once per module.
std::optional<std::string> EmitModule(BpfModule& module, const CodegenOptions& options,
                                      DiagnosticList& diags, CodeTarget target = CodeTarget::kBpf);

/// OptimizeModule, then EmitModule: the back end after lowering in one call.
std::optional<std::string> Codegen(BpfModule& module, const CodegenOptions& options,
                                   DiagnosticList& diags);

/// The module's LLVM IR as text (what `--emit=llvm` writes, and `--dump-after` prints).
std::string PrintModuleIr(BpfModule& module, CodeTarget target = CodeTarget::kBpf);

}  // namespace uringc
