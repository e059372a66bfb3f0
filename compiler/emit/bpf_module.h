// BpfModule: one in-memory LLVM module that becomes one controller object. It owns the LLVM
// context, the module and its debug info, and creates the object-level pieces the BPF backend and
// libbpf expect: struct_ops programs in `struct_ops.s/<name>`, the `io_uring_bpf_ops` variable in
// `.struct_ops.link`, kfunc externs in `.ksyms`, `.rodata` constants, `.bss` globals, the license
// and `llvm.compiler.used`. The compile unit's DIFile embeds the `.uring` source text, so the BTF
// line info (and hence the verifier log) and `llvm-objdump -S` show `.uring` lines.
//
// Instruction-level code (what a program does) is built by compiler/lower on top of this class;
// compiler/emit/codegen.h turns a finished module into text IR, assembly or an ELF object.
//
// CO-RE is deliberately not used: the BPF backend caches CO-RE globals process-wide and a second
// module in one process crashed (LLVM 19 and 22). The only kernel struct read or written,
// `iou_loop_params`, is a single __u32 at offset 0 and is accessed with a plain offset.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "uringc/diag/diagnostic.h"
#include "emit/debug_types.h"
#include "emit/kernel_abi.h"
#include "llvm/IR/DIBuilder.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "uringc/source_file.h"

namespace uringc {

struct BpfModuleOptions {
  /// The module's name (and the object's), e.g. the graph file's stem.
  std::string name;
  /// The sources of this compilation; must outlive the module.
  const SourceManager* sources = nullptr;
  /// The file the compile unit is named after (the file holding the graph).
  uint32_t main_file = 0;
  KernelAbi abi = kDefaultKernelAbi;
  /// Recorded in the compile unit; the optimisation level itself is chosen at codegen.
  bool optimized = false;
  std::string license = "Dual BSD/GPL";
};

/// A struct_ops program function `i32 (ptr ctx)` and its debug scope.
struct BpfProgram {
  std::string name;
  llvm::Function* function = nullptr;
  llvm::DISubprogram* subprogram = nullptr;
  /// Where the program was declared; used for code and diagnostics without a better place.
  SourceRange decl;
};

class BpfModule {
 public:
  explicit BpfModule(const BpfModuleOptions& options);
  ~BpfModule();
  BpfModule(const BpfModule&) = delete;
  BpfModule& operator=(const BpfModule&) = delete;

  llvm::LLVMContext& context() { return *context_; }
  llvm::Module& module() { return *module_; }
  llvm::DIBuilder& di() { return *di_; }
  DebugTypes& types() { return *types_; }
  const SourceManager& sources() const { return *options_.sources; }

  /// The LLVM type of a scalar (i8 ... i64; signedness lives in the operations).
  llvm::IntegerType* IrType(ScalarType type);

  /// Defines the struct_ops program `name` in section `struct_ops.s/<name>` (sleepable, because
  /// bpf_io_uring_submit_sqes is), with a distinct DISubprogram and a named `ctx` parameter.
  /// The function has no body yet: compiler/lower adds the blocks.
  BpfProgram CreateProgram(std::string_view name, SourceRange decl);

  /// Defines the `io_uring_bpf_ops` variable `name` in `.struct_ops.link` whose loop_step is
  /// `program`. ring_fd stays 0: the loader sets it before load.
  llvm::GlobalVariable* CreateOps(std::string_view name, const BpfProgram& program);
  /// A static BPF subprogram `name` (a function in `.text` with internal linkage, never
  /// inlined) that the program calls: code used at many places emitted once. `debug_signature`
  /// (the return type's DIType, then each parameter's) describes it for BTF (every subprogram
  /// needs its func_info) and `params` names its parameters. The function comes with an empty
  /// first block, `start`; the body is the caller's to build from there (BeginHelperBody), its
  /// instructions with debug locations in the function's DISubprogram.
  llvm::Function* CreateHelper(std::string_view name, llvm::FunctionType* type,
                               std::initializer_list<llvm::Metadata*> debug_signature,
                               std::initializer_list<const char*> params, SourceRange decl);
  /// Puts `ir` at the end of `helper`'s `start` block, at the subprogram's line.
  static void BeginHelperBody(llvm::IRBuilder<>& ir, llvm::Function* helper);

