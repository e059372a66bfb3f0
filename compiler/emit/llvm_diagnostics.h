// How LLVM's own errors reach the user. LLVM reports through two channels: DiagnosticInfo
// objects sent to the LLVMContext's handler (the 512-byte stack limit, unsupported calls, inline
// asm errors, warnings, remarks), whose default prints and calls exit(1); and fatal errors
// (report_fatal_error, e.g. "Cannot select" in instruction selection, or a crash) that end the
// process. Codegen installs LlvmDiagnosticCollector for the first and runs the passes under
// RunCatchingLlvmFatalErrors for the second, so both come out as uringc Diagnostics at `.uring`
// locations and a library caller (e.g. `uringc run`, which compiles in memory) survives them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "uringc/diag/diagnostic.h"
#include "emit/bpf_module.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"

namespace uringc {

/// Collects the DiagnosticInfo LLVM raises while optimizing and generating code for `module`.
/// Errors and warnings become Diagnostics (kinds `BpfStackLimit`, `BackendError`; one per message,
/// the other places LLVM named as notes); remarks and notes are dropped. Always returns true, so
/// LLVM neither prints nor exits.
class LlvmDiagnosticCollector : public llvm::DiagnosticHandler {
 public:
  LlvmDiagnosticCollector(BpfModule& module, DiagnosticList& diags)
      : module_(module), diags_(diags) {}

  bool handleDiagnostics(const llvm::DiagnosticInfo& info) override;

  /// Moves what was collected into the caller's list.
  void Flush();

  int errors() const { return errors_; }

 private:
  SourceRange FromLocation(const llvm::DiagnosticLocation& loc) const;
  SourceRange FromFunction(const llvm::Function& fn) const;
  SourceRange RangeOf(const llvm::DiagnosticInfo& info) const;
  bool SameLine(const Diagnostic& d, SourceRange r) const;

  static constexpr size_t kMaxNotes = 4;
  BpfModule& module_;
  DiagnosticList& diags_;
  std::vector<Diagnostic> collected_;
  std::map<std::string, size_t> seen_;
  int errors_ = 0;
};

/// The declaration of the first program in `module` (a graph), where a fatal error that names
/// no instruction is reported.
SourceRange FirstProgramRange(BpfModule& module);

/// Runs `fn` inside an llvm::CrashRecoveryContext with a fatal error handler installed. Returns
/// true when `fn` finished; false when LLVM raised a fatal error or crashed, with LLVM's message
/// (its first line, without node addresses) in `message`. After false, the LLVM objects `fn`
/// worked on are in an unknown state: abandon them (BpfModule::Abandon) rather than reuse or
/// destroy them.
bool RunCatchingLlvmFatalErrors(llvm::function_ref<void()> fn, std::string& message);

}  // namespace uringc
