// The host target: x86-64 Linux, LLVM's own back end, position-independent code (an application
// links the object into a PIE, `uringc run` links it in memory with ORC's JITLink). Kept beside
// the BPF target (target.h) so each TargetMachine is made in one place.
#pragma once

#include <memory>
#include <string>

#include "emit/target.h"
#include "llvm/Target/TargetMachine.h"

namespace uringc {

inline constexpr const char* kHostTriple = "x86_64-unknown-linux-gnu";

/// Registers the x86-64 target with LLVM (idempotent, thread-safe), the back end and the
/// disassembler-free MC layer the JIT and the object writer need.
void InitializeHostTarget();

/// A TargetMachine for x86-64 (the baseline CPU: the object runs on any x86-64), or nullptr with
/// *error set when LLVM lacks the target.
std::unique_ptr<llvm::TargetMachine> CreateHostTargetMachine(OptLevel level, std::string* error);

}  // namespace uringc
