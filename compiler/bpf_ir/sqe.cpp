// Field sets of each request kind; see sqe.h. The field each operand goes to follows the
// kernel's io_*_prep functions (io_uring/rw.c, net.c, openclose.c, sync.c, poll.c, timeout.c,
// cancel.c) as documented in io_uring_enter(2).
#include "bpf_ir/sqe.h"

#include <linux/io_uring.h>

namespace uringc::sqe {

SqeFields Nop() { return SqeFields{.opcode = IORING_OP_NOP}; }

SqeFields UringCmd(llvm::Value* fd, llvm::Value* cmd_op, llvm::Value* w0, llvm::Value* w1) {
  return SqeFields{.opcode = IORING_OP_URING_CMD, .fd = fd, .off = cmd_op, .cmd0 = w0, .cmd1 = w1};
}

SqeFields Read(llvm::Value* fd, llvm::Value* addr, llvm::Value* len, llvm::Value* offset) {
  return SqeFields{.opcode = IORING_OP_READ, .fd = fd, .off = offset, .addr = addr, .len = len};
}

SqeFields Write(llvm::Value* fd, llvm::Value* addr, llvm::Value* len, llvm::Value* offset) {
  return SqeFields{.opcode = IORING_OP_WRITE, .fd = fd, .off = offset, .addr = addr, .len = len};
}

SqeFields Recv(llvm::Value* fd, llvm::Value* addr, llvm::Value* len, llvm::Value* msg_flags) {
  return SqeFields{
      .opcode = IORING_OP_RECV, .fd = fd, .addr = addr, .len = len, .op_flags = msg_flags};
}

SqeFields Send(llvm::Value* fd, llvm::Value* addr, llvm::Value* len, llvm::Value* msg_flags) {
  return SqeFields{
      .opcode = IORING_OP_SEND, .fd = fd, .addr = addr, .len = len, .op_flags = msg_flags};
}

SqeFields Accept(llvm::Value* fd, llvm::Value* addr, llvm::Value* addrlen_addr,
                 llvm::Value* flags) {
  return SqeFields{.opcode = IORING_OP_ACCEPT,
                   .fd = fd,
                   .off = addrlen_addr,
                   .addr = addr,
                   .op_flags = flags};
}

SqeFields Connect(llvm::Value* fd, llvm::Value* addr, llvm::Value* addrlen) {
  return SqeFields{.opcode = IORING_OP_CONNECT, .fd = fd, .off = addrlen, .addr = addr};
}

SqeFields Close(llvm::Value* fd) { return SqeFields{.opcode = IORING_OP_CLOSE, .fd = fd}; }

SqeFields Fsync(llvm::Value* fd, llvm::Value* flags) {
  return SqeFields{.opcode = IORING_OP_FSYNC, .fd = fd, .op_flags = flags};
}

SqeFields Openat(llvm::Value* dfd, llvm::Value* path_addr, llvm::Value* flags,
                 llvm::Value* mode) {
  return SqeFields{
      .opcode = IORING_OP_OPENAT, .fd = dfd, .addr = path_addr, .len = mode, .op_flags = flags};
}

SqeFields PollAdd(llvm::Value* fd, llvm::Value* poll_mask) {
  return SqeFields{.opcode = IORING_OP_POLL_ADD, .fd = fd, .op_flags = poll_mask};
}

SqeFields Timeout(llvm::Value* ts_addr, llvm::Value* count, llvm::Value* flags) {
  // len is the number of timespecs: exactly 1.
  return SqeFields{.opcode = IORING_OP_TIMEOUT,
                   .fd = nullptr,
                   .off = count,
                   .addr = ts_addr,
                   .len = nullptr,
                   .len_imm = 1,
                   .op_flags = flags};
}

SqeFields LinkTimeout(llvm::Value* ts_addr, llvm::Value* flags) {
  return SqeFields{
      .opcode = IORING_OP_LINK_TIMEOUT, .addr = ts_addr, .len_imm = 1, .op_flags = flags};
}

SqeFields AsyncCancel(llvm::Value* target_user_data, llvm::Value* flags) {
  return SqeFields{.opcode = IORING_OP_ASYNC_CANCEL, .addr = target_user_data, .op_flags = flags};
}

}  // namespace uringc::sqe
