// Pass pipeline and code generation for a BpfModule, with LLVM's errors caught; see codegen.h.
#include "emit/codegen.h"

#include "emit/llvm_diagnostics.h"
#include "emit/opt_pipeline.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Support/raw_ostream.h"

namespace uringc {

std::optional<std::string> Codegen(BpfModule& module, const CodegenOptions& options,
                                   DiagnosticList& diags) {
  if (!module.finalized() && !module.Finalize(diags)) return std::nullopt;
  std::string error;
  std::unique_ptr<llvm::TargetMachine> tm = CreateBpfTargetMachine(options.opt, &error);
  if (tm == nullptr) {
    diags.Error(DiagKind::kInternalCompilerError, {}, "cannot target BPF: " + error);
    return std::nullopt;
  }
  llvm::LLVMContext& ctx = module.context();
  auto owned = std::make_unique<LlvmDiagnosticCollector>(module, diags);
  LlvmDiagnosticCollector* collector = owned.get();
  ctx.setDiagnosticHandler(std::move(owned));
  auto restore = [&ctx, collector] {
    collector->Flush();
    ctx.setDiagnosticHandler(std::make_unique<llvm::DiagnosticHandler>());
  };

  llvm::Module& m = module.module();
  const SourceRange program = FirstProgramRange(module);
  std::string out;
  bool emitted = true;
  std::string fatal;
  const bool survived = RunCatchingLlvmFatalErrors(
      [&] {
        RunOptPipeline(m, *tm, options.opt);
        if (options.emit == EmitKind::kLlvm) {
          llvm::raw_string_ostream os(out);
          m.print(os, nullptr);
          return;
        }
        llvm::SmallVector<char, 0> buffer;
        llvm::raw_svector_ostream os(buffer);
        llvm::legacy::PassManager pm;
        auto file_type = options.emit == EmitKind::kAsm ? llvm::CodeGenFileType::AssemblyFile
                                                        : llvm::CodeGenFileType::ObjectFile;
        // The module was verified when it was finished (BpfModule::Finalize); the trimmed
        // pipeline's passes are LLVM's own, so codegen's second IR verifier is left out.
        if (tm->addPassesToEmitFile(pm, os, nullptr, file_type, /*DisableVerify=*/true)) {
          emitted = false;
          return;
        }
        pm.run(m);
        out.assign(buffer.begin(), buffer.end());
      },
      fatal);
  if (!survived) {
    collector->Flush();
    // The context, module and TargetMachine may be half-way through a pass: leave them be.
    (void)tm.release();
    module.Abandon();
    diags.Error(DiagKind::kBackendError, program,
                "LLVM failed while generating BPF code: " + fatal +
                    "; this is a bug in uringc, please report it with this `.uring` file");
    return std::nullopt;
  }
  if (!emitted) {
    restore();
    diags.Error(DiagKind::kInternalCompilerError, {}, "the BPF target cannot emit this file type");
    return std::nullopt;
  }
  int errors = collector->errors();
  restore();
  if (errors > 0) return std::nullopt;
  return out;
}

}  // namespace uringc
