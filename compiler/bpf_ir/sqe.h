// The requests of the language as SQE field sets. Each function fills the fields one opcode reads
// (per the io_uring UAPI and the kernel's prep functions); every other field is written as 0
// (SubmitQueue::Push writes all 64 bytes). Addresses (`addr`, buffers, paths, sockaddrs, timespecs) are *user-space*
// addresses: the kernel reads them with copy_from_user, so they must point into memory the host
// owns (e.g. its buffers or the parameter region at its user address), never into BPF memory.
// Values are i8..i64 IR values of any width; SubmitQueue::Push converts them to the field width.
#pragma once

#include <cstdint>

#include "llvm/IR/Value.h"

namespace uringc {

/// One SQE; a null Value means 0.
struct SqeFields {
  uint8_t opcode = 0;          ///< IORING_OP_*
  uint8_t flags = 0;           ///< IOSQE_* (IOSQE_IO_LINK before a link timeout)
  uint16_t ioprio = 0;         ///< u16: IORING_RECV_MULTISHOT, IORING_ACCEPT_MULTISHOT...
  llvm::Value* fd = nullptr;   ///< s32
  llvm::Value* off = nullptr;  ///< u64: file offset, or addr2
  llvm::Value* addr = nullptr; ///< u64
  llvm::Value* len = nullptr;  ///< u32
  uint32_t len_imm = 0;        ///< the len used when `len` is null
  llvm::Value* op_flags = nullptr;  ///< u32: rw_flags, msg_flags, timeout_flags, open_flags...
  llvm::Value* user_data = nullptr; ///< u64 (the lowering's layout: GraphLowerer::UserData)
  uint16_t buf_group = 0;      ///< u16 at buf_index: the provided-buffer group (BUFFER_SELECT)
  llvm::Value* buf_index = nullptr;  ///< u16: a registered buffer's index (READ_FIXED...)
  llvm::Value* opcode_v = nullptr;   ///< u8: an opcode chosen at run time (overrides `opcode`)
  llvm::Value* splice_fd_in = nullptr;  ///< s32: splice's source descriptor
  llvm::Value* cmd0 = nullptr;  ///< u64: a uring_cmd's payload, bytes 0-7 of its cmd area
  llvm::Value* cmd1 = nullptr;  ///< u64: bytes 8-15
};

namespace sqe {

SqeFields Nop();
/// uring_cmd(fd, cmd_op, the 16-byte payload as two little-endian words): the driver's own
/// command; cmd_op is the low half of `off`.
SqeFields UringCmd(llvm::Value* fd, llvm::Value* cmd_op, llvm::Value* w0, llvm::Value* w1);
/// read/write(fd, buf[addr, len), offset); offset -1 means the file position.
SqeFields Read(llvm::Value* fd, llvm::Value* addr, llvm::Value* len, llvm::Value* offset);
SqeFields Write(llvm::Value* fd, llvm::Value* addr, llvm::Value* len, llvm::Value* offset);
/// recv/send(fd, buf[addr, len), MSG_* flags).
SqeFields Recv(llvm::Value* fd, llvm::Value* addr, llvm::Value* len, llvm::Value* msg_flags);
SqeFields Send(llvm::Value* fd, llvm::Value* addr, llvm::Value* len, llvm::Value* msg_flags);
/// accept(fd, sockaddr *addr, socklen_t *addrlen_addr, SOCK_* flags); addr may be null.
SqeFields Accept(llvm::Value* fd, llvm::Value* addr, llvm::Value* addrlen_addr,
                 llvm::Value* flags);
/// connect(fd, sockaddr *addr, addrlen) (addrlen by value, in addr2).
SqeFields Connect(llvm::Value* fd, llvm::Value* addr, llvm::Value* addrlen);
SqeFields Close(llvm::Value* fd);
/// fsync(fd, IORING_FSYNC_* flags).
SqeFields Fsync(llvm::Value* fd, llvm::Value* flags);
/// openat(dfd, path, O_* flags, mode).
SqeFields Openat(llvm::Value* dfd, llvm::Value* path_addr, llvm::Value* flags, llvm::Value* mode);
/// poll_add(fd, POLL* mask) (32-bit mask).
SqeFields PollAdd(llvm::Value* fd, llvm::Value* poll_mask);
/// timeout(struct __kernel_timespec *ts, count, IORING_TIMEOUT_* flags): completes after `ts`
/// or after `count` other completions (0: time only).
SqeFields Timeout(llvm::Value* ts_addr, llvm::Value* count, llvm::Value* flags);
/// link_timeout(ts, flags): cancels the previous SQE (which needs IOSQE_IO_LINK) when `ts`
/// expires.
SqeFields LinkTimeout(llvm::Value* ts_addr, llvm::Value* flags);
/// async_cancel(target user_data, IORING_ASYNC_CANCEL_* flags).
SqeFields AsyncCancel(llvm::Value* target_user_data, llvm::Value* flags);

}  // namespace sqe
}  // namespace uringc
