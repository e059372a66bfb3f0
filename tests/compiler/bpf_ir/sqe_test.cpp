// The request kinds of compiler/bpf_ir/sqe.h against liburing's io_uring_prep_* helpers (an
// independent statement of which SQE field each operand goes to): both SQEs are rendered on the
// host and compared byte for byte. Also checks that the lowering refuses, as an internal error,
// a module with an instruction that lacks a `.uring` location.
#include <gtest/gtest.h>
#include <liburing.h>
#include <poll.h>

#include <cstddef>
#include <cstring>

#include "emit/codegen.h"
#include "bpf_ir/sqe.h"
#include "bpf_ir/step_builder.h"
#include "llvm/IR/Constants.h"

namespace uringc {
namespace {

class SqeTest : public ::testing::Test {
 protected:
  llvm::Value* C(uint64_t v, unsigned bits = 64) {
    return llvm::ConstantInt::get(llvm::IntegerType::get(ctx_, bits), v);
  }

  static uint64_t Value(llvm::Value* v) {
    return v == nullptr ? 0 : llvm::cast<llvm::ConstantInt>(v)->getZExtValue();
  }

  // What SubmitQueue::Push writes, rendered on the host with the UAPI struct.
  static io_uring_sqe Render(const SqeFields& f) {
    io_uring_sqe sqe;
    std::memset(&sqe, 0, sizeof(sqe));
    sqe.opcode = f.opcode;
    sqe.flags = f.flags;
    sqe.fd = static_cast<int32_t>(Value(f.fd));
    sqe.off = Value(f.off);
    sqe.addr = Value(f.addr);
    sqe.len = f.len != nullptr ? static_cast<uint32_t>(Value(f.len)) : f.len_imm;
    sqe.rw_flags = static_cast<int>(Value(f.op_flags));
    sqe.user_data = Value(f.user_data);
    const uint64_t cmd[2] = {Value(f.cmd0), Value(f.cmd1)};
    std::memcpy(sqe.cmd, cmd, sizeof(cmd));
    return sqe;
  }

  static io_uring_sqe Prep(void (*prep)(io_uring_sqe*)) {
    io_uring_sqe sqe;
    std::memset(&sqe, 0xa5, sizeof(sqe));  // liburing must set every field it relies on
    prep(&sqe);
    return sqe;
  }

  static void ExpectSame(io_uring_sqe expected, const io_uring_sqe& actual,
                         bool unused_fd = false) {
    // liburing fills -1 into the fd of requests that have none; the kernel ignores it.
    if (unused_fd) {
      EXPECT_EQ(expected.fd, -1);
      expected.fd = 0;
    }
    EXPECT_EQ(expected.opcode, actual.opcode);
    EXPECT_EQ(expected.fd, actual.fd);
    EXPECT_EQ(expected.off, actual.off);
    EXPECT_EQ(expected.addr, actual.addr);
    EXPECT_EQ(expected.len, actual.len);
    EXPECT_EQ(expected.rw_flags, actual.rw_flags);
    EXPECT_EQ(expected.user_data, actual.user_data);
    EXPECT_EQ(std::memcmp(&expected, &actual, sizeof(expected)), 0);
  }

