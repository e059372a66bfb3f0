// The host target (emit/host_module.cpp, bpf_object_layout.cpp): a lowered example, cloned before
// any BPF pass and retargeted, keeps no BPF global, kfunc or section; its globals become offsets
// into the state at the BPF object's own offsets; the descriptor holds the step, the state's
// image and the BPF object; and it compiles to an x86-64 object. The BPF object's layout is read
// back correctly and anything but a BPF object is refused.
#include "emit/host_module.h"

#include <gtest/gtest.h>

#include "emit/codegen.h"
#include "llvm/IR/Constants.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "lowered_graph.h"
#include "uringc/program.h"

namespace uringc::testing {
namespace {

struct Built {
  std::unique_ptr<LoweredGraph> lowered;
  std::string bpf_object;
};

// Lowers `example` (one without imports: the helper sets no stdlib), keeps the host copy, and makes
// the BPF object from the original.
Built Build(const std::string& example) {
  Built b;
  b.lowered = LowerFirstGraph(std::string(URINGC_SOURCE_DIR) + "/examples/" + example, true);
  if (!b.lowered) return b;
  DiagnosticList& diags = b.lowered->c.diagnostics;
  BpfModule& m = *b.lowered->module;
  EXPECT_TRUE(m.Finalize(diags));
  m.CloneForHost();
  auto obj = Codegen(m, CodegenOptions{}, diags);
  EXPECT_TRUE(obj.has_value());
  if (obj) b.bpf_object = *obj;
  return b;
}

TEST(BpfObjectLayout, FindsEveryDataSectionAndGlobal) {
  Built b = Build("hedge.uring");
  ASSERT_FALSE(b.bpf_object.empty());
  std::string error;
  auto layout = ReadBpfObjectLayout(b.bpf_object, error);
  ASSERT_TRUE(layout.has_value()) << error;
  std::vector<std::string> names;
  for (const BpfDataSection& s : layout->sections) names.push_back(s.name);
  EXPECT_NE(std::find(names.begin(), names.end(), ".rodata"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), ".bss"), names.end());
  for (const char* g : {"uringc_ring", "uringc_status", "uringc_error", "winner", "bytes"}) {
    ASSERT_EQ(layout->globals.count(g), 1u) << g;
    const BpfGlobalPlace& p = layout->globals.at(g);
    EXPECT_LT(p.offset, layout->sections[p.section].size) << g;
  }
  // .bss has no bytes in the object; .rodata's hold the constants' initial values.
  for (const BpfDataSection& s : layout->sections) {
    if (s.name == ".bss") {
      EXPECT_TRUE(s.bytes.empty());
    }
    if (s.name == ".rodata") {
      EXPECT_EQ(s.bytes.size(), s.size);
    }
  }
}

TEST(BpfObjectLayout, RefusesWhatIsNoBpfObject) {
  std::string error;
  EXPECT_FALSE(ReadBpfObjectLayout("not an ELF file", error).has_value());
  EXPECT_FALSE(error.empty());
  EXPECT_TRUE(IsBpfDataSection(".rodata"));
  EXPECT_TRUE(IsBpfDataSection(".rodata.str1.1"));
  EXPECT_TRUE(IsBpfDataSection(".bss"));
  EXPECT_FALSE(IsBpfDataSection(".rodatax"));
  EXPECT_FALSE(IsBpfDataSection(".struct_ops.link"));
}

TEST(HostModule, KeepsNothingOfBpfAndDescribesTheProgram) {
  Built b = Build("hedge.uring");
  ASSERT_FALSE(b.bpf_object.empty());
  llvm::Module& host = *b.lowered->module->host_module();
  DiagnosticList& diags = b.lowered->c.diagnostics;
  HostModuleSpec spec;
  spec.graph = spec.program = "hedge";
  spec.bpf_object = b.bpf_object;
  ASSERT_TRUE(RetargetModuleToHost(host, spec, diags));
  EXPECT_EQ(host.getTargetTriple().str(), "x86_64-unknown-linux-gnu");
  for (const llvm::GlobalVariable& gv : host.globals()) {
    EXPECT_FALSE(IsBpfDataSection(gv.getSection().str())) << gv.getName().str();
    EXPECT_NE(gv.getSection(), ".struct_ops.link");
  }
  for (const llvm::Function& f : host.functions()) {
    EXPECT_FALSE(f.getName().starts_with("bpf_")) << f.getName().str();
    EXPECT_TRUE(f.getSection().empty()) << f.getName().str();
  }
  EXPECT_NE(host.getFunction("uringc_host_get_region"), nullptr);
  EXPECT_NE(host.getFunction("uringc_host_submit_sqes"), nullptr);
  llvm::GlobalVariable* program = host.getGlobalVariable("uringc_program_hedge");
  ASSERT_NE(program, nullptr);
  auto* init = llvm::cast<llvm::ConstantStruct>(program->getInitializer());
  EXPECT_EQ(llvm::cast<llvm::ConstantInt>(init->getOperand(0))->getZExtValue(),
            uint64_t{URINGC_PROGRAM_ABI});
  EXPECT_EQ(llvm::cast<llvm::ConstantInt>(init->getOperand(4))->getZExtValue(),
            b.bpf_object.size());
  EXPECT_EQ(init->getOperand(5), host.getFunction("uringc_step_hedge"));

  ASSERT_TRUE(OptimizeModule(*b.lowered->module, OptLevel::kO2, diags, CodeTarget::kHost));
  auto obj = EmitModule(*b.lowered->module, CodegenOptions{}, diags, CodeTarget::kHost);
  ASSERT_TRUE(obj.has_value());
  auto file = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(llvm::StringRef(*obj), "hedge.o"));
  ASSERT_TRUE(static_cast<bool>(file)) << llvm::toString(file.takeError());
  EXPECT_EQ((*file)->getArch(), llvm::Triple::x86_64);
}

TEST(HostModule, NamesTheDescriptorAsAsked) {
  Built b = Build("nop_chain.uring");
  ASSERT_FALSE(b.bpf_object.empty());
  llvm::Module& host = *b.lowered->module->host_module();
  ASSERT_TRUE(RetargetModuleToHost(host,
                                   {.graph = "nop_chain",
                                    .program = "nop_chain",
                                    .symbol = "my_chain",
                                    .bpf_object = b.bpf_object},
                                   b.lowered->c.diagnostics));
  EXPECT_NE(host.getGlobalVariable("my_chain"), nullptr);
  EXPECT_EQ(host.getGlobalVariable("uringc_program_nop_chain"), nullptr);
}

TEST(HostModule, AnObjectThatIsNotTheModulesIsAnInternalError) {
  Built b = Build("nop_chain.uring");
  ASSERT_NE(b.lowered, nullptr);
  DiagnosticList& diags = b.lowered->c.diagnostics;
  HostModuleSpec spec;
  spec.graph = spec.program = "nop_chain";
  spec.bpf_object = "garbage";
  EXPECT_FALSE(RetargetModuleToHost(*b.lowered->module->host_module(), spec, diags));
  ASSERT_FALSE(diags.items().empty());
  EXPECT_EQ(diags.items().back().kind, DiagKind::kInternalCompilerError);
}

}  // namespace
}  // namespace uringc::testing
