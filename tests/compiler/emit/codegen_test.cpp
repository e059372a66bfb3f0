// Host checks of objects compiled from `.uring` source (examples/nop_chain.uring and
// tests/compiled/nop_parallel.uring through the driver, in this process), without a kernel:
// libbpf opens them (the kernel's struct_ops type is needed only at load), their BTF carries the
// types libbpf matches by name, the line info carries `.uring` text, the ABI variant changes the
// context struct, output is byte-identical for identical input, text IR and assembly come out,
// and an LLVM backend error (a frame past the BPF stack limit) becomes a diagnostic at a
// `.uring` line instead of ending the process.
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "uringc/diag/formatter.h"
#include "driver/compile_command.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "lowered_graph.h"

namespace uringc {
namespace {

const std::string kNopChain = std::string(URINGC_SOURCE_DIR) + "/examples/nop_chain.uring";
const std::string kNopParallel =
    std::string(URINGC_SOURCE_DIR) + "/tests/compiled/nop_parallel.uring";

std::string Build(const std::string& file, OptLevel opt = OptLevel::kO2,
                  EmitKind emit = EmitKind::kObj, KernelAbi abi = kDefaultKernelAbi) {
  driver::CompileRequest req;
  req.file = file;
  req.codegen = CodegenOptions{.opt = opt, .emit = emit};
  req.abi = abi;
  driver::Compilation c;
  std::string io_error;
  std::optional<std::string> out = driver::CompileFile(req, c, io_error);
  std::string messages = io_error;
  for (const Diagnostic& d : c.diagnostics.items()) messages += FormatText(d, c.sources);
  EXPECT_TRUE(out.has_value()) << messages;
  EXPECT_FALSE(c.diagnostics.HasErrors()) << messages;
  return out.value_or("");
}

// An opened object, closed at scope end.
struct Opened {
  explicit Opened(const std::string& bytes) {
    object = bpf_object__open_mem(bytes.data(), bytes.size(), nullptr);
  }
  ~Opened() {
    if (object) bpf_object__close(object);
  }
  bpf_object* object = nullptr;
};

const btf_member* Member(const btf* types, const btf_type* t, const char* name) {
  const btf_member* m = btf_members(t);
  for (int i = 0; i < btf_vlen(t); i++) {
    if (std::strcmp(btf__name_by_offset(types, m[i].name_off), name) == 0) return &m[i];
  }
  return nullptr;
}

// The struct a pointer-typed BTF id points to (through modifiers and typedefs), or nullptr.
const btf_type* PointeeStruct(const btf* types, uint32_t id) {
  const btf_type* t = btf__type_by_id(types, id);
  if (t == nullptr || !btf_is_ptr(t)) return nullptr;
  int resolved = btf__resolve_type(types, t->type);
  return resolved < 0 ? nullptr : btf__type_by_id(types, resolved);
}

TEST(CodegenObject, LibbpfOpensItWithProgramOpsAndGlobals) {
  std::string bytes = Build(kNopChain);
  Opened o(bytes);
  ASSERT_NE(o.object, nullptr) << "bpf_object__open_mem: " << strerror(errno);
  bpf_program* prog = bpf_object__find_program_by_name(o.object, "nop_chain");
  ASSERT_NE(prog, nullptr);
  EXPECT_STREQ(bpf_program__section_name(prog), "struct_ops.s/nop_chain");
  EXPECT_EQ(bpf_program__type(prog), BPF_PROG_TYPE_STRUCT_OPS);
  bpf_map* ops = bpf_object__find_map_by_name(o.object, "nop_chain_ops");
  ASSERT_NE(ops, nullptr);
  EXPECT_EQ(bpf_map__type(ops), BPF_MAP_TYPE_STRUCT_OPS);
  size_t size = 0;
  EXPECT_NE(bpf_map__initial_value(ops, &size), nullptr);
  EXPECT_EQ(size, 24u);
  int rodata = 0, bss = 0;
  bpf_map* map;
  bpf_object__for_each_map(map, o.object) {
    std::string_view name = bpf_map__name(map);
    rodata += name.ends_with(".rodata");
    bss += name.ends_with(".bss");
  }
  EXPECT_EQ(rodata, 1);
  EXPECT_EQ(bss, 1);
}

TEST(CodegenObject, BtfDescribesOpsKfuncsAndGlobals) {
  std::string bytes = Build(kNopChain);
  Opened o(bytes);
  ASSERT_NE(o.object, nullptr);
  const btf* types = bpf_object__btf(o.object);
  ASSERT_NE(types, nullptr);

  int ops_id = btf__find_by_name_kind(types, "io_uring_bpf_ops", BTF_KIND_STRUCT);
  ASSERT_GT(ops_id, 0);
  const btf_type* ops = btf__type_by_id(types, ops_id);
  EXPECT_EQ(ops->size, 24u);
  ASSERT_EQ(btf_vlen(ops), 3);
  const btf_member* loop_step = Member(types, ops, "loop_step");
  const btf_member* ring_fd = Member(types, ops, "ring_fd");
  const btf_member* priv = Member(types, ops, "priv");
  ASSERT_TRUE(loop_step && ring_fd && priv);
  EXPECT_EQ(btf_member_bit_offset(ops, 0), 0u);
  EXPECT_EQ(btf_member_bit_offset(ops, 1), 64u);
  EXPECT_EQ(btf_member_bit_offset(ops, 2), 128u);
  // loop_step: pointer to int (struct iou_ctx *, struct iou_loop_params *).
  const btf_type* proto = btf__type_by_id(types, btf__type_by_id(types, loop_step->type)->type);
  ASSERT_TRUE(btf_is_func_proto(proto));
  ASSERT_EQ(btf_vlen(proto), 2);
  const btf_type* ctx = PointeeStruct(types, btf_params(proto)[0].type);
  ASSERT_NE(ctx, nullptr);
  EXPECT_STREQ(btf__name_by_offset(types, ctx->name_off), "iou_ctx");
  EXPECT_TRUE(btf_is_struct(ctx)) << "a forward declaration does not match the kernel's struct";
  const btf_type* lp = PointeeStruct(types, btf_params(proto)[1].type);
  ASSERT_NE(lp, nullptr);
  EXPECT_STREQ(btf__name_by_offset(types, lp->name_off), "iou_loop_params");
  EXPECT_NE(Member(types, lp, "cq_wait_idx"), nullptr);

  // Both kfuncs are extern FUNCs listed in the `.ksyms` DATASEC, as the backend wrote them
  // (libbpf rewrites those entries at open, so this reads the object's BTF as it is on disk).
  char path[] = "/tmp/uringc_codegen_test_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  close(fd);
  btf* raw = btf__parse_elf(path, nullptr);
  unlink(path);
  ASSERT_NE(raw, nullptr);
  int ksyms = btf__find_by_name_kind(raw, ".ksyms", BTF_KIND_DATASEC);
  ASSERT_GT(ksyms, 0);
  const btf_type* ksyms_sec = btf__type_by_id(raw, ksyms);
  for (const char* kfunc : {"bpf_io_uring_get_region", "bpf_io_uring_submit_sqes"}) {
    int id = btf__find_by_name_kind(raw, kfunc, BTF_KIND_FUNC);
    ASSERT_GT(id, 0) << kfunc;
    // A FUNC keeps its linkage in the vlen field.
    EXPECT_EQ(btf_vlen(btf__type_by_id(raw, id)), BTF_FUNC_EXTERN) << kfunc;
    bool listed = false;
    for (int i = 0; i < btf_vlen(ksyms_sec); i++) {
      listed |= btf_var_secinfos(ksyms_sec)[i].type == static_cast<uint32_t>(id);
    }
    EXPECT_TRUE(listed) << kfunc;
  }
  btf__free(raw);
  // The parameter, the output, the ring constants the loader sets and the run state it reads.
  for (const char* var : {"n", "done", "uringc_ring", "uringc_status", "uringc_error"}) {
    EXPECT_GT(btf__find_by_name_kind(types, var, BTF_KIND_VAR), 0) << var;
  }
  int prog = btf__find_by_name_kind(types, "nop_chain", BTF_KIND_FUNC);
  ASSERT_GT(prog, 0);
  const btf_type* prog_proto = btf__type_by_id(types, btf__type_by_id(types, prog)->type);
  ASSERT_EQ(btf_vlen(prog_proto), 1);
  EXPECT_STREQ(btf__name_by_offset(types, btf_params(prog_proto)[0].name_off), "ctx");
}

TEST(CodegenObject, LineInfoCarriesUringSourceText) {
  std::string bytes = Build(kNopChain);
  Opened o(bytes);
  ASSERT_NE(o.object, nullptr);
  const btf* types = bpf_object__btf(o.object);
  uint32_t size = 0;
  const char* raw = static_cast<const char*>(btf__raw_data(types, &size));
  std::string_view data(raw, size);
  // Line info records point into the BTF string table: the file name and each line's text.
  EXPECT_NE(data.find(std::string_view("nop_chain.uring\0", 16)), std::string_view::npos);
  EXPECT_NE(data.find(std::string_view("        nop()?\0", 15)), std::string_view::npos);
  EXPECT_NE(data.find(std::string_view("    repeat n {\0", 15)), std::string_view::npos);
  // And the object's .BTF.ext section is there for libbpf to pass on.
  EXPECT_NE(bytes.find(".BTF.ext"), std::string::npos);
}

TEST(CodegenObject, Linux71AbiNamesIoRingCtx) {
  std::string bytes = Build(kNopChain, OptLevel::kO2, EmitKind::kObj, KernelAbi::kLinux7_1);
  Opened o(bytes);
  ASSERT_NE(o.object, nullptr);
  const btf* types = bpf_object__btf(o.object);
  EXPECT_GT(btf__find_by_name_kind(types, "io_ring_ctx", BTF_KIND_STRUCT), 0);
  EXPECT_LT(btf__find_by_name_kind(types, "iou_ctx", BTF_KIND_STRUCT), 0);
  int get_region = btf__find_by_name_kind(types, "bpf_io_uring_get_region", BTF_KIND_FUNC);
  ASSERT_GT(get_region, 0);
  const btf_type* proto = btf__type_by_id(types, btf__type_by_id(types, get_region)->type);
  const btf_type* ctx = PointeeStruct(types, btf_params(proto)[0].type);
  ASSERT_NE(ctx, nullptr);
  EXPECT_STREQ(btf__name_by_offset(types, ctx->name_off), "io_ring_ctx");
}

// One task and eight tasks, at both levels, compiled twice in one process.
TEST(CodegenObject, SameInputGivesByteIdenticalOutput) {
  for (OptLevel opt : {OptLevel::kO0, OptLevel::kO2}) {
    for (const std::string& file : {kNopChain, kNopParallel}) {
      std::string a = Build(file, opt);
      std::string b = Build(file, opt);
      ASSERT_FALSE(a.empty());
      EXPECT_EQ(a, b) << file;
    }
  }
  EXPECT_EQ(Build(kNopParallel, OptLevel::kO2, EmitKind::kAsm),
            Build(kNopParallel, OptLevel::kO2, EmitKind::kAsm));
}

TEST(CodegenObject, EmitsTextIrAndAssembly) {
  std::string ir = Build(kNopChain, OptLevel::kO2, EmitKind::kLlvm);
  EXPECT_NE(ir.find("target triple = \"bpfel\""), std::string::npos);
  EXPECT_NE(ir.find("section \"struct_ops.s/nop_chain\""), std::string::npos);
  EXPECT_NE(ir.find("section \".struct_ops.link\""), std::string::npos);
  EXPECT_NE(ir.find("@bpf_io_uring_submit_sqes"), std::string::npos);
  EXPECT_NE(ir.find("extern_weak"), std::string::npos);
  EXPECT_NE(ir.find("section \".ksyms\""), std::string::npos);
  EXPECT_NE(ir.find("@llvm.compiler.used"), std::string::npos);
  EXPECT_NE(ir.find("source: \"// nop_chain.uring: the classic benchmark"), std::string::npos);
  std::string asm_text = Build(kNopChain, OptLevel::kO2, EmitKind::kAsm);
  EXPECT_NE(asm_text.find("call bpf_io_uring_submit_sqes"), std::string::npos);
}

// The lowering never needs much stack, so the test makes the frame too big itself: a 600-byte
// array (the BPF limit is 512) used at the location of `nop()?`, added to the lowered module.
TEST(CodegenObject, StackLimitBecomesDiagnosticAtUringLine) {
  std::unique_ptr<testing::LoweredGraph> lowered =
      testing::LowerFirstGraph(kNopChain, /*optimized=*/false);
  ASSERT_NE(lowered, nullptr);
  driver::Compilation& c = lowered->c;
  llvm::Function* program = lowered->module->module().getFunction(lowered->graph->name);
  ASSERT_NE(program, nullptr);
  llvm::Instruction* at_nop = nullptr;  // an instruction of line 5, `nop()?`
  for (llvm::Instruction& inst : llvm::instructions(*program)) {
    if (inst.getDebugLoc() && inst.getDebugLoc().getLine() == 5) {
      at_nop = &inst;
      break;
    }
  }
  ASSERT_NE(at_nop, nullptr) << "no instruction at nop_chain.uring:5";
  llvm::BasicBlock& first = program->getEntryBlock();
  llvm::IRBuilder<> entry(&first, first.getFirstInsertionPt());
  entry.SetCurrentDebugLocation(at_nop->getDebugLoc());
  llvm::AllocaInst* big = entry.CreateAlloca(llvm::ArrayType::get(entry.getInt8Ty(), 600));
  big->setAlignment(llvm::Align(8));
  llvm::IRBuilder<> ir(at_nop);
  ir.SetCurrentDebugLocation(at_nop->getDebugLoc());
  ir.CreateMemSet(big, ir.getInt8(0), ir.getInt64(600), llvm::MaybeAlign(8), /*isVolatile=*/true);
  ir.CreateAlignedLoad(ir.getInt8Ty(), ir.CreateConstGEP1_64(ir.getInt8Ty(), big, 599),
                       llvm::Align(1), /*isVolatile=*/true);

  std::optional<std::string> out =
      Codegen(*lowered->module, CodegenOptions{.opt = OptLevel::kO0}, c.diagnostics);
  EXPECT_FALSE(out.has_value());
  ASSERT_TRUE(c.diagnostics.HasErrors());
  // LLVM reports the limit once per stack access; uringc keeps one diagnostic, with the other
  // places LLVM named as notes. One of them is the `.uring` construct that made the frame big.
  ASSERT_EQ(c.diagnostics.ErrorCount(), 1u);
  const Diagnostic& d = c.diagnostics.items().front();
  EXPECT_EQ(d.kind, uringc::DiagKind::kBpfStackLimit);
  const SourceFile* file = c.sources.Get(d.range.file);
  ASSERT_NE(file, nullptr) << "no location: " << d.message;
  EXPECT_EQ(file->name().substr(file->name().rfind('/') + 1), "nop_chain.uring");
  bool at_line = file->LineColOf(d.range.begin).line == 5;
  for (const DiagnosticNote& note : d.notes) {
    at_line |= note.range.file == d.range.file && file->LineColOf(note.range.begin).line == 5;
  }
  EXPECT_TRUE(at_line);
  std::string text = FormatText(d, c.sources);
  EXPECT_NE(text.find("nop_chain.uring:5:9"), std::string::npos) << text;
  EXPECT_NE(text.find("[BpfStackLimit]"), std::string::npos) << text;
}

}  // namespace
}  // namespace uringc
