// The io_uring system calls the runtime makes, behind a small interface so unit tests can put a
// fake kernel underneath (EINTR storms, EEXIST, setup failures) while the VM tests use the real one.
// Every call returns a non-negative result or a negative errno; none touches the global errno.
#pragma once

#include <signal.h>

#include <cstdint>

struct io_uring_params;

namespace uringc {

class KernelInterface {
 public:
  virtual ~KernelInterface() = default;
  /// io_uring_setup(2): a ring fd or -errno.
  virtual int IoUringSetup(uint32_t entries, io_uring_params* params) = 0;
  /// io_uring_enter(2) without a signal mask: completions consumed or -errno.
  virtual int IoUringEnter(int ring_fd, uint32_t to_submit, uint32_t min_complete,
                           uint32_t flags) = 0;
  /// io_uring_enter(2) with `mask` as the thread's signal mask while the call waits (nullptr:
  /// the current one), as pselect does. A fake kernel may ignore the mask.
  virtual int IoUringEnterWithMask(int ring_fd, uint32_t to_submit, uint32_t min_complete,
                                   uint32_t flags, const sigset_t* mask) {
    (void)mask;
    return IoUringEnter(ring_fd, to_submit, min_complete, flags);
  }
  /// io_uring_register(2): >= 0 or -errno.
  virtual int IoUringRegister(int ring_fd, uint32_t opcode, void* arg, uint32_t nr_args) = 0;
  /// close(2): 0 or -errno.
  virtual int Close(int fd) = 0;
};

/// The real system calls.
KernelInterface& SystemKernel();

}  // namespace uringc
