// Creates the x86-64 TargetMachine; see host_target.h.
#include "emit/host_target.h"

#include <mutex>

#include "llvm/MC/TargetRegistry.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

extern "C" {
void LLVMInitializeX86TargetInfo();
void LLVMInitializeX86Target();
void LLVMInitializeX86TargetMC();
void LLVMInitializeX86AsmPrinter();
}

namespace uringc {

void InitializeHostTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
  });
}

std::unique_ptr<llvm::TargetMachine> CreateHostTargetMachine(OptLevel level, std::string* error) {
  InitializeHostTarget();
  llvm::Triple triple(kHostTriple);
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, *error);
  if (target == nullptr) return nullptr;
  llvm::TargetOptions options;
  auto opt = level == OptLevel::kO0 ? llvm::CodeGenOptLevel::None : llvm::CodeGenOptLevel::Default;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, "x86-64", /*Features=*/"", options, llvm::Reloc::PIC_, llvm::CodeModel::Small, opt));
  if (tm == nullptr) *error = "LLVM could not create an x86-64 target machine";
  return tm;
}

}  // namespace uringc