  /// `__u8 *bpf_io_uring_get_region(ctx *, __u32 region_id, const size_t rdwr_buf_size)`.
  llvm::Function* GetRegionKfunc();
  /// `int bpf_io_uring_submit_sqes(ctx *, __u32 nr)`.
  llvm::Function* SubmitSqesKfunc();
  /// `int bpf_copy_from_user_str(void *dst, __u32 dst__sz, void *unsafe_ptr__ign, __u64 flags)`
  /// (Linux 6.12+, sleepable programs of any type): copies a user string of at most
  /// dst__sz - 1 bytes, NUL-terminated; returns its length + 1 (dst__sz when no NUL came first)
  /// or -errno.
  llvm::Function* CopyFromUserStrKfunc();

  /// A load-time constant in `.rodata` (`const volatile`), initialised to `initial`; the loader
  /// may overwrite it before load, after which the kernel freezes it and the verifier sees its
  /// value. Read it with a volatile load (see bpf_ir/step_builder.h) or -O2 folds `initial`.
  /// With `type_name`, its BTF type is `typedef T type_name` (see DebugTypes::ConstVolatileNamed).
  llvm::GlobalVariable* AddRodata(std::string_view name, ScalarType type, uint64_t initial,
                                  SourceRange decl, std::string_view type_name = {});
  /// A zero-initialised load-time constant of any type (a struct of them) in `.rodata`.
  llvm::GlobalVariable* AddRodata(std::string_view name, llvm::Type* type, llvm::DIType* debug_type,
                                  uint32_t align, SourceRange decl);
  /// A zero-initialised scalar in `.bss`.
  llvm::GlobalVariable* AddBss(std::string_view name, ScalarType type, SourceRange decl);
  /// A zero-initialised `.bss` global of any type with its debug type and alignment.
  llvm::GlobalVariable* AddBss(std::string_view name, llvm::Type* type, llvm::DIType* debug_type,
                               uint32_t align, SourceRange decl);

  /// The DILocation of `range`'s first byte inside `program`. Ranges in another file than the
  /// program's get a DILexicalBlockFile scope; a range without a file maps to the declaration.
  llvm::DILocation* Location(SourceRange range, const BpfProgram& program);

  /// The DIFile of a source file (created on first use, with the file's text embedded); id 0
  /// gives the main file.
  llvm::DIFile* File(uint32_t file_id);

  /// Maps a location LLVM reports (file name as given to the DIFile, 1-based line and column)
  /// back to a one-byte SourceRange; an empty range when the file is not one of ours.
  SourceRange RangeOf(std::string_view file_name, uint32_t line, uint32_t column) const;

  /// Finishes the module: license, `llvm.compiler.used`, debug info, removal of blocks nothing
  /// branches to, and LLVM's IR verifier (whose failures are compiler bugs, reported as
  /// `InternalCompilerError`). Returns false on error. Call exactly once, before codegen.
  bool Finalize(DiagnosticList& diags);
  bool finalized() const { return finalized_; }

  /// Copies the finished module for the host target (emit/host_module.h rewrites the copy): the
  /// one lowering both targets start from. Call after Finalize and before any pass runs.
  void CloneForHost();
  /// The copy CloneForHost made, in this module's context; nullptr before.
  llvm::Module* host_module() { return host_.get(); }

  /// For after LLVM failed fatally while working on this module (RunCatchingLlvmFatalErrors):
  /// leaks the LLVM context and module instead of destroying them, since LLVM may have left
  /// objects behind that point into them. Nothing but destruction may follow.
  void Abandon();

 private:
  /// A zero-initialised global in `section` (".rodata": constant, or ".bss").
  llvm::GlobalVariable* AddZeroed(std::string_view name, llvm::Type* type, llvm::DIType* debug_type,
                                  uint32_t align, const char* section, SourceRange decl);
  unsigned LineOf(SourceRange range) const;
  llvm::DIGlobalVariableExpression* DebugGlobal(llvm::GlobalVariable* gv, llvm::DIType* type,
                                                SourceRange decl);

  BpfModuleOptions options_;
  std::unique_ptr<llvm::LLVMContext> context_;
  std::unique_ptr<llvm::Module> module_;
  std::unique_ptr<llvm::Module> host_;
  std::unique_ptr<llvm::DIBuilder> di_;
  std::unique_ptr<DebugTypes> types_;
  llvm::DICompileUnit* cu_ = nullptr;
  std::map<uint32_t, llvm::DIFile*> files_;
  /// Scopes for code of one program that comes from another file (an imported module).
  std::map<std::pair<llvm::DISubprogram*, uint32_t>, llvm::DILexicalBlockFile*> file_scopes_;
  std::vector<llvm::GlobalValue*> used_;
  llvm::Function* get_region_ = nullptr;
  llvm::Function* submit_sqes_ = nullptr;
  llvm::Function* copy_from_user_str_ = nullptr;
  bool finalized_ = false;
};

}  // namespace uringc
