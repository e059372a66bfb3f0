// DropUnusedConstantReads (compiler/emit/unused_constant_reads.h): after optimisation a volatile
// read of a load-time constant (a constant `.rodata` global, or a constant offset into one) that
// nothing uses is deleted; a used one stays, and so do volatile reads of anything else (a `.bss`
// global the program writes, a pointer argument), which may be there for their effect.
#include "emit/unused_constant_reads.h"

#include <gtest/gtest.h>

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"

namespace uringc {
namespace {

class UnusedConstantReadsTest : public ::testing::Test {
 protected:
  UnusedConstantReadsTest() : module_("m", ctx_), ir_(ctx_) {
    auto* type = llvm::FunctionType::get(ir_.getInt32Ty(), {ir_.getPtrTy()}, false);
    f_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, "f", module_);
    ir_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", f_));
  }

  llvm::GlobalVariable* Global(const char* name, bool constant, const char* section) {
    auto* type = llvm::ArrayType::get(ir_.getInt32Ty(), 4);
    auto* gv = new llvm::GlobalVariable(module_, type, constant,
                                        llvm::GlobalValue::ExternalLinkage,
                                        llvm::Constant::getNullValue(type), name);
    gv->setSection(section);
    return gv;
  }
  llvm::LoadInst* Read(llvm::Value* at, const char* name) {
    return ir_.CreateAlignedLoad(ir_.getInt32Ty(), at, llvm::Align(4), /*isVolatile=*/true, name);
  }
  bool Has(const char* name) {
    for (llvm::Instruction& inst : f_->getEntryBlock()) {
      if (inst.getName() == name) return true;
    }
    return false;
  }
  void RunPass() {
    llvm::FunctionAnalysisManager fam;
    llvm::PassBuilder pb;
    pb.registerFunctionAnalyses(fam);
    DropUnusedConstantReads().run(*f_, fam);
  }

  llvm::LLVMContext ctx_;
  llvm::Module module_;
  llvm::IRBuilder<> ir_;
  llvm::Function* f_;
};

TEST_F(UnusedConstantReadsTest, OnlyUnusedReadsOfLoadTimeConstantsGo) {
  llvm::GlobalVariable* ring = Global("uringc_ring", /*constant=*/true, ".rodata");
  llvm::GlobalVariable* pending = Global("pending", /*constant=*/false, ".bss");
  Read(ring, "unused_first");
  Read(ir_.CreateConstInBoundsGEP2_32(ring->getValueType(), ring, 0, 2), "unused_field");
  llvm::Value* used = Read(ir_.CreateConstInBoundsGEP2_32(ring->getValueType(), ring, 0, 1),
                           "used_field");
  Read(pending, "unused_bss");
  Read(f_->getArg(0), "unused_arg");
  ir_.CreateRet(used);
  RunPass();
  EXPECT_FALSE(Has("unused_first"));
  EXPECT_FALSE(Has("unused_field"));
  EXPECT_TRUE(Has("used_field"));
  EXPECT_TRUE(Has("unused_bss"));
  EXPECT_TRUE(Has("unused_arg"));
}

}  // namespace
}  // namespace uringc