  llvm::LLVMContext ctx_;
};

// liburing's prep helpers are inline functions with arguments; these wrappers fix the operands.
#define PREP(body) [](io_uring_sqe* s) { body; s->user_data = 0x1234; }

TEST_F(SqeTest, EveryRequestKindMatchesLiburing) {
  auto ud = [&](SqeFields f) {
    f.user_data = C(0x1234);
    return Render(f);
  };
  ExpectSame(Prep(PREP(io_uring_prep_nop(s))), ud(sqe::Nop()), /*unused_fd=*/true);
  ExpectSame(Prep(PREP(io_uring_prep_read(s, 7, (void*)0x1000, 4096, 8192))),
             ud(sqe::Read(C(7, 32), C(0x1000), C(4096, 32), C(8192))));
  ExpectSame(Prep(PREP(io_uring_prep_write(s, 7, (void*)0x1000, 4096, 8192))),
             ud(sqe::Write(C(7, 32), C(0x1000), C(4096, 32), C(8192))));
  ExpectSame(Prep(PREP(io_uring_prep_recv(s, 5, (void*)0x2000, 512, MSG_WAITALL))),
             ud(sqe::Recv(C(5, 32), C(0x2000), C(512, 32), C(MSG_WAITALL, 32))));
  ExpectSame(Prep(PREP(io_uring_prep_send(s, 5, (void*)0x2000, 512, MSG_NOSIGNAL))),
             ud(sqe::Send(C(5, 32), C(0x2000), C(512, 32), C(MSG_NOSIGNAL, 32))));
  ExpectSame(Prep(PREP(io_uring_prep_accept(s, 3, (sockaddr*)0x3000, (socklen_t*)0x3100,
                                            SOCK_CLOEXEC))),
             ud(sqe::Accept(C(3, 32), C(0x3000), C(0x3100), C(SOCK_CLOEXEC, 32))));
  ExpectSame(Prep(PREP(io_uring_prep_connect(s, 3, (const sockaddr*)0x3000, 16))),
             ud(sqe::Connect(C(3, 32), C(0x3000), C(16))));
  ExpectSame(Prep(PREP(io_uring_prep_close(s, 9))), ud(sqe::Close(C(9, 32))));
  ExpectSame(Prep(PREP(io_uring_prep_fsync(s, 9, IORING_FSYNC_DATASYNC))),
             ud(sqe::Fsync(C(9, 32), C(IORING_FSYNC_DATASYNC, 32))));
  ExpectSame(Prep(PREP(io_uring_prep_openat(s, AT_FDCWD, (const char*)0x4000, O_RDONLY, 0644))),
             ud(sqe::Openat(C(static_cast<uint32_t>(AT_FDCWD), 32), C(0x4000),
                            C(O_RDONLY, 32), C(0644, 32))));
  ExpectSame(Prep(PREP(io_uring_prep_poll_add(s, 4, POLLIN))),
             ud(sqe::PollAdd(C(4, 32), C(POLLIN, 32))));
  ExpectSame(Prep(PREP(io_uring_prep_timeout(s, (__kernel_timespec*)0x5000, 2,
                                             IORING_TIMEOUT_ABS))),
             ud(sqe::Timeout(C(0x5000), C(2), C(IORING_TIMEOUT_ABS, 32))), /*unused_fd=*/true);
  ExpectSame(Prep(PREP(io_uring_prep_link_timeout(s, (__kernel_timespec*)0x5000, 0))),
             ud(sqe::LinkTimeout(C(0x5000), nullptr)), /*unused_fd=*/true);
  ExpectSame(Prep(PREP(io_uring_prep_cancel64(s, 0xabcdef, IORING_ASYNC_CANCEL_ALL))),
             ud(sqe::AsyncCancel(C(0xabcdef), C(IORING_ASYNC_CANCEL_ALL, 32))),
             /*unused_fd=*/true);
  // liburing 2.3 has no uring_cmd helper: its generic prep plus the command's fields, as
  // liburing 2.5's io_uring_prep_cmd_sock writes them (a ublk I/O command's payload here).
  ExpectSame(Prep([](io_uring_sqe* s) {
               io_uring_prep_rw(IORING_OP_URING_CMD, s, 6, nullptr, 0, 0);
               s->cmd_op = 0xC0107521u;
               s->__pad1 = 0;
               const uint64_t w[2] = {0x0000020000030001ull, 0x7000};
               std::memcpy(s->cmd, w, sizeof(w));
               s->user_data = 0x1234;
             }),
             ud(sqe::UringCmd(C(6, 32), C(0xC0107521u), C(0x0000020000030001ull), C(0x7000))));
}

TEST(LowerLocations, InstructionWithoutLocationIsAnInternalError) {
  SourceManager sources;
  uint32_t file = sources.Add("t.uring", "graph t() {}\n");
  BpfModule module(BpfModuleOptions{.name = "t", .sources = &sources, .main_file = file});
  BpfProgram program = module.CreateProgram("t", SourceRange{file, 0, 5});
  StepBuilder sb(module, program);
  sb.ir().SetCurrentDebugLocation(llvm::DebugLoc());  // a lowering bug
  sb.Return(LoopAction::kStop);
  DiagnosticList diags;
  EXPECT_FALSE(Codegen(module, CodegenOptions{}, diags).has_value());
  ASSERT_TRUE(diags.HasErrors());
  EXPECT_EQ(diags.items().front().kind, uringc::DiagKind::kInternalCompilerError);
  EXPECT_NE(diags.items().front().message.find("without a source location"), std::string::npos);
}

}  // namespace
}  // namespace uringc
