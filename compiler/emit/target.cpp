// Creates the BPF TargetMachine; see target.h.
#include "emit/target.h"

#include <mutex>

#include "llvm/MC/TargetRegistry.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

extern "C" {
void LLVMInitializeBPFTargetInfo();
void LLVMInitializeBPFTarget();
void LLVMInitializeBPFTargetMC();
void LLVMInitializeBPFAsmPrinter();
void LLVMInitializeBPFAsmParser();  // the loops' `may_goto` is inline asm (bpf_ir/control.cpp)
}

namespace uringc {

void InitializeBpfTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeBPFTargetInfo();
    LLVMInitializeBPFTarget();
    LLVMInitializeBPFTargetMC();
    LLVMInitializeBPFAsmPrinter();
    LLVMInitializeBPFAsmParser();
  });
}

std::unique_ptr<llvm::TargetMachine> CreateBpfTargetMachine(OptLevel level, std::string* error) {
  InitializeBpfTarget();
  llvm::Triple triple(kBpfTriple);
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, *error);
  if (target == nullptr) return nullptr;
  llvm::TargetOptions options;
  // -O0 means no IR optimisation; code generation still uses the greedy register allocator and
  // stack-slot colouring (CodeGenOptLevel::Less): the fast allocator gives every value live
  // across blocks its own slot, and a compiled graph of a few hundred blocks exceeded BPF's
  // 512-byte stack.
  auto opt = level == OptLevel::kO0 ? llvm::CodeGenOptLevel::Less : llvm::CodeGenOptLevel::Default;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, kBpfCpu, /*Features=*/"", options, llvm::Reloc::PIC_, std::nullopt, opt));
  if (tm == nullptr) *error = "LLVM could not create a BPF target machine";
  return tm;
}

}  // namespace uringc
