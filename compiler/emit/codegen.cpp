// Pass pipeline and code generation for a BpfModule, with LLVM's errors caught; see codegen.h.
#include "emit/codegen.h"

#include "emit/host_target.h"
#include "emit/llvm_diagnostics.h"
#include "emit/long_block_pass_gate.h"
#include "emit/opt_pipeline.h"
#include "emit/shared_global_addresses.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Support/raw_ostream.h"

namespace uringc {
namespace {

const char* TargetName(CodeTarget target) { return target == CodeTarget::kHost ? "x86-64" : "BPF"; }

// Runs `step` with the TargetMachine of `target` for `opt`, LLVM's diagnostics collected into
// `diags` and its fatal errors caught. False when LLVM reported an error or failed fatally; after
// a fatal error the module is abandoned and a BackendError at the first program says so.
bool RunLlvmStep(BpfModule& module, OptLevel opt, CodeTarget target, DiagnosticList& diags,
                 llvm::function_ref<void(llvm::TargetMachine&)> step) {
  std::string error;
  std::unique_ptr<llvm::TargetMachine> tm = target == CodeTarget::kHost
                                                ? CreateHostTargetMachine(opt, &error)
                                                : CreateBpfTargetMachine(opt, &error);
  if (tm == nullptr) {
    diags.Error(DiagKind::kInternalCompilerError, {},
                std::string("cannot target ") + TargetName(target) + ": " + error);
    return false;
  }
  llvm::LLVMContext& ctx = module.context();
  auto owned = std::make_unique<LlvmDiagnosticCollector>(module, diags);
  LlvmDiagnosticCollector* collector = owned.get();
  ctx.setDiagnosticHandler(std::move(owned));
  const SourceRange program = FirstProgramRange(module);
  std::string fatal;
  if (!RunCatchingLlvmFatalErrors([&] { step(*tm); }, fatal)) {
    collector->Flush();
    // The context, module and TargetMachine may be half-way through a pass: leave them be.
    (void)tm.release();
    module.Abandon();
    diags.Error(DiagKind::kBackendError, program,
                std::string("LLVM failed while generating ") + TargetName(target) + " code: " +
                    fatal + "; this is a bug in uringc, please report it with this `.uring` file");
    return false;
  }
  collector->Flush();
  const int errors = collector->errors();
  ctx.setDiagnosticHandler(std::make_unique<llvm::DiagnosticHandler>());
  return errors == 0;
}

llvm::Module& TargetModule(BpfModule& module, CodeTarget target) {
  return target == CodeTarget::kHost ? *module.host_module() : module.module();
}

}  // namespace

bool OptimizeModule(BpfModule& module, OptLevel opt, DiagnosticList& diags, CodeTarget target) {
  if (!module.finalized() && !module.Finalize(diags)) return false;
  return RunLlvmStep(module, opt, target, diags, [&](llvm::TargetMachine& tm) {
    llvm::Module& m = TargetModule(module, target);
    RunOptPipeline(m, tm, opt);
    // A kfunc whose calls the passes all removed (a step that can never submit) would stay an
    // undefined `.ksyms` symbol without BTF, which libbpf refuses to load: drop it.
    for (llvm::Function& fn : llvm::make_early_inc_range(m.functions())) {
      if (fn.isDeclaration() && fn.use_empty() && fn.getSection() == ".ksyms") {
        fn.eraseFromParent();
      }
    }
  });
}

std::optional<std::string> EmitModule(BpfModule& module, const CodegenOptions& options,
                                      DiagnosticList& diags, CodeTarget target) {
  if (options.emit == EmitKind::kLlvm) return PrintModuleIr(module, target);
  llvm::Module& m = TargetModule(module, target);
  llvm::SmallVector<char, 0> buffer;
  bool emitted = true;
  const bool ok = RunLlvmStep(module, options.opt, target, diags, [&](llvm::TargetMachine& tm) {
    llvm::raw_svector_ostream os(buffer);
    llvm::legacy::PassManager pm;
    auto file_type = options.emit == EmitKind::kAsm ? llvm::CodeGenFileType::AssemblyFile
                                                    : llvm::CodeGenFileType::ObjectFile;
    // The module was verified when it was finished (BpfModule::Finalize); the trimmed
    // pipeline's passes are LLVM's own, so codegen's second IR verifier is left out.
    if (tm.addPassesToEmitFile(pm, os, nullptr, file_type, /*DisableVerify=*/true)) {
      emitted = false;
      return;
    }
    // Linear codegen for large functions: the BPF back end's LD_imm64 addresses (the host's
    // globals are offsets from one state pointer already).
    if (target == CodeTarget::kBpf) ShareGlobalAddresses(m);
    LongBlockPassGate gate(m);  // and for very long blocks
    ScopedPassGate scoped(module.context(), gate);
    pm.run(m);
  });
  if (ok && !emitted) {
    diags.Error(DiagKind::kInternalCompilerError, {},
                std::string("the ") + TargetName(target) + " target cannot emit this file type");
    return std::nullopt;
  }
  if (!ok) return std::nullopt;
  return std::string(buffer.begin(), buffer.end());
}

std::optional<std::string> Codegen(BpfModule& module, const CodegenOptions& options,
                                   DiagnosticList& diags) {
  if (!OptimizeModule(module, options.opt, diags)) return std::nullopt;
  return EmitModule(module, options, diags);
}

std::string PrintModuleIr(BpfModule& module, CodeTarget target) {
  std::string out;
  llvm::raw_string_ostream os(out);
  TargetModule(module, target).print(os, nullptr);
  return out;
}

}  // namespace uringc
