// Object-level structure of a controller module; see bpf_module.h.
#include "emit/bpf_module.h"

#include "emit/target.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

namespace uringc {
namespace {

llvm::StringRef Ref(std::string_view s) { return llvm::StringRef(s.data(), s.size()); }

}  // namespace

BpfModule::BpfModule(const BpfModuleOptions& options)
    : options_(options),
      context_(std::make_unique<llvm::LLVMContext>()),
      module_(std::make_unique<llvm::Module>(options.name, *context_)) {
  module_->setTargetTriple(llvm::Triple(kBpfTriple));
  std::string error;
  if (auto tm = CreateBpfTargetMachine(OptLevel::kO2, &error)) {
    module_->setDataLayout(tm->createDataLayout());
  }
  module_->addModuleFlag(llvm::Module::Max, "Dwarf Version", 5);
  module_->addModuleFlag(llvm::Module::Warning, "Debug Info Version",
                         llvm::DEBUG_METADATA_VERSION);
  module_->addModuleFlag(llvm::Module::Error, "wchar_size", 4);

  di_ = std::make_unique<llvm::DIBuilder>(*module_);
  llvm::DIFile* main = File(options.main_file);
  cu_ = di_->createCompileUnit(llvm::dwarf::DW_LANG_C11, main, "uringc", options.optimized,
                               /*Flags=*/"", /*RV=*/0);
  types_ = std::make_unique<DebugTypes>(*di_, main, options.abi);
}

BpfModule::~BpfModule() = default;

llvm::DIFile* BpfModule::File(uint32_t file_id) {
  if (file_id == 0 && options_.main_file != 0) file_id = options_.main_file;
  auto it = files_.find(file_id);
  if (it != files_.end()) return it->second;
  const SourceFile* file = options_.sources ? options_.sources->Get(file_id) : nullptr;
  llvm::DIFile* di_file;
  if (file == nullptr) {
    di_file = di_->createFile(options_.name + ".uring", "");
  } else {
    // The embedded source wins over the file on disk, and it exists even when the path does not:
    // the BTF line info and the DWARF line table both carry `.uring` text from here.
    di_file = di_->createFile(file->name(), "", std::nullopt, llvm::StringRef(file->text()));
  }
  files_.emplace(file_id, di_file);
  return di_file;
}

unsigned BpfModule::LineOf(SourceRange range) const {
  const SourceFile* file = options_.sources ? options_.sources->Get(range.file) : nullptr;
  return file == nullptr ? 0 : file->LineColOf(range.begin).line;
}

llvm::IntegerType* BpfModule::IrType(ScalarType type) {
  return llvm::IntegerType::get(*context_, ScalarSize(type) * 8);
}

BpfProgram BpfModule::CreateProgram(std::string_view name, SourceRange decl) {
  llvm::LLVMContext& ctx = *context_;
  auto* fn_type = llvm::FunctionType::get(llvm::Type::getInt32Ty(ctx),
                                          {llvm::PointerType::get(ctx, 0)}, false);
  auto* fn = llvm::Function::Create(fn_type, llvm::GlobalValue::ExternalLinkage, Ref(name),
                                    *module_);
  fn->setSection("struct_ops.s/" + std::string(name));
  fn->setAlignment(llvm::Align(8));
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  // CPU v4 lets LLVM 22 lower switches to jump tables (`gotox` through `.jumptables`), which
  // libbpf before 1.6 cannot relocate: keep switches as compare chains.
  fn->addFnAttr("no-jump-tables", "true");
  fn->getArg(0)->setName("ctx");

  llvm::DIFile* file = File(decl.file);
  unsigned line = LineOf(decl);
  llvm::DISubprogram* sp = di_->createFunction(
      file, Ref(name), Ref(name), file, line, types_->ProgramType(), line,
      llvm::DINode::FlagPrototyped,
      llvm::DISubprogram::SPFlagDefinition |
          (options_.optimized ? llvm::DISubprogram::SPFlagOptimized
                              : llvm::DISubprogram::SPFlagZero));
  fn->setSubprogram(sp);
  // Kept in retainedNodes so the BTF parameter has a name.
  di_->createParameterVariable(sp, "ctx", 1, file, line, types_->U64Ptr(), /*AlwaysPreserve=*/true);
  used_.push_back(fn);
  return BpfProgram{std::string(name), fn, sp, decl};
}

llvm::GlobalVariable* BpfModule::CreateOps(std::string_view name, const BpfProgram& program) {
  llvm::LLVMContext& ctx = *context_;
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  auto* type = llvm::StructType::create(ctx, {ptr, i32, ptr}, "struct.io_uring_bpf_ops");
  auto* init = llvm::ConstantStruct::get(
      type, {program.function, llvm::ConstantInt::get(i32, 0), llvm::ConstantPointerNull::get(
                                                                   llvm::PointerType::get(ctx, 0))});
  auto* gv = new llvm::GlobalVariable(*module_, type, /*isConstant=*/false,
                                      llvm::GlobalValue::ExternalLinkage, init, Ref(name));
  gv->setSection(".struct_ops.link");
  gv->setAlignment(llvm::Align(8));
  DebugGlobal(gv, types_->OpsStruct(), program.decl);
  used_.push_back(gv);
  return gv;
}

llvm::Function* BpfModule::CreateHelper(std::string_view name, llvm::FunctionType* type,
                                        std::initializer_list<llvm::Metadata*> debug_signature,
                                        std::initializer_list<const char*> params,
                                        SourceRange decl) {
  llvm::DISubroutineType* debug_type =
      di_->createSubroutineType(di_->getOrCreateTypeArray(debug_signature));
  auto* fn = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, Ref(name), *module_);
  // In `.text`, where libbpf looks for subprograms: a function in a `struct_ops` section would
  // be taken for another program.
  fn->setSection(".text");
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  fn->addFnAttr(llvm::Attribute::NoInline);
  fn->addFnAttr("no-jump-tables", "true");
  llvm::DIFile* file = File(decl.file);
  const unsigned line = LineOf(decl);
  llvm::DISubprogram* sp = di_->createFunction(
      file, Ref(name), Ref(name), file, line, debug_type, line, llvm::DINode::FlagPrototyped,
      llvm::DISubprogram::SPFlagDefinition | llvm::DISubprogram::SPFlagLocalToUnit |
          (options_.optimized ? llvm::DISubprogram::SPFlagOptimized
                              : llvm::DISubprogram::SPFlagZero));
  unsigned arg = 1;
  llvm::DITypeRefArray types = debug_type->getTypeArray();
  for (const char* param : params) {
    fn->getArg(arg - 1)->setName(param);
    di_->createParameterVariable(sp, param, arg, file, line, types[arg], /*AlwaysPreserve=*/true);
    arg++;
  }
  fn->setSubprogram(sp);
  llvm::BasicBlock::Create(module_->getContext(), "start", fn);
  return fn;
}

