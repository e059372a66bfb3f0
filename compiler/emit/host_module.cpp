// Rewrites a lowered controller module for the host engine; see host_module.h.
#include "emit/host_module.h"

#include <algorithm>
#include <vector>

#include "emit/host_target.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/Support/Alignment.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "uringc/program.h"

namespace uringc {
namespace {

// Each data section starts on a cache line of the state, whatever its own alignment.
constexpr uint64_t kSectionAlign = 64;

struct Rename {
  const char* kfunc;
  const char* host;
};
constexpr Rename kRuntimeCalls[] = {
    {"bpf_io_uring_get_region", "uringc_host_get_region"},
    {"bpf_io_uring_submit_sqes", "uringc_host_submit_sqes"},
    {"bpf_copy_from_user_str", "uringc_host_copy_from_user_str"},
};

bool Fail(DiagnosticList& diags, const std::string& what) {
  diags.Error(DiagKind::kInternalCompilerError, {},
              "cannot build the host engine's code (a uringc bug): " + what);
  return false;
}

llvm::GlobalVariable* PrivateConstant(llvm::Module& m, llvm::Constant* init, std::string name,
                                      uint64_t align) {
  auto* gv = new llvm::GlobalVariable(m, init->getType(), /*isConstant=*/true,
                                      llvm::GlobalValue::PrivateLinkage, init, name);
  gv->setAlignment(llvm::Align(align));
  gv->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  return gv;
}

// Calls of the BPF helpers the lowering uses (through their numbers) become calls of the
// runtime's counterparts, same arguments and results.
struct HostHelper {
  uint64_t number;
  const char* host;
};
constexpr HostHelper kHostHelpers[] = {
    {kCopyFromUserHelper, "uringc_host_copy_from_user"},
    {kKtimeGetNsHelper, "uringc_host_ktime_get_ns"},
};

void CallHostHelpers(llvm::Module& m) {
  std::vector<std::pair<llvm::CallInst*, const char*>> calls;
  for (llvm::Function& f : m) {
    for (llvm::Instruction& i : llvm::instructions(f)) {
      auto* call = llvm::dyn_cast<llvm::CallInst>(&i);
      if (call == nullptr || call->getCalledFunction() != nullptr) continue;
      auto* cast = llvm::dyn_cast<llvm::ConstantExpr>(call->getCalledOperand());
      if (cast == nullptr || cast->getOpcode() != llvm::Instruction::IntToPtr) continue;
      auto* number = llvm::dyn_cast<llvm::ConstantInt>(cast->getOperand(0));
      if (number == nullptr) continue;
      for (const HostHelper& h : kHostHelpers)
        if (number->getZExtValue() == h.number) calls.emplace_back(call, h.host);
    }
  }
  for (auto [call, host] : calls) {
    call->setCalledOperand(m.getOrInsertFunction(host, call->getFunctionType()).getCallee());
  }
}

// The BPF loops' `may_goto` heads (bpf_ir/control.cpp, EmitIterLoop) always go on: the host
// has no loop budget, and each loop ends at its own count.
void DropMayGotos(llvm::Function& step) {
  std::vector<llvm::CallBrInst*> heads;
  for (llvm::BasicBlock& bb : step)
    if (auto* cb = llvm::dyn_cast<llvm::CallBrInst>(bb.getTerminator()))
      if (auto* asm_ = llvm::dyn_cast<llvm::InlineAsm>(cb->getCalledOperand());
          asm_ != nullptr && asm_->getAsmString().starts_with("may_goto"))
        heads.push_back(cb);
  for (llvm::CallBrInst* cb : heads) {
    for (llvm::BasicBlock* out : cb->getIndirectDests()) out->removePredecessor(cb->getParent());
    llvm::BranchInst::Create(cb->getDefaultDest(), cb->getIterator());
    cb->eraseFromParent();
  }
}

// The BPF object's subprograms (BpfModule::CreateHelper: code shared to keep the object small)
// go back into the step: they address the `.bss` state, which on the host is relative to the
// step's state pointer, and native code does not care about their size.
bool InlineHelpers(llvm::Module& m, llvm::Function& step) {
  std::vector<llvm::Function*> helpers;
  for (llvm::Function& f : m)
    if (&f != &step && !f.isDeclaration() && f.hasInternalLinkage()) helpers.push_back(&f);
  for (llvm::Function* f : helpers) {
    std::vector<llvm::CallBase*> calls;
    for (llvm::User* u : f->users()) {
      auto* call = llvm::dyn_cast<llvm::CallBase>(u);
      if (call == nullptr || call->getCalledFunction() != f) return false;
      calls.push_back(call);
    }
    for (llvm::CallBase* call : calls) {
      llvm::InlineFunctionInfo info;
      if (!llvm::InlineFunction(*call, info).isSuccess()) return false;
    }
    f->eraseFromParent();
  }
  return true;
}

}  // namespace

std::string HostProgramSymbol(std::string_view graph) {
  return "uringc_program_" + std::string(graph);
}

bool RetargetModuleToHost(llvm::Module& m, const HostModuleSpec& spec, DiagnosticList& diags) {
  llvm::LLVMContext& ctx = m.getContext();
  std::string error;
  auto tm = CreateHostTargetMachine(OptLevel::kO2, &error);
  if (tm == nullptr) return Fail(diags, error);
  auto layout = ReadBpfObjectLayout(spec.bpf_object, error);
  if (!layout) return Fail(diags, "reading the BPF object: " + error);
  m.setTargetTriple(llvm::Triple(kHostTriple));
  m.setDataLayout(tm->createDataLayout());

  llvm::Function* step = m.getFunction(spec.program);
  if (step == nullptr || step->isDeclaration() || step->arg_size() != 1)
    return Fail(diags, "no program `" + spec.program + "`");
  if (!InlineHelpers(m, *step)) return Fail(diags, "a subprogram could not be inlined");

  // What only libbpf and the kernel read.
  if (auto* used = m.getGlobalVariable("llvm.compiler.used")) used->eraseFromParent();
  std::vector<llvm::GlobalVariable*> dropped;
  for (llvm::GlobalVariable& gv : m.globals()) {
    if (gv.getSection() == ".struct_ops.link" || gv.getSection() == "license")
      dropped.push_back(&gv);
  }
  for (llvm::GlobalVariable* gv : dropped) gv->eraseFromParent();

  step->setSection("");
  step->setLinkage(llvm::GlobalValue::InternalLinkage);
  step->setName("uringc_step_" + spec.graph);
  step->removeFnAttr("no-jump-tables");

  for (const Rename& r : kRuntimeCalls) {
    if (llvm::Function* fn = m.getFunction(r.kfunc)) {
      fn->setName(r.host);
      fn->setSection("");
      fn->setLinkage(llvm::GlobalValue::ExternalLinkage);
    }
  }
  DropMayGotos(*step);
  CallHostHelpers(m);

  // The state: the data sections one after another, as the BPF object has them.
  std::vector<uint64_t> section_offset;
  uint64_t state_size = 0;
  for (const BpfDataSection& s : layout->sections) {
    state_size = llvm::alignTo(state_size, std::max<uint64_t>(kSectionAlign, s.align));
    section_offset.push_back(state_size);
    state_size += s.size;
  }
  std::string image(std::max<uint64_t>(state_size, 1), '\0');
  for (size_t i = 0; i < layout->sections.size(); ++i) {
    const std::string& bytes = layout->sections[i].bytes;
    std::copy(bytes.begin(), bytes.end(), image.begin() + section_offset[i]);
  }

  // args[0] is the struct uringc_host_ctx *; its first field the state, fixed for a step.
  llvm::IRBuilder<> ir(&*step->getEntryBlock().getFirstInsertionPt());
  if (const llvm::Instruction* first = &*step->getEntryBlock().begin())
    ir.SetCurrentDebugLocation(first->getDebugLoc());
  llvm::Value* host_ctx =
      ir.CreateIntToPtr(ir.CreateLoad(ir.getInt64Ty(), step->getArg(0)), ir.getPtrTy(), "host_ctx");
  llvm::LoadInst* state = ir.CreateLoad(ir.getPtrTy(), host_ctx, "state");
  state->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(ctx, {}));

