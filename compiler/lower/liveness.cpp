// Which variables need a word in their task's slot, and which can be plain SSA values. A variable
// must be in the slot when its value crosses an await (it is live where a segment starts: a
// resume state, or after a request, join or race) or when another task reads or writes it.
// All others live only inside one segment and become LLVM values (an alloca per variable,
// promoted to registers right after the step is built), which saves a load or store per use and
// the slot word. Backward liveness over the task's nodes, iterated to a fixed point.
#include <algorithm>

#include "llvm/IR/Dominators.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"
#include "lower/graph_lowerer.h"

namespace uringc::lower {
namespace {

void CollectVars(const rgir::Expr& e, std::vector<rgir::VarId>& out) {
  if (e.op == rgir::Expr::Op::kVar) out.push_back(e.id);
  for (const rgir::Expr& o : e.operands) CollectVars(o, out);
}

}  // namespace

std::vector<rgir::VarId> GraphLowerer::UsesOf(const rgir::Node& n) const {
  std::vector<rgir::VarId> out;
  if (n.value) CollectVars(*n.value, out);
  for (const rgir::Expr& a : n.args) CollectVars(a, out);
  if (n.timeout) CollectVars(*n.timeout, out);
  if (n.kind == rgir::Node::Kind::kDeadlineStart) {
    CollectVars(g_.deadlines[n.scope].duration, out);
    CollectVars(g_.deadlines[n.scope].socket, out);
  }
  return out;
}

void GraphLowerer::PlanRegisterVars() {
  const size_t nv = g_.vars.size();
  const size_t nn = g_.nodes.size();
  in_register_.assign(nv, true);
  for (rgir::VarId v = 0; v < nv; ++v) {
    if (g_.vars[v].kind == rgir::Var::Kind::kOutput) in_register_[v] = false;
  }
  for (const rgir::Task& t : g_.tasks) {
    if (t.index_var != rgir::kNone) in_register_[t.index_var] = false;  // set by the fork
    if (t.result_var != rgir::kNone) in_register_[t.result_var] = false;
  }
  // Used from another task: shared storage.
  std::vector<std::vector<rgir::VarId>> uses(nn);
  for (rgir::NodeId n = 0; n < nn; ++n) {
    const rgir::Node& node = g_.nodes[n];
    uses[n] = UsesOf(node);
    for (rgir::VarId v : uses[n]) {
      if (g_.vars[v].task != node.task) in_register_[v] = false;
    }
    if (node.var != rgir::kNone && g_.vars[node.var].task != node.task) {
      in_register_[node.var] = false;
    }
  }

  // live_in[n] = uses(n) + (live_out(n) - def(n)); sets as sorted vectors.
  std::vector<std::vector<rgir::VarId>> live_in(nn), live_out(nn);
  for (auto& u : uses) {
    std::sort(u.begin(), u.end());
    u.erase(std::unique(u.begin(), u.end()), u.end());
  }
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t i = nn; i-- > 0;) {
      const rgir::Node& node = g_.nodes[i];
      std::vector<rgir::VarId> out;
      for (rgir::NodeId s : Successors(node)) {
        if (s == rgir::kNone) continue;
        std::vector<rgir::VarId> merged;
        std::set_union(out.begin(), out.end(), live_in[s].begin(), live_in[s].end(),
                       std::back_inserter(merged));
        out.swap(merged);
      }
      std::vector<rgir::VarId> in = out;
      if (node.var != rgir::kNone) in.erase(std::remove(in.begin(), in.end(), node.var), in.end());
      std::vector<rgir::VarId> merged;
      std::set_union(in.begin(), in.end(), uses[i].begin(), uses[i].end(),
                     std::back_inserter(merged));
      if (merged != live_in[i] || out != live_out[i]) {
        live_in[i].swap(merged);
        live_out[i].swap(out);
        changed = true;
      }
    }
  }

  // Live where a segment starts: at resume states, and after each await (its own result aside).
  for (const auto& [n, state] : start_state_) {
    for (rgir::VarId v : live_in[n]) in_register_[v] = false;
  }
  for (const auto& [n, state] : after_state_) {
    // A request's result is stored first thing after it; a join's or race's error variable only
    // on the failure path, so it keeps its (zeroed) slot word.
    const rgir::Node& node = g_.nodes[n];
    const bool defines = node.kind == rgir::Node::Kind::kRequest ||
                         node.kind == rgir::Node::Kind::kStreamWait;
    const rgir::VarId chunk = node.kind == rgir::Node::Kind::kStreamWait
                                  ? g_.deadlines[node.scope].chunk
                                  : rgir::kNone;
    for (rgir::VarId v : live_out[n]) {
      if (!defines || (v != node.var && v != chunk)) in_register_[v] = false;
    }
  }
}

llvm::AllocaInst* GraphLowerer::RegisterVar(StepBuilder& b, rgir::VarId v, uint32_t word) {
  auto [it, fresh] = var_alloca_.try_emplace({v, word}, nullptr);
  llvm::Function* f = b.program().function;
  if (fresh) {
    llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
    entry.SetCurrentDebugLocation(b.ir().getCurrentDebugLocation());
    it->second = entry.CreateAlloca(entry.getInt64Ty(), nullptr, g_.vars[v].name);
  }
  // Liveness guarantees a store before every load on paths that run; a 0 stored first thing in
  // each segment that uses the variable keeps paths that never run free of undef (which LLVM
  // could use to reason about real ones, and which the verifier reads as an uninitialised
  // register). Not in the entry block: a store there dominates the whole step, and promoting
  // then costs a walk of every block per variable (5,000 awaits in a row took minutes).
  const bool first_here = seg_entry_ ? seg_zeroed_.insert({v, word}).second : fresh;
  if (first_here) {
    llvm::BasicBlock* at = seg_entry_ ? seg_entry_ : &f->getEntryBlock();
    llvm::IRBuilder<> zero(at, at->getFirstInsertionPt());
    zero.SetCurrentDebugLocation(b.ir().getCurrentDebugLocation());
    zero.CreateStore(zero.getInt64(0), it->second);
  }
  return it->second;
}

void GraphLowerer::PromoteRegisterVars() {
  std::vector<llvm::AllocaInst*> allocas;
  for (const auto& [key, a] : var_alloca_) allocas.push_back(a);
  for (llvm::AllocaInst* a : {direct_.go, direct_.task, direct_.slot, pending_alloca_})
    if (a != nullptr) allocas.push_back(a);
  if (allocas.empty()) return;
  llvm::Function* f = allocas.front()->getFunction();
  llvm::DominatorTree dt(*f);
  llvm::PromoteMemToReg(allocas, dt);
  // mem2reg's phis have no location; each gets its block's (every instruction needs one).
  for (llvm::BasicBlock& bb : *f) {
    auto first = bb.getFirstNonPHIIt();
    if (first == bb.end()) continue;
    for (llvm::PHINode& phi : bb.phis())
      if (!phi.getDebugLoc()) phi.setDebugLoc(first->getDebugLoc());
  }
}

}  // namespace uringc::lower
