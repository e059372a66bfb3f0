// The BPF target as uringc uses it: little-endian BPF, CPU v4 (ALU32, JMP32, and `gotol`, whose
// 32-bit offset lets a large controller jump past 32K instructions; every kernel with
// io_uring_bpf_ops has it) pinned because
// LLVM's default CPU differs between versions, no relocation model games. One place creates the
// TargetMachine so the module's data layout and the code generator always agree.
#pragma once

#include <memory>
#include <string>

#include "llvm/Target/TargetMachine.h"

namespace uringc {

inline constexpr const char* kBpfTriple = "bpfel";
inline constexpr const char* kBpfCpu = "v4";

enum class OptLevel { kO0, kO2 };

/// Registers the BPF target with LLVM (idempotent, thread-safe). Only BPF is initialised, which
/// keeps start-up of a fresh `uringc` process short.
void InitializeBpfTarget();

/// A TargetMachine for bpfel/v4, or nullptr with *error set when LLVM lacks the BPF target.
std::unique_ptr<llvm::TargetMachine> CreateBpfTargetMachine(OptLevel level, std::string* error);

}  // namespace uringc
