// LLVM diagnostics and fatal errors as uringc Diagnostics; see llvm_diagnostics.h.
#include "emit/llvm_diagnostics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

namespace uringc {
namespace {

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '.' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string MessageOf(const llvm::DiagnosticInfo& info) {
  if (const auto* u = llvm::dyn_cast<llvm::DiagnosticInfoUnsupported>(&info)) {
    return Trim(u->getMessage().str());
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::DiagnosticPrinterRawOStream printer(os);
  info.print(printer);
  return Trim(text);
}

}  // namespace

bool LlvmDiagnosticCollector::handleDiagnostics(const llvm::DiagnosticInfo& info) {
  llvm::DiagnosticSeverity severity = info.getSeverity();
  if (severity != llvm::DS_Error && severity != llvm::DS_Warning) return true;
  std::string message = MessageOf(info);
  SourceRange range = RangeOf(info);
  const DiagKind kind = message.find("stack limit") != std::string::npos ? DiagKind::kBpfStackLimit
                                                                         : DiagKind::kBackendError;
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
  if (kind == DiagKind::kBpfStackLimit) {
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

void LlvmDiagnosticCollector::Flush() {
  for (Diagnostic& d : collected_) diags_.Add(std::move(d));
  collected_.clear();
  seen_.clear();
}

SourceRange LlvmDiagnosticCollector::FromLocation(const llvm::DiagnosticLocation& loc) const {
  if (!loc.isValid()) return {};
  return module_.RangeOf(loc.getRelativePath().str(), loc.getLine(), loc.getColumn());
}

SourceRange LlvmDiagnosticCollector::FromFunction(const llvm::Function& fn) const {
  if (const llvm::DISubprogram* sp = fn.getSubprogram()) {
    return FromLocation(llvm::DiagnosticLocation(sp));
  }
  return {};
}

SourceRange LlvmDiagnosticCollector::RangeOf(const llvm::DiagnosticInfo& info) const {
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

bool LlvmDiagnosticCollector::SameLine(const Diagnostic& d, SourceRange r) const {
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


SourceRange FirstProgramRange(BpfModule& module) {
  for (const llvm::Function& fn : module.module()) {
    if (const llvm::DISubprogram* sp = fn.getSubprogram(); sp != nullptr && !fn.isDeclaration()) {
      llvm::DiagnosticLocation loc(sp);
      return module.RangeOf(loc.getRelativePath().str(), loc.getLine(), loc.getColumn());
    }
  }
  return {};
}

namespace {

// LLVM calls this with the message of a fatal error; the process is then ended by abort() or
// sys::Process::Exit, both of which the CrashRecoveryContext turns into a return from RunSafely.
void KeepFatalMessage(void* message, const char* reason, bool /*gen_crash_diag*/) {
  auto* out = static_cast<std::string*>(message);
  if (out->empty()) *out = reason;
}

// The first line of LLVM's message, without the addresses of SelectionDAG nodes (`0x55d1...:`),
// which differ from run to run.
std::string CleanFatalMessage(const std::string& raw) {
  std::string line = raw.substr(0, raw.find('\n'));
  std::string out;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line.compare(i, 2, "0x") == 0 && i + 2 < line.size() && llvm::isHexDigit(line[i + 2])) {
      size_t j = i + 2;
      while (j < line.size() && llvm::isHexDigit(line[j])) ++j;
      if (j < line.size() && line[j] == ':') ++j;
      while (j < line.size() && line[j] == ' ') ++j;
      i = j - 1;
      continue;
    }
    out += line[i];
  }
  // Removing the addresses leaves empty items in the operand list (`..>, , , Constant:i64<1>`).
  std::string joined;
  for (llvm::StringRef item : llvm::split(out, ", ")) {
    item = item.trim();
    if (item.empty()) continue;
    joined += (joined.empty() ? "" : ", ") + item.str();
  }
  return Trim(joined);
}

}  // namespace

bool RunCatchingLlvmFatalErrors(llvm::function_ref<void()> fn, std::string& message) {
  // Installs LLVM's handlers for crash signals (SIGABRT from report_fatal_error among them); a
  // signal outside any CrashRecoveryContext still ends the process as before.
  llvm::CrashRecoveryContext::Enable();
  std::string raw;
  bool finished = false;
  {
    llvm::ScopedFatalErrorHandler handler(KeepFatalMessage, &raw);
    llvm::CrashRecoveryContext crc;
    finished = crc.RunSafely(fn);
    if (!finished && raw.empty()) {
      raw = "LLVM crashed (status " + std::to_string(crc.RetCode) + ")";
    }
  }
  if (!finished) message = CleanFatalMessage(raw);
  return finished;
}

}  // namespace uringc
