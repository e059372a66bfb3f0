// Turns a finished BpfModule into text IR, BPF assembly or an ELF object, in memory. Runs LLVM's
// pass pipeline built with the BPF TargetMachine (the BPF-specific IR passes are registered only
// there; at least the O0 pipeline always runs), then the code generator. LLVM reports its own
// errors (e.g. the 512-byte BPF stack limit) through a context diagnostic handler installed here,
// so they come out as uringc Diagnostics at `.uring` locations instead of LLVM's default
// print-and-exit(1).
#pragma once

#include <optional>
#include <string>

#include "diag/diagnostic.h"
#include "emit/bpf_module.h"
#include "emit/target.h"

namespace uringc {

enum class EmitKind { kLlvm, kAsm, kObj };

struct CodegenOptions {
  OptLevel opt = OptLevel::kO2;
  EmitKind emit = EmitKind::kObj;
};

/// Finalizes `module` if needed, optimizes it in place and returns the requested output (an ELF
/// object's bytes, or text). On any error returns nullopt with diagnostics in `diags`: LLVM backend
/// errors have kind `BpfStackLimit` or `BackendError`, internal failures `InternalCompilerError`.
/// The same module contents always give byte-identical output. Call once per module.
std::optional<std::string> Codegen(BpfModule& module, const CodegenOptions& options,
                                   DiagnosticList& diags);

}  // namespace uringc
