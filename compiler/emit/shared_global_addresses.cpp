// Global addresses computed once per large function; see shared_global_addresses.h.
#include "emit/shared_global_addresses.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/ReplaceConstant.h"

namespace uringc {
namespace {

// Globals the rewrite may route through a register: our own definitions holding data (.bss,
// .data, .rodata). Not maps, externs (kfuncs, CO-RE relocation globals, which carry attributes
// the BPF back end reads at each use) or anything without an initializer.
bool Shareable(const llvm::GlobalVariable& g) {
  if (!g.hasInitializer() || g.hasAttributes()) return false;
  return !g.hasSection() || g.getSection() != ".maps";
}

// Every global use in `f` (directly or through constant expressions), by global: the set of
// blocks using it.
llvm::DenseMap<llvm::GlobalVariable*, llvm::SmallPtrSet<llvm::BasicBlock*, 16>> BlocksUsing(
    llvm::Function& f) {
  llvm::DenseMap<llvm::GlobalVariable*, llvm::SmallPtrSet<llvm::BasicBlock*, 16>> out;
  std::vector<const llvm::Constant*> work;
  for (llvm::BasicBlock& bb : f) {
    for (llvm::Instruction& inst : bb) {
      for (llvm::Value* op : inst.operands()) {
        auto* c = llvm::dyn_cast<llvm::Constant>(op);
        if (c == nullptr || llvm::isa<llvm::Function>(c)) continue;
        work.assign(1, c);
        while (!work.empty()) {
          const llvm::Constant* k = work.back();
          work.pop_back();
          if (auto* g = llvm::dyn_cast<llvm::GlobalVariable>(k)) {
            out[const_cast<llvm::GlobalVariable*>(g)].insert(&bb);
          } else if (llvm::isa<llvm::ConstantExpr>(k)) {
            for (const llvm::Use& u : k->operands()) work.push_back(llvm::cast<llvm::Constant>(u));
          }
        }
      }
    }
  }
  return out;
}

void ShareInFunction(llvm::Function& f) {
  std::vector<std::pair<size_t, llvm::GlobalVariable*>> candidates;
  for (auto& [g, blocks] : BlocksUsing(f)) {
    if (blocks.size() >= kSharedAddressMinBlocks && Shareable(*g)) {
      candidates.emplace_back(blocks.size(), g);
    }
  }
  if (candidates.empty()) return;
  // The most used first; ties by name, so the output does not depend on pointer order.
  std::sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second->getName() < b.second->getName();
  });
  if (candidates.size() > kSharedAddressMaxGlobals) candidates.resize(kSharedAddressMaxGlobals);
  std::vector<llvm::Constant*> shared;
  for (const auto& c : candidates) shared.push_back(c.second);
  // Constant-expression users (a GEP to a field) become instructions of `f`, so the global
  // itself is an operand that can be replaced.
  llvm::convertUsersOfConstantsToInstructions(shared, &f);
  llvm::BasicBlock& entry = f.getEntryBlock();
  llvm::IRBuilder<> ir(&entry, entry.getFirstInsertionPt());
  const llvm::DebugLoc loc = entry.getFirstInsertionPt()->getDebugLoc();
  ir.SetCurrentDebugLocation(loc);
  llvm::Type* ptr = ir.getPtrTy();
  for (llvm::Constant* c : shared) {
    auto* g = llvm::cast<llvm::GlobalVariable>(c);
    // Stored once and read back once with a volatile load, which neither ISel nor MachineLICM
    // can turn back into the constant: the register allocator keeps the value in a register
    // or spills it. The slot lives only between the two, so all globals share its 8 bytes.
    llvm::AllocaInst* slot = ir.CreateAlloca(ptr, nullptr, g->getName() + ".slot");
    ir.CreateLifetimeStart(slot);
    llvm::StoreInst* init = ir.CreateStore(g, slot);
    llvm::LoadInst* addr = ir.CreateLoad(ptr, slot, /*isVolatile=*/true, g->getName() + ".addr");
    ir.CreateLifetimeEnd(slot);
    g->replaceUsesWithIf(addr, [&](llvm::Use& u) {
      auto* user = llvm::dyn_cast<llvm::Instruction>(u.getUser());
      return user != nullptr && user != init && user->getFunction() == &f;
    });
  }
}

}  // namespace

void ShareGlobalAddresses(llvm::Module& module) {
  for (llvm::Function& f : module) {
    if (!f.isDeclaration() && f.size() >= kSharedAddressMinFunctionBlocks) ShareInFunction(f);
  }
}

}  // namespace uringc