void BpfModule::BeginHelperBody(llvm::IRBuilder<>& ir, llvm::Function* helper) {
  ir.SetInsertPoint(&helper->getEntryBlock());
  llvm::DISubprogram* sp = helper->getSubprogram();
  ir.SetCurrentDebugLocation(llvm::DILocation::get(helper->getContext(), sp->getLine(), 0, sp));
}

namespace {

// A kfunc extern: weak, in `.ksyms`, with a declaration DISubprogram so BTF describes it.
llvm::Function* DeclareKfunc(llvm::Module& module, llvm::DIBuilder& di, llvm::DIFile* file,
                             llvm::FunctionType* type, llvm::StringRef name,
                             llvm::DISubroutineType* debug_type,
                             std::initializer_list<const char*> params) {
  auto* fn =
      llvm::Function::Create(type, llvm::GlobalValue::ExternalWeakLinkage, name, module);
  fn->setSection(".ksyms");
  llvm::DISubprogram* sp =
      di.createFunction(file, name, name, file, 0, debug_type, 0, llvm::DINode::FlagPrototyped,
                        llvm::DISubprogram::SPFlagOptimized);
  unsigned arg = 1;
  llvm::DITypeRefArray types = debug_type->getTypeArray();
  for (const char* param : params) {
    di.createParameterVariable(sp, param, arg, file, 0, types[arg], /*AlwaysPreserve=*/true);
    arg++;
  }
  di.finalizeSubprogram(sp);
  fn->setSubprogram(sp);
  return fn;
}

}  // namespace

