// Why: the BPF back end materialises a global's address (LD_imm64) in every block that uses it,
// and two of LLVM 22's codegen passes then cost (uses of globals) x (blocks): the BPF custom
// inserter for LD_imm64 walks every machine block per address (Finalize ISel), and early
// MachineLICM hoists each address out of the run loop and clears the kill flags of the hoisted
// register, whose use list grows with each block (MachineRegisterInfo::clearKillFlags). A graph
// of 3,000 awaits spent about a fifth of its compile time there, growing quadratically.
// So, after the IR passes and before code generation, a function with many blocks gets each
// global it uses in many blocks as one value, stored once in the entry block and read back with
// a volatile load LLVM cannot look through; every block then uses that register (or its spill
// slot). Small functions (every example) are left as they are: their code is unchanged. Applied
// to every function, all examples, tests/compiled and the lowering corpus still loaded (7.2), at
// 5-37% more instructions.
#pragma once

#include <cstddef>

#include "llvm/IR/Module.h"

namespace uringc {

/// Functions with fewer blocks are left alone (the examples have at most a few hundred).
inline constexpr size_t kSharedAddressMinFunctionBlocks = 1024;
/// A global used in fewer blocks keeps its per-block address.
inline constexpr size_t kSharedAddressMinBlocks = 64;

/// At most this many globals per function, those used in the most blocks: each shared address
/// may take a stack slot for the whole step (BPF allows 512 bytes).
inline constexpr size_t kSharedAddressMaxGlobals = 8;

/// Rewrites the large functions of `module` as described above.
void ShareGlobalAddresses(llvm::Module& module);

}  // namespace uringc
