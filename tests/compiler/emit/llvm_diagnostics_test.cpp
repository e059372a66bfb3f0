// LLVM's own errors as uringc diagnostics (compiler/emit/llvm_diagnostics.h): a fatal error in
// instruction selection is a `BackendError` at the graph and the process compiles on afterwards
// (as `uringc run` does, in memory); an LLVM warning does not fail code generation; remarks and
// notes are dropped.
#include "emit/llvm_diagnostics.h"

#include <gtest/gtest.h>

#include <string>

#include "driver/compile_command.h"
#include "lowered_graph.h"

namespace uringc {
namespace {

const std::string kNopChain = std::string(URINGC_SOURCE_DIR) + "/examples/nop_chain.uring";

std::optional<std::string> Compile(bool break_isel, driver::Compilation& c,
                                   EmitKind emit = EmitKind::kObj) {
  driver::CompileRequest req;
  req.file = kNopChain;
  req.codegen.emit = emit;
  req.break_instruction_selection = break_isel;
  std::string io_error;
  std::optional<std::string> out = driver::CompileFile(req, c, io_error);
  EXPECT_EQ(io_error, "");
  return out;
}

TEST(LlvmErrors, FatalErrorIsABackendErrorAtTheGraphAndCompilingGoesOn) {
  driver::Compilation before;
  std::optional<std::string> first = Compile(false, before);
  ASSERT_TRUE(first.has_value());

  driver::Compilation broken;
  EXPECT_FALSE(Compile(true, broken).has_value());
  ASSERT_EQ(broken.diagnostics.ErrorCount(), 1u);
  const Diagnostic& d = broken.diagnostics.items().front();
  EXPECT_EQ(d.kind, uringc::DiagKind::kBackendError);
  const SourceFile* file = broken.sources.Get(d.range.file);
  ASSERT_NE(file, nullptr) << d.message;
  EXPECT_EQ(file->LineColOf(d.range.begin).line, 3u);  // `graph nop_chain(...)`
  EXPECT_NE(d.message.find("Cannot select"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("bug in uringc"), std::string::npos) << d.message;
  EXPECT_EQ(d.message.find("0x"), std::string::npos) << d.message;

  // Another module in the same process: same bytes as before the failure, and a second
  // failure is caught the same way.
  driver::Compilation after;
  std::optional<std::string> again = Compile(false, after);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(*again, *first);
  driver::Compilation broken_asm;
  EXPECT_FALSE(Compile(true, broken_asm, EmitKind::kAsm).has_value());
  EXPECT_EQ(broken_asm.diagnostics.ErrorCount(), 1u);
}

TEST(LlvmErrors, WarningFromLlvmDoesNotFailCodegen) {
  std::unique_ptr<testing::LoweredGraph> lowered =
      testing::LowerFirstGraph(kNopChain, /*optimized=*/true);
  ASSERT_NE(lowered, nullptr);
  driver::Compilation& c = lowered->c;
  // LLVM warns (DiagnosticInfoStackSize, a warning) when the frame passes this many bytes.
  lowered->module->module().getFunction(lowered->graph->name)->addFnAttr("warn-stack-size", "1");
  std::optional<std::string> out = Codegen(*lowered->module, CodegenOptions{}, c.diagnostics);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(c.diagnostics.ErrorCount(), 0u);
  ASSERT_EQ(c.diagnostics.items().size(), 1u);
  const Diagnostic& d = c.diagnostics.items().front();
  EXPECT_EQ(d.severity, Severity::kWarning);
  EXPECT_NE(d.message.find("stack frame size"), std::string::npos) << d.message;
  EXPECT_NE(c.sources.Get(d.range.file), nullptr) << "no location: " << d.message;
}

TEST(LlvmErrors, RemarksAndNotesAreDropped) {
  SourceManager sources;
  uint32_t main = sources.Add("main.uring", "graph g() {\n}\n");
  BpfModule module(BpfModuleOptions{.name = "g", .sources = &sources, .main_file = main});
  DiagnosticList diags;
  LlvmDiagnosticCollector collector(module, diags);
  for (llvm::DiagnosticSeverity s : {llvm::DS_Remark, llvm::DS_Note, llvm::DS_Warning}) {
    EXPECT_TRUE(collector.handleDiagnostics(llvm::DiagnosticInfoGeneric("from LLVM", s)));
  }
  collector.Flush();
  ASSERT_EQ(diags.items().size(), 1u);
  EXPECT_EQ(diags.items().front().severity, Severity::kWarning);
  EXPECT_EQ(collector.errors(), 0);
}

}  // namespace
}  // namespace uringc