llvm::Function* BpfModule::GetRegionKfunc() {
  if (get_region_ == nullptr) {
    llvm::LLVMContext& ctx = *context_;
    llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
    auto* type = llvm::FunctionType::get(
        ptr, {ptr, llvm::Type::getInt32Ty(ctx), llvm::Type::getInt64Ty(ctx)}, false);
    get_region_ = DeclareKfunc(*module_, *di_, File(options_.main_file), type,
                               "bpf_io_uring_get_region", types_->GetRegionType(),
                               {"ctx", "region_id", "rdwr_buf_size"});
  }
  return get_region_;
}

llvm::Function* BpfModule::SubmitSqesKfunc() {
  if (submit_sqes_ == nullptr) {
    llvm::LLVMContext& ctx = *context_;
    llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
    auto* type = llvm::FunctionType::get(llvm::Type::getInt32Ty(ctx),
                                         {ptr, llvm::Type::getInt32Ty(ctx)}, false);
    submit_sqes_ = DeclareKfunc(*module_, *di_, File(options_.main_file), type,
                                "bpf_io_uring_submit_sqes", types_->SubmitSqesType(),
                                {"ctx", "nr"});
  }
  return submit_sqes_;
}

llvm::Function* BpfModule::CopyFromUserStrKfunc() {
  if (copy_from_user_str_ == nullptr) {
    llvm::LLVMContext& ctx = *context_;
    llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
    auto* type = llvm::FunctionType::get(
        llvm::Type::getInt32Ty(ctx),
        {ptr, llvm::Type::getInt32Ty(ctx), ptr, llvm::Type::getInt64Ty(ctx)}, false);
    copy_from_user_str_ =
        DeclareKfunc(*module_, *di_, File(options_.main_file), type, "bpf_copy_from_user_str",
                     types_->CopyFromUserStrType(),
                     {"dst", "dst__sz", "unsafe_ptr__ign", "flags"});
  }
  return copy_from_user_str_;
}

llvm::DIGlobalVariableExpression* BpfModule::DebugGlobal(llvm::GlobalVariable* gv,
                                                         llvm::DIType* type, SourceRange decl) {
  if (decl.file == 0) decl.file = options_.main_file;
  llvm::DIFile* file = File(decl.file);
  auto* gve = di_->createGlobalVariableExpression(cu_, gv->getName(), gv->getName(), file,
                                                  LineOf(decl), type, /*IsLocalToUnit=*/false);
  gv->addDebugInfo(gve);
  return gve;
}

llvm::GlobalVariable* BpfModule::AddRodata(std::string_view name, ScalarType type,
                                           uint64_t initial, SourceRange decl,
                                           std::string_view type_name) {
  llvm::IntegerType* ir = IrType(type);
  auto* gv = new llvm::GlobalVariable(*module_, ir, /*isConstant=*/true,
                                      llvm::GlobalValue::ExternalLinkage,
                                      llvm::ConstantInt::get(ir, initial), Ref(name));
  gv->setSection(".rodata");
  gv->setAlignment(llvm::Align(ScalarSize(type)));
  DebugGlobal(gv,
              type_name.empty() ? types_->ConstVolatile(type)
                                : types_->ConstVolatileNamed(type, type_name),
              decl);
  return gv;
}

llvm::GlobalVariable* BpfModule::AddRodata(std::string_view name, llvm::Type* type,
                                           llvm::DIType* debug_type, uint32_t align,
                                           SourceRange decl) {
  return AddZeroed(name, type, debug_type, align, ".rodata", decl);
}

llvm::GlobalVariable* BpfModule::AddBss(std::string_view name, ScalarType type,
                                        SourceRange decl) {
  return AddBss(name, IrType(type), types_->Scalar(type), ScalarSize(type), decl);
}

llvm::GlobalVariable* BpfModule::AddBss(std::string_view name, llvm::Type* type,
                                        llvm::DIType* debug_type, uint32_t align,
                                        SourceRange decl) {
  return AddZeroed(name, type, debug_type, align, ".bss", decl);
}

