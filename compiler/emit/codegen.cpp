// Pass pipeline, code generation and LLVM diagnostics for a BpfModule; see codegen.h.
#include "emit/codegen.h"

#include <map>

#include "emit/opt_pipeline.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Support/raw_ostream.h"

namespace uringc {
namespace {

// Receives every diagnostic LLVM raises while optimizing and generating code. Returning true
// tells LLVM the diagnostic was handled, so it neither prints it nor exits.
class DiagnosticCollector : public llvm::DiagnosticHandler {
 public:
  DiagnosticCollector(BpfModule& module, DiagnosticList& diags) : module_(module), diags_(diags) {}

  bool handleDiagnostics(const llvm::DiagnosticInfo& info) override {
    llvm::DiagnosticSeverity severity = info.getSeverity();
    if (severity != llvm::DS_Error && severity != llvm::DS_Warning) return true;
    std::string message = MessageOf(info);
    SourceRange range = RangeOf(info);
    std::string kind = message.find("stack limit") != std::string::npos ? "BpfStackLimit"
                                                                        : "BackendError";
    // LLVM repeats some errors once per instruction (the stack limit, once per stack access):
    // keep one diagnostic per message, and the other places it named as notes.
    auto [it, inserted] = seen_.emplace(message, collected_.size());
    if (!inserted) {
      Diagnostic& first = collected_[it->second];
      if (range.file != 0 && first.notes.size() < kMaxNotes && !SameLine(first, range)) {
        first.notes.push_back({range, "also reported here"});
      }
      return true;
    }
    Diagnostic d;
    d.kind = kind;
    d.range = range;
    if (kind == "BpfStackLimit") {
      d.message = "the program needs more than the 512 bytes of stack BPF allows (LLVM: " +
                  message + ")";
    }
    if (severity == llvm::DS_Error) {
      d.severity = Severity::kError;
      if (d.message.empty()) d.message = "the BPF backend rejected the program: " + message;
      errors_++;
    } else {
      d.severity = Severity::kWarning;
      d.message = "the BPF backend warns: " + message;
    }
    collected_.push_back(std::move(d));
    return true;
  }

  /// Moves what was collected into the caller's list.
  void Flush() {
    for (Diagnostic& d : collected_) diags_.Add(std::move(d));
    collected_.clear();
    seen_.clear();
  }

  int errors() const { return errors_; }

 private:
  static std::string Trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '.' || s.back() == ' ')) s.pop_back();
    return s;
  }

  static std::string MessageOf(const llvm::DiagnosticInfo& info) {
    if (const auto* u = llvm::dyn_cast<llvm::DiagnosticInfoUnsupported>(&info)) {
      return Trim(u->getMessage().str());
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::DiagnosticPrinterRawOStream printer(os);
    info.print(printer);
    return Trim(text);
  }

  SourceRange FromLocation(const llvm::DiagnosticLocation& loc) const {
    if (!loc.isValid()) return {};
    return module_.RangeOf(loc.getRelativePath().str(), loc.getLine(), loc.getColumn());
  }

  SourceRange FromFunction(const llvm::Function& fn) const {
    if (const llvm::DISubprogram* sp = fn.getSubprogram()) {
      return FromLocation(llvm::DiagnosticLocation(sp));
    }
    return {};
  }

  SourceRange RangeOf(const llvm::DiagnosticInfo& info) const {
    const llvm::DiagnosticInfoWithLocationBase* with_loc = nullptr;
    if (const auto* u = llvm::dyn_cast<llvm::DiagnosticInfoUnsupported>(&info)) with_loc = u;
    if (const auto* g = llvm::dyn_cast<llvm::DiagnosticInfoGenericWithLoc>(&info)) with_loc = g;
    if (with_loc != nullptr) {
      SourceRange r = FromLocation(with_loc->getLocation());
      return r.file != 0 ? r : FromFunction(with_loc->getFunction());
    }
    if (const auto* g = llvm::dyn_cast<llvm::DiagnosticInfoGeneric>(&info)) {
      if (const llvm::Instruction* inst = g->getInstruction()) {
        if (inst->getDebugLoc()) {
          SourceRange r = FromLocation(llvm::DiagnosticLocation(inst->getDebugLoc()));
          if (r.file != 0) return r;
        }
        return FromFunction(*inst->getFunction());
      }
    }
    if (const auto* r = llvm::dyn_cast<llvm::DiagnosticInfoResourceLimit>(&info)) {
      return FromFunction(r->getFunction());
    }
    return {};
  }

  bool SameLine(const Diagnostic& d, SourceRange r) const {
    auto line = [&](SourceRange x) {
      const SourceFile* f = module_.sources().Get(x.file);
      return f ? f->LineColOf(x.begin).line : 0;
    };
    if (d.range.file == r.file && line(d.range) == line(r)) return true;
    for (const DiagnosticNote& n : d.notes) {
      if (n.range.file == r.file && line(n.range) == line(r)) return true;
    }
    return false;
  }

  static constexpr size_t kMaxNotes = 4;
  BpfModule& module_;
  DiagnosticList& diags_;
  std::vector<Diagnostic> collected_;
  std::map<std::string, size_t> seen_;
  int errors_ = 0;
};

}  // namespace

std::optional<std::string> Codegen(BpfModule& module, const CodegenOptions& options,
                                   DiagnosticList& diags) {
  if (!module.finalized() && !module.Finalize(diags)) return std::nullopt;
  std::string error;
  std::unique_ptr<llvm::TargetMachine> tm = CreateBpfTargetMachine(options.opt, &error);
  if (tm == nullptr) {
    diags.Error("InternalCompilerError", {}, "cannot target BPF: " + error);
    return std::nullopt;
  }
  llvm::LLVMContext& ctx = module.context();
  auto owned = std::make_unique<DiagnosticCollector>(module, diags);
  DiagnosticCollector* collector = owned.get();
  ctx.setDiagnosticHandler(std::move(owned));
  auto restore = [&ctx, collector] {
    collector->Flush();
    ctx.setDiagnosticHandler(std::make_unique<llvm::DiagnosticHandler>());
  };

  llvm::Module& m = module.module();
  RunOptPipeline(m, *tm, options.opt);

  std::string out;
  if (options.emit == EmitKind::kLlvm) {
    llvm::raw_string_ostream os(out);
    m.print(os, nullptr);
  } else {
    llvm::SmallVector<char, 0> buffer;
    llvm::raw_svector_ostream os(buffer);
    llvm::legacy::PassManager pm;
    auto file_type = options.emit == EmitKind::kAsm ? llvm::CodeGenFileType::AssemblyFile
                                                    : llvm::CodeGenFileType::ObjectFile;
    if (tm->addPassesToEmitFile(pm, os, nullptr, file_type)) {
      restore();
      diags.Error("InternalCompilerError", {}, "the BPF target cannot emit this file type");
      return std::nullopt;
    }
    pm.run(m);
    out.assign(buffer.begin(), buffer.end());
  }
  int errors = collector->errors();
  restore();
  if (errors > 0) return std::nullopt;
  return out;
}

}  // namespace uringc
