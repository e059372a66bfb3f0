// The real KernelInterface: raw system calls (liburing 2.3 has no wrapper for every opcode we use).
#include "uringc/kernel.h"

#include <linux/io_uring.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace uringc {
namespace {

int Syscall(long ret) { return ret < 0 ? -errno : static_cast<int>(ret); }

class SystemKernelImpl final : public KernelInterface {
 public:
  int IoUringSetup(uint32_t entries, io_uring_params* params) override {
    const int saved = errno;
    const int ret = Syscall(syscall(__NR_io_uring_setup, entries, params));
    errno = saved;
    return ret;
  }
  int IoUringEnter(int ring_fd, uint32_t to_submit, uint32_t min_complete,
                   uint32_t flags) override {
    const int saved = errno;
    const int ret = Syscall(
        syscall(__NR_io_uring_enter, ring_fd, to_submit, min_complete, flags, nullptr, 0));
    errno = saved;
    return ret;
  }
  int IoUringEnterWithMask(int ring_fd, uint32_t to_submit, uint32_t min_complete, uint32_t flags,
                           const sigset_t* mask) override {
    const int saved = errno;
    const int ret = Syscall(syscall(__NR_io_uring_enter, ring_fd, to_submit, min_complete, flags,
                                    mask, mask ? _NSIG / 8 : 0));
    errno = saved;
    return ret;
  }
  int IoUringRegister(int ring_fd, uint32_t opcode, void* arg, uint32_t nr_args) override {
    const int saved = errno;
    const int ret = Syscall(syscall(__NR_io_uring_register, ring_fd, opcode, arg, nr_args));
    errno = saved;
    return ret;
  }
  int Close(int fd) override {
    const int saved = errno;
    const int ret = Syscall(close(fd));
    errno = saved;
    return ret;
  }
};

}  // namespace

KernelInterface& SystemKernel() {
  static SystemKernelImpl kernel;
  return kernel;
}

}  // namespace uringc
