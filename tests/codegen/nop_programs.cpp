// Builds the NOP controllers from the lowering building blocks; see nop_programs.h.
#include "nop_programs.h"

#include "bpf_ir/control.h"
#include "bpf_ir/dispatch.h"
#include "bpf_ir/reap.h"
#include "bpf_ir/ring.h"
#include "bpf_ir/step_builder.h"
#include "bpf_ir/submit.h"
#include "bpf_ir/task_table.h"
#include "bpf_ir/wait.h"

namespace uringc::testing {
namespace {

constexpr uint32_t kNopDone = 1;          // the await point of every NOP
constexpr uint32_t kWaiting = kFirstResumeState;

// The range of the first occurrence of `needle` in the file.
SourceRange Find(const SourceManager& sources, uint32_t file, std::string_view needle) {
  const std::string& text = sources.Get(file)->text();
  size_t at = text.find(needle);
  if (at == std::string::npos) return SourceRange{file, 0, 0};
  return SourceRange{file, static_cast<uint32_t>(at), static_cast<uint32_t>(at + needle.size())};
}

}  // namespace

std::string NopProgramName(const NopProgramSpec& spec) {
  return spec.inflight == 0 ? "nop_chain" : "nop_inflight";
}

std::string NopProgramSource(const NopProgramSpec& spec) {
  if (spec.inflight == 0) {
    return "// nop_chain.uring: one NOP at a time, n times\n"
           "graph nop_chain(n: u64) -> (completed: u64) {\n"
           "    repeat n {\n"
           "        nop()\n"
           "        completed += 1\n"
           "    }\n"
           "}\n";
  }
  return "// nop_inflight.uring: " + std::to_string(spec.inflight) +
         " NOPs in flight until n complete\n"
         "graph nop_inflight(n: u64) -> (completed: u64, submitted: u64) {\n"
         "    parallel t in 0.." + std::to_string(spec.inflight) + " {\n"
         "        while submitted < n {\n"
         "            submitted += 1\n"
         "            nop()\n"
         "            completed += 1\n"
         "        }\n"
         "    }\n"
         "}\n";
}

std::optional<std::string> BuildNopProgram(const NopProgramSpec& spec,
                                           const CodegenOptions& options, DiagnosticList& diags,
                                           SourceManager* sources_out) {
  SourceManager local;
  SourceManager& sources = sources_out ? *sources_out : local;
  const std::string name = NopProgramName(spec);
  const uint32_t file = sources.Add(name + ".uring", NopProgramSource(spec));
  const bool chain = spec.inflight == 0;
  const uint32_t tasks = chain ? 1 : spec.inflight;

  BpfModule module(BpfModuleOptions{.name = name,
                                    .sources = &sources,
                                    .main_file = file,
                                    .abi = spec.abi,
                                    .optimized = options.opt != OptLevel::kO0});
  const SourceRange graph = Find(sources, file, "graph " + name);
  SourceRange end = Find(sources, file, "\n}");  // the graph's closing brace
  end.begin++;
  const SourceRange loop = Find(sources, file, chain ? "repeat n" : "while submitted < n");
  const SourceRange nop = Find(sources, file, "nop()");
  const SourceRange completed_stmt = Find(sources, file, "completed += 1");
  const SourceRange submitted_stmt = Find(sources, file, "submitted += 1");
  const SourceRange parallel = Find(sources, file, chain ? "repeat n" : "parallel t");

  RingConstants rc = DeclareRingConstants(module, graph);
  llvm::GlobalVariable* n = module.AddRodata("n", ScalarType::kU64, 0, Find(sources, file, "n: u64"));
  llvm::GlobalVariable* completed =
      module.AddBss("completed", ScalarType::kU64, Find(sources, file, "completed: u64"));
  llvm::GlobalVariable* submitted = module.AddBss("submitted", ScalarType::kU64, graph);
  llvm::GlobalVariable* steps = module.AddBss("steps", ScalarType::kU64, graph);
  // The chain keeps its loop counter (NOPs issued) in its task slot, var 0.
  TaskTable table(module, name + "_tasks", tasks, chain ? 1 : 0, parallel);

  BpfProgram program = module.CreateProgram(name, graph);
  module.CreateOps(name + "_ops", program);
  StepBuilder sb(module, program);
  sb.ReturnIfStopped();
  sb.Increment(steps, ScalarType::kU64);
  RingRegions regions = EmitGetRingRegions(sb, rc);
  SubmitQueue queue(sb, regions, rc);

  if (spec.blow_stack) {
    // Test-only: a 600-byte frame the BPF backend refuses (stack limit 512), located at `nop()`.
    sb.SetLocation(nop);
    llvm::IRBuilder<>& ir = sb.ir();
    llvm::BasicBlock& entry = program.function->getEntryBlock();
    llvm::IRBuilder<> entry_ir(&entry, entry.getFirstInsertionPt());
    entry_ir.SetCurrentDebugLocation(ir.getCurrentDebugLocation());
    llvm::AllocaInst* big = entry_ir.CreateAlloca(llvm::ArrayType::get(ir.getInt8Ty(), 600));
    big->setAlignment(llvm::Align(8));
    ir.CreateMemSet(big, ir.getInt8(0), ir.getInt64(600), llvm::MaybeAlign(8), /*isVolatile=*/true);
    llvm::Value* byte = ir.CreateAlignedLoad(ir.getInt8Ty(), sb.At(big, 599), llvm::Align(1), true);
    sb.Store(ScalarType::kU8, sb.detail(), 0, byte, 4);
  }

  // One iteration of the task: issue the next NOP if any is left, else finish.
  auto issue = [&](StepBuilder& b, llvm::Value* task) {
    llvm::IRBuilder<>& ir = b.ir();
    b.SetLocation(loop);
    llvm::Value* issued = chain ? table.LoadVar(b, task, 0) : b.Load(ScalarType::kU64, submitted, 0, 8);
    EmitIf(
        b, ir.CreateICmpULT(issued, b.ReadConst(n)),
        [&](StepBuilder& b) {
          b.SetLocation(chain ? nop : submitted_stmt);
          if (chain) {
            table.StoreVar(b, task, 0, b.ir().CreateAdd(issued, b.ir().getInt64(1)));
          } else {
            b.Store(ScalarType::kU64, submitted, 0, b.ir().CreateAdd(issued, b.ir().getInt64(1)), 8);
          }
          b.SetLocation(nop);
          SqeFields f = sqe::Nop();
          f.user_data = EmitUserData(b, task, kNopDone);
          queue.Push(b, f);
          table.StoreState(b, task, kWaiting);
        },
        [&](StepBuilder& b) {
          b.SetLocation(loop);
          table.StoreState(b, task, kTaskFinished);
        });
  };

  sb.SetLocation(parallel);
  EmitOnce(sb, name + "_started", [&](StepBuilder& b) {
    table.EmitForEachTask(b, [&](StepBuilder& b, llvm::Value* task) { issue(b, task); });
  });

  sb.SetLocation(nop);
  ReapResult reaped = EmitReapLoop(sb, regions, rc, spec.max_cqes != 0 ? spec.max_cqes : tasks, [&](StepBuilder& b, const Cqe& cqe) {
    EmitDispatch(b, cqe,
                 {AwaitCase{kNopDone, [&](StepBuilder& b, llvm::Value* raw_task, const Cqe& c) {
                              b.SetLocation(nop);
                              llvm::Value* task = table.CheckedIndex(b, raw_task);
                              b.StopIf(b.ir().CreateICmpSLT(c.res, b.ir().getInt32(0)),
                                       StopReason::kFailed, c.res);
                              b.SetLocation(completed_stmt);
                              b.Increment(completed, ScalarType::kU64);
                              issue(b, task);
                            }}});
  });

  sb.SetLocation(nop);
  queue.Flush(sb);
  sb.SetLocation(end);
  EmitIf(sb, table.EmitAllFinished(sb), [](StepBuilder& b) { b.Stop(StopReason::kDone); });
  sb.SetLocation(loop);
  EmitContinueAtNextCqe(sb, reaped);

  return Codegen(module, options, diags);
}

}  // namespace uringc::testing
