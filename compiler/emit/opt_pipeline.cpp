// uringc's O2 pipeline; see opt_pipeline.h. Each pass below was kept because leaving it out made
// some example bigger (static BPF instructions, `llvm-objdump -d`); the measurements are in
// docs/codegen.md ("Compile time").
#include "emit/opt_pipeline.h"

#include <utility>

#include "emit/long_block_pass_gate.h"
#include "emit/unused_constant_reads.h"

#include "llvm/IR/PassTimingInfo.h"
#include "llvm/Pass.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/DeadStoreElimination.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/GVN.h"
#include "llvm/Transforms/Scalar/IndVarSimplify.h"
#include "llvm/Transforms/Scalar/JumpThreading.h"
#include "llvm/Transforms/Scalar/LICM.h"
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Scalar/LoopRotation.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"

namespace uringc {
namespace {

using llvm::OptimizationLevel;

// Runs `Pass` on a function unless it has a very long straight run of code (HasLongBlock): there
// a pass that walks known bits through a dense dependency chain costs much and finds little.
template <typename Pass>
class UnlessLongBlock : public llvm::PassInfoMixin<UnlessLongBlock<Pass>> {
 public:
  explicit UnlessLongBlock(Pass pass) : pass_(std::move(pass)) {}
  llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager& fam) {
    if (HasLongBlock(f)) return llvm::PreservedAnalyses::all();
    return pass_.run(f, fam);
  }
  static bool isRequired() { return false; }

 private:
  Pass pass_;
};

llvm::ModulePassManager BuildO2(llvm::PassBuilder& pb) {
  const OptimizationLevel level = OptimizationLevel::O2;
  llvm::ModulePassManager mpm;
  // BPF: CO-RE and preserve-static-offset lowering, then BPFAdjustOpt, which keeps later passes
  // from producing shapes the kernel verifier rejects (as in the default pipeline).
  pb.invokePipelineStartEPCallbacks(mpm, level);
  pb.invokePipelineEarlySimplificationEPCallbacks(mpm, level, llvm::ThinOrFullLTOPhase::None);

  // What leaving a pass out cost (static instructions, measured 2026-11-30 on the lowering before
  // the one-task specialisation): EarlyCSE echo +198, the first InstCombine+SimplifyCFG echo +42,
  // JumpThreading tee +67, the loop passes nop_chain +9, IndVarSimplify copy +36, GVN tee +49,
  // the second InstCombine echo +59. SROA and SCCP changed nothing (before and after it), nor
  // did ADCE (before); CorrelatedValuePropagation made copy 156 bigger (after). DSE is left out
  // since the shared failure block (2026-11-30): it saved at most 7 instructions (tee; hedge
  // was 21 smaller without it) for 5% of tee's compile time.
  llvm::FunctionPassManager fpm;
  fpm.addPass(llvm::EarlyCSEPass());
  // Neither InstCombine on a function with a straight run of 1,024 IR instructions or more
  // (long_block_pass_gate.h): on arithmetic of 10,000 lines each cost 90 ms, and without them
  // it came out 9 instructions smaller (EarlyCSE and GVN do that folding there).
  fpm.addPass(UnlessLongBlock(llvm::InstCombinePass()));
  fpm.addPass(llvm::SimplifyCFGPass());
  fpm.addPass(llvm::JumpThreadingPass());
  llvm::LoopPassManager loop;  // the reap, run and `parallel` loops
  loop.addPass(llvm::LICMPass(llvm::LICMOptions()));
  loop.addPass(llvm::LoopRotatePass());
  loop.addPass(llvm::LICMPass(llvm::LICMOptions()));
  fpm.addPass(llvm::createFunctionToLoopPassAdaptor(std::move(loop), /*UseMemorySSA=*/true));
  fpm.addPass(llvm::createFunctionToLoopPassAdaptor(llvm::IndVarSimplifyPass()));
  fpm.addPass(llvm::GVNPass());
  fpm.addPass(UnlessLongBlock(llvm::InstCombinePass()));
  // Not the peephole callbacks: BPF's SimplifyCFG with hoisted common instructions made echo
  // 5% bigger, and its address-space pass has nothing to do (no arena pointers).
  pb.invokeScalarOptimizerLateEPCallbacks(fpm, level);
  fpm.addPass(DropUnusedConstantReads());  // volatile, so no pass above removes them
  fpm.addPass(llvm::SimplifyCFGPass());
  mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
  return mpm;
}

}  // namespace

void RunOptPipeline(llvm::Module& module, llvm::TargetMachine& tm, OptLevel level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // With `uringc compile --time-passes` (llvm::TimePassesIsEnabled) each pass is timed.
  llvm::PassInstrumentationCallbacks pic;
  llvm::TimePassesHandler timers(llvm::TimePassesIsEnabled);
  timers.registerCallbacks(pic);
  // With the TargetMachine, so the BPF backend's own IR passes join the pipeline.
  llvm::PassBuilder pb(&tm, llvm::PipelineTuningOptions(), std::nullopt, &pic);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = level == OptLevel::kO0
                                    ? pb.buildO0DefaultPipeline(OptimizationLevel::O0)
                                    : BuildO2(pb);
  mpm.run(module, mam);
  timers.print();
}

}  // namespace uringc