  std::vector<llvm::GlobalVariable*> moved;
  for (llvm::GlobalVariable& gv : m.globals()) {
    if (IsBpfDataSection(gv.getSection().str())) moved.push_back(&gv);
  }
  for (llvm::GlobalVariable* gv : moved) {
    auto place = layout->globals.find(gv->getName().str());
    if (place == layout->globals.end()) {
      if (gv->use_empty()) {
        gv->eraseFromParent();
        continue;
      }
      return Fail(diags, "`" + gv->getName().str() + "` is not in the BPF object");
    }
    llvm::convertUsersOfConstantsToInstructions({gv});
    for (llvm::User* u : gv->users()) {
      auto* inst = llvm::dyn_cast<llvm::Instruction>(u);
      if (inst == nullptr || inst->getFunction() != step)
        return Fail(diags, "`" + gv->getName().str() + "` is used outside the program");
    }
    const uint64_t offset = section_offset[place->second.section] + place->second.offset;
    llvm::Value* address = ir.CreateConstInBoundsGEP1_64(ir.getInt8Ty(), state, offset);
    address->setName(gv->getName());
    gv->replaceAllUsesWith(address);
    gv->eraseFromParent();
  }

  // The descriptor (struct uringc_program).
  llvm::Type* i32 = ir.getInt32Ty();
  llvm::Type* i64 = ir.getInt64Ty();
  llvm::Type* ptr = ir.getPtrTy();
  auto string = [&](std::string_view s, const std::string& name, uint64_t align) {
    return PrivateConstant(
        m, llvm::ConstantDataArray::getString(ctx, llvm::StringRef(s.data(), s.size()), false),
        name, align);
  };
  auto c_string = [&](const std::string& s, const std::string& name) {
    return PrivateConstant(m, llvm::ConstantDataArray::getString(ctx, s, true), name, 1);
  };
  auto* section_type = llvm::StructType::get(ctx, {ptr, i64, i64});
  std::vector<llvm::Constant*> sections;
  for (size_t i = 0; i < layout->sections.size(); ++i) {
    sections.push_back(llvm::ConstantStruct::get(
        section_type, {c_string(layout->sections[i].name, "uringc.section_name"),
                       llvm::ConstantInt::get(i64, section_offset[i]),
                       llvm::ConstantInt::get(i64, layout->sections[i].size)}));
  }
  auto* sections_type = llvm::ArrayType::get(section_type, sections.size());
  llvm::GlobalVariable* section_table =
      PrivateConstant(m, llvm::ConstantArray::get(sections_type, sections), "uringc.sections", 8);
  llvm::GlobalVariable* bpf = string(spec.bpf_object, "uringc.bpf_object", 8);
  llvm::GlobalVariable* initial = string(image, "uringc.image", kSectionAlign);
  auto* program_type = llvm::StructType::get(ctx, {i32, i32, ptr, ptr, i64, ptr, ptr, i64, ptr});
  auto* program = new llvm::GlobalVariable(
      m, program_type, /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantStruct::get(
          program_type,
          {llvm::ConstantInt::get(i32, URINGC_PROGRAM_ABI),
           llvm::ConstantInt::get(i32, sections.size()), c_string(spec.graph, "uringc.name"), bpf,
           llvm::ConstantInt::get(i64, spec.bpf_object.size()), step, initial,
           llvm::ConstantInt::get(i64, state_size), section_table}),
      spec.symbol.empty() ? HostProgramSymbol(spec.graph) : spec.symbol);
  program->setAlignment(llvm::Align(8));
  return true;
}

}  // namespace uringc
