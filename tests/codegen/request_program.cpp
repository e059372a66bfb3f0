// Builds the "requests" controller from the lowering blocks; see request_program.h.
#include "request_program.h"

#include <linux/io_uring.h>
#include <poll.h>

#include <vector>

#include "bpf_ir/control.h"
#include "bpf_ir/dispatch.h"
#include "bpf_ir/reap.h"
#include "bpf_ir/ring.h"
#include "bpf_ir/submit.h"
#include "bpf_ir/task_table.h"
#include "bpf_ir/wait.h"
#include "request_ops.h"

namespace uringc::testing {
namespace {

constexpr uint32_t kFirst = 1;   // await point of the first request
constexpr uint32_t kSecond = 2;  // await point of the second (link timeout, cancel)

struct OpLine {
  RequestOp op;
  const char* text;
};

// One line of the fake source per op, in RequestOp order.
constexpr OpLine kLines[] = {
    {RequestOp::kNop, "nop()"},
    {RequestOp::kRead, "read(fd, addr, len, off)"},
    {RequestOp::kWrite, "write(fd, addr, len, off)"},
    {RequestOp::kRecv, "recv(fd, addr, len, flags)"},
    {RequestOp::kSend, "send(fd, addr, len, flags)"},
    {RequestOp::kAccept, "accept(fd, addr, aux, flags)"},
    {RequestOp::kConnect, "connect(fd, addr, len)"},
    {RequestOp::kClose, "close(fd)"},
    {RequestOp::kFsync, "fsync(fd, flags)"},
    {RequestOp::kOpenat, "openat(fd, addr, flags, len)"},
    {RequestOp::kPollAdd, "poll(fd, flags)"},
    {RequestOp::kTimeout, "sleep(addr, off, flags)"},
    {RequestOp::kLinkTimeout, "poll(fd, POLLIN) within addr"},
    {RequestOp::kAsyncCancel, "cancel(poll(fd, POLLIN))"},
};
static_assert(std::size(kLines) == static_cast<size_t>(RequestOp::kCount));

SourceRange Find(const SourceManager& sources, uint32_t file, std::string_view needle) {
  const std::string& text = sources.Get(file)->text();
  size_t at = text.find(needle);
  if (at == std::string::npos) return SourceRange{file, 0, 0};
  return SourceRange{file, static_cast<uint32_t>(at), static_cast<uint32_t>(at + needle.size())};
}

}  // namespace

std::string RequestProgramSource() {
  std::string text =
      "// requests.uring: one request of the kind chosen at load time\n"
      "graph requests(op: u32, fd: i32, addr: u64, len: u32, off: u64, flags: u32, aux: u64)\n"
      "        -> (res1: i64, res2: i64) {\n"
      "    match op {\n";
  for (const OpLine& line : kLines) text += std::string("        ") + line.text + "\n";
  text += "    }\n}\n";
  return text;
}

std::optional<std::string> BuildRequestProgram(const CodegenOptions& options,
                                               DiagnosticList& diags,
                                               SourceManager* sources_out) {
  SourceManager local;
  SourceManager& sources = sources_out ? *sources_out : local;
  const uint32_t file = sources.Add("requests.uring", RequestProgramSource());
  BpfModule module(BpfModuleOptions{.name = "requests",
                                    .sources = &sources,
                                    .main_file = file,
                                    .optimized = options.opt != OptLevel::kO0});
  const SourceRange graph = Find(sources, file, "graph requests");
  const SourceRange match = Find(sources, file, "match op");
  RingConstants rc = DeclareRingConstants(module, graph);
  auto param = [&](const char* name, ScalarType type) {
    return module.AddRodata(name, type, 0, Find(sources, file, std::string(name) + ":"));
  };
  llvm::GlobalVariable* op = param("op", ScalarType::kU32);
  llvm::GlobalVariable* fd = param("fd", ScalarType::kU64);
  llvm::GlobalVariable* addr = param("addr", ScalarType::kU64);
  llvm::GlobalVariable* len = param("len", ScalarType::kU64);
  llvm::GlobalVariable* off = param("off", ScalarType::kU64);
  llvm::GlobalVariable* flags = param("flags", ScalarType::kU64);
  llvm::GlobalVariable* aux = param("aux", ScalarType::kU64);
  llvm::GlobalVariable* res1 = module.AddBss("res1", ScalarType::kS64, Find(sources, file, "res1"));
  llvm::GlobalVariable* res2 = module.AddBss("res2", ScalarType::kS64, Find(sources, file, "res2"));
  llvm::GlobalVariable* completions = module.AddBss("completions", ScalarType::kU64, graph);
  TaskTable table(module, "requests_tasks", 1, 0, graph);

  BpfProgram program = module.CreateProgram("requests", graph);
  module.CreateOps("requests_ops", program);
  StepBuilder sb(module, program);
  sb.ReturnIfStopped();
  RingRegions regions = EmitGetRingRegions(sb, rc);
  SubmitQueue queue(sb, regions, rc);
  llvm::IRBuilder<>& ir = sb.ir();
  llvm::Value* task = ir.getInt32(0);

  sb.SetLocation(match);
  EmitOnce(sb, "requests_started", [&](StepBuilder& b) {
    llvm::Value* selected = b.ReadConst(op);
    llvm::BasicBlock* join = b.NewBlock("match.end");
    llvm::SwitchInst* sw = ir.CreateSwitch(selected, join, std::size(kLines));
    for (const OpLine& line : kLines) {
      llvm::BasicBlock* block = b.NewBlock("match.case");
      sw->addCase(ir.getInt32(static_cast<uint32_t>(line.op)), block);
      b.SetBlock(block);
      b.SetLocation(Find(sources, file, line.text));
      llvm::Value* v_fd = ir.CreateTrunc(b.ReadConst(fd), ir.getInt32Ty());
      auto v = [&](llvm::GlobalVariable* g) { return b.ReadConst(g); };
      auto v32 = [&](llvm::GlobalVariable* g) {
        return ir.CreateTrunc(b.ReadConst(g), ir.getInt32Ty());
      };
      std::vector<SqeFields> sqes;
      switch (line.op) {
        case RequestOp::kNop: sqes = {sqe::Nop()}; break;
        case RequestOp::kRead: sqes = {sqe::Read(v_fd, v(addr), v32(len), v(off))}; break;
        case RequestOp::kWrite: sqes = {sqe::Write(v_fd, v(addr), v32(len), v(off))}; break;
        case RequestOp::kRecv: sqes = {sqe::Recv(v_fd, v(addr), v32(len), v32(flags))}; break;
        case RequestOp::kSend: sqes = {sqe::Send(v_fd, v(addr), v32(len), v32(flags))}; break;
        case RequestOp::kAccept:
          sqes = {sqe::Accept(v_fd, v(addr), v(aux), v32(flags))};
          break;
        case RequestOp::kConnect: sqes = {sqe::Connect(v_fd, v(addr), v(len))}; break;
        case RequestOp::kClose: sqes = {sqe::Close(v_fd)}; break;
        case RequestOp::kFsync: sqes = {sqe::Fsync(v_fd, v32(flags))}; break;
        case RequestOp::kOpenat:
          sqes = {sqe::Openat(v_fd, v(addr), v32(flags), v32(len))};
          break;
        case RequestOp::kPollAdd: sqes = {sqe::PollAdd(v_fd, v32(flags))}; break;
        case RequestOp::kTimeout: sqes = {sqe::Timeout(v(addr), v(off), v32(flags))}; break;
        case RequestOp::kLinkTimeout: {
          SqeFields poll = sqe::PollAdd(v_fd, ir.getInt32(POLLIN));
          poll.flags = IOSQE_IO_LINK;
          sqes = {poll, sqe::LinkTimeout(v(addr), v32(flags))};
          break;
        }
        case RequestOp::kAsyncCancel:
          sqes = {sqe::PollAdd(v_fd, ir.getInt32(POLLIN)),
                  sqe::AsyncCancel(EmitUserData(b, task, kFirst), v32(flags))};
          break;
        case RequestOp::kCount: break;
      }
      for (size_t i = 0; i < sqes.size(); i++) {
        sqes[i].user_data = EmitUserData(b, task, i == 0 ? kFirst : kSecond);
        queue.Push(b, sqes[i]);
      }
      table.StoreState(b, ir.getInt64(0), kFirstResumeState);
      ir.CreateBr(join);
    }
    b.SetBlock(join);
  });

  sb.SetLocation(match);
  ReapResult reaped = EmitReapLoop(sb, regions, rc, 2, [&](StepBuilder& b, const Cqe& cqe) {
    auto record = [&](llvm::GlobalVariable* out) {
      return [&, out](StepBuilder& b, llvm::Value* raw_task, const Cqe& c) {
        table.CheckedIndex(b, raw_task);
        b.Store(ScalarType::kS64, out, 0, b.ir().CreateSExt(c.res, b.ir().getInt64Ty()), 8);
        b.Increment(completions, ScalarType::kU64);
      };
    };
    EmitDispatch(b, cqe, {AwaitCase{kFirst, record(res1)}, AwaitCase{kSecond, record(res2)}});
  });
  queue.Flush(sb);
  // Done when every completion of the selected op arrived.
  llvm::Value* selected = sb.ReadConst(op);
  llvm::Value* two = ir.CreateOr(
      ir.CreateICmpEQ(selected, ir.getInt32(static_cast<uint32_t>(RequestOp::kLinkTimeout))),
      ir.CreateICmpEQ(selected, ir.getInt32(static_cast<uint32_t>(RequestOp::kAsyncCancel))));
  llvm::Value* expected = ir.CreateSelect(two, ir.getInt64(2), ir.getInt64(1));
  llvm::Value* got = sb.Load(ScalarType::kU64, completions, 0, 8);
  EmitIf(sb, ir.CreateICmpUGE(got, expected), [](StepBuilder& b) { b.Stop(StopReason::kDone); });
  EmitContinueAtNextCqe(sb, reaped);
  return Codegen(module, options, diags);
}

}  // namespace uringc::testing
