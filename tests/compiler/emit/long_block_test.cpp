// HasLongBlock (compiler/emit/long_block_pass_gate.h), the test that keeps InstCombine and the
// two-address pass's optimisations off functions with a very long straight run of code: a block
// of 1,024 IR instructions counts, and so does a chain of smaller blocks that only fall into
// each other (each the next one's sole predecessor), which SimplifyCFG would merge into one;
// a conditional branch or a second predecessor ends the run.
#include "emit/long_block_pass_gate.h"

#include <gtest/gtest.h>

#include <memory>

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace uringc {
namespace {

class LongBlockTest : public ::testing::Test {
 protected:
  LongBlockTest() : module_("m", ctx_), ir_(ctx_) {
    auto* type = llvm::FunctionType::get(ir_.getInt64Ty(), {ir_.getInt64Ty()}, false);
    f_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, "f", module_);
    value_ = f_->getArg(0);
  }

  llvm::BasicBlock* Block() { return llvm::BasicBlock::Create(ctx_, "b", f_); }
  // `n` instructions into the current block: n - 1 additions, then its terminator.
  void Fill(size_t n) {
    for (size_t i = 0; i + 1 < n; ++i) value_ = ir_.CreateAdd(value_, ir_.getInt64(i + 1));
  }

  llvm::LLVMContext ctx_;
  llvm::Module module_;
  llvm::IRBuilder<> ir_;
  llvm::Function* f_;
  llvm::Value* value_;
};

TEST_F(LongBlockTest, OneBlockOfTheLimitIsLong) {
  ir_.SetInsertPoint(Block());
  Fill(kLongBlockInstructions);
  ir_.CreateRet(value_);
  EXPECT_TRUE(HasLongBlock(*f_));
}

TEST_F(LongBlockTest, OneBlockJustUnderIsNot) {
  ir_.SetInsertPoint(Block());
  Fill(kLongBlockInstructions - 1);
  ir_.CreateRet(value_);
  EXPECT_FALSE(HasLongBlock(*f_));
}

TEST_F(LongBlockTest, BlocksThatFallIntoEachOtherCountAsOne) {
  llvm::BasicBlock* b = Block();
  ir_.SetInsertPoint(b);
  for (int i = 0; i < 8; ++i) {
    Fill(kLongBlockInstructions / 8);
    llvm::BasicBlock* next = Block();
    ir_.CreateBr(next);
    ir_.SetInsertPoint(next);
  }
  ir_.CreateRet(value_);
  EXPECT_TRUE(HasLongBlock(*f_));
}

TEST_F(LongBlockTest, AConditionalBranchEndsTheRun) {
  // Two halves of the limit with an if between them: neither run is long.
  ir_.SetInsertPoint(Block());
  Fill(kLongBlockInstructions / 2);
  llvm::BasicBlock* then = Block();
  llvm::BasicBlock* join = Block();
  ir_.CreateCondBr(ir_.CreateICmpEQ(value_, ir_.getInt64(0)), then, join);
  ir_.SetInsertPoint(then);
  ir_.CreateBr(join);
  ir_.SetInsertPoint(join);  // two predecessors: a run of its own
  Fill(kLongBlockInstructions / 2);
  ir_.CreateRet(value_);
  EXPECT_FALSE(HasLongBlock(*f_));
}

}  // namespace
}  // namespace uringc