llvm::GlobalVariable* BpfModule::AddZeroed(std::string_view name, llvm::Type* type,
                                           llvm::DIType* debug_type, uint32_t align,
                                           const char* section, SourceRange decl) {
  auto* gv = new llvm::GlobalVariable(
      *module_, type, /*isConstant=*/std::string_view(section) == ".rodata",
      llvm::GlobalValue::ExternalLinkage, llvm::Constant::getNullValue(type), Ref(name));
  gv->setSection(section);
  gv->setAlignment(llvm::Align(align));
  DebugGlobal(gv, debug_type, decl);
  return gv;
}

llvm::DILocation* BpfModule::Location(SourceRange range, const BpfProgram& program) {
  if (range.file == 0) range = program.decl;
  const SourceFile* file = options_.sources ? options_.sources->Get(range.file) : nullptr;
  LineCol lc = file ? file->LineColOf(range.begin) : LineCol{};
  llvm::DIScope* scope = program.subprogram;
  if (range.file != program.decl.file) {
    llvm::DILexicalBlockFile*& block = file_scopes_[{program.subprogram, range.file}];
    if (block == nullptr) {
      block = di_->createLexicalBlockFile(program.subprogram, File(range.file));
    }
    scope = block;
  }
  return llvm::DILocation::get(*context_, lc.line, lc.column, scope);
}

SourceRange BpfModule::RangeOf(std::string_view file_name, uint32_t line, uint32_t column) const {
  if (options_.sources == nullptr || line == 0) return {};
  for (const auto& [id, di_file] : files_) {
    const SourceFile* file = options_.sources->Get(id);
    if (file == nullptr || file->name() != file_name) continue;
    if (line > file->LineCount()) return {};
    std::string_view text = file->Line(line);
    uint32_t begin = static_cast<uint32_t>(text.data() - file->text().data());
    uint32_t col = column == 0 ? 0 : std::min<uint32_t>(column - 1, text.size());
    return SourceRange{id, begin + col, begin + col + (col < text.size() ? 1u : 0u)};
  }
  return {};
}

void BpfModule::CloneForHost() { host_ = llvm::CloneModule(*module_); }

void BpfModule::Abandon() {
  (void)host_.release();
  (void)types_.release();
  (void)di_.release();
  (void)module_.release();
  (void)context_.release();
}

bool BpfModule::Finalize(DiagnosticList& diags) {
  if (finalized_) return true;
  finalized_ = true;
  llvm::LLVMContext& ctx = *context_;
  auto* license_init = llvm::ConstantDataArray::getString(ctx, options_.license);
  auto* license = new llvm::GlobalVariable(*module_, license_init->getType(), false,
                                           llvm::GlobalValue::ExternalLinkage, license_init,
                                           "LICENSE");
  license->setSection("license");
  license->setAlignment(llvm::Align(1));
  llvm::DIType* char_type =
      di_->createBasicType("char", 8, llvm::dwarf::DW_ATE_signed_char);
  DebugGlobal(license, types_->Array(char_type, 8, 8, options_.license.size() + 1), {});
  used_.insert(used_.begin(), license);
  llvm::appendToCompilerUsed(*module_, used_);

  // Blocks left behind after a `stop` (see bpf_ir/step_builder.h) have no predecessors; the
  // verifier rejects unreachable instructions, so they never reach codegen.
  for (llvm::Function& fn : *module_) {
    if (!fn.isDeclaration()) llvm::EliminateUnreachableBlocks(fn);
  }
  di_->finalize();

  // Every instruction of a program carries a `.uring` location: BTF line info, the verifier log
  // and backend diagnostics all depend on it. A missing one is a lowering bug.
  for (llvm::Function& fn : *module_) {
    for (llvm::Instruction& inst : llvm::instructions(fn)) {
      if (!inst.getDebugLoc()) {
        std::string text;
        llvm::raw_string_ostream os(text);
        inst.print(os);
        diags.Error(DiagKind::kInternalCompilerError, {},
                    "instruction without a source location in `" + fn.getName().str() +
                        "` (a uringc bug):" + text);
        return false;
      }
    }
  }

  std::string message;
  llvm::raw_string_ostream os(message);
  if (llvm::verifyModule(*module_, &os)) {
    diags.Error(DiagKind::kInternalCompilerError, {},
                "the generated LLVM module is invalid (a uringc bug): " + message);
    return false;
  }
  return true;
}

}  // namespace uringc
