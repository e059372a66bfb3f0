// Ring creation: io_uring_setup through the KernelInterface, liburing's mmap of the rings, the
// parameter region, and the priming NOP (see ring.h for why it happens here and only here).
#include "uringc/ring.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "uringc/liburing_compat.h"

namespace uringc {

std::string ExplainSetupError(int err, uint32_t flags) {
  const std::string what = "cannot create the io_uring ring (io_uring_setup: " +
                           std::string(strerror(err < 0 ? -err : err)) + ")";
  switch (err < 0 ? -err : err) {
    case EINVAL:
      return what + ": this kernel rejects the ring flags 0x" + [&] {
        char buf[16];
        snprintf(buf, sizeof(buf), "%x", flags);
        return std::string(buf);
      }() + " or the sizes; SINGLE_ISSUER|DEFER_TASKRUN need Linux 6.1+, and entries must be "
            "powers of two up to 32768 (CQ up to 65536)";
    case EPERM:
      return what + ": io_uring is disabled for this process (sysctl kernel.io_uring_disabled, or "
                    "a seccomp filter); ask the administrator to allow it";
    case ENOMEM:
      return what + ": out of locked memory; raise RLIMIT_MEMLOCK (ulimit -l) or use smaller rings";
    case EMFILE:
    case ENFILE:
      return what + ": too many open files; close some or raise the limit (ulimit -n)";
    case ENOSYS:
      return what + ": this kernel has no io_uring";
    default:
      return what;
  }
}

Result<std::unique_ptr<Ring>> Ring::Create(const RingOptions& options) {
  constexpr uint32_t kRefused = IORING_SETUP_SQPOLL | IORING_SETUP_IOPOLL |
                                IORING_SETUP_R_DISABLED | IORING_SETUP_NO_SQARRAY |
                                IORING_SETUP_NO_MMAP;
  if (options.extra_flags & kRefused) {
    return MakeError(DiagKind::kRingNotSupported, EINVAL,
                     "ring flags SQPOLL, IOPOLL, R_DISABLED, NO_MMAP and NO_SQARRAY cannot be "
                     "used: the kernel runs controllers only on SINGLE_ISSUER|DEFER_TASKRUN rings "
                     "entered by their owner, and liburing 2.3 cannot map NO_SQARRAY rings");
  }
  if (options.sq_entries == 0)
    return MakeError(DiagKind::kRingSetupFailed, EINVAL, "the SQ needs at least one entry");
  std::unique_ptr<Ring> ring(new Ring());
  ring->handle_ = std::make_shared<RingHandle>();
  ring->handle_->kernel = options.kernel ? options.kernel : &SystemKernel();
  ring->handle_->owner_tid = static_cast<pid_t>(syscall(SYS_gettid));

  io_uring_params& p = ring->params_;
  p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | options.extra_flags;
  if (options.submit_all) p.flags |= IORING_SETUP_SUBMIT_ALL;
  if (options.cq_entries) {
    p.flags |= IORING_SETUP_CQSIZE;
    p.cq_entries = options.cq_entries;
  }
  const int fd = ring->handle_->kernel->IoUringSetup(options.sq_entries, &p);
  if (fd < 0) return MakeError(DiagKind::kRingSetupFailed, fd, ExplainSetupError(fd, p.flags));
  ring->handle_->fd = fd;
  const int ret = io_uring_queue_mmap(fd, &p, &ring->ring_);
  if (ret < 0) {
    return MakeError(DiagKind::kRingSetupFailed, ret,
                     "cannot map the io_uring ring (" + std::string(strerror(-ret)) +
                         "): out of address space or locked memory?");
  }
  ring->mapped_ = true;
  // liburing 2.3 fills the SQ index array in io_uring_queue_init_params, not in
  // io_uring_queue_mmap: map SQ slot i to SQE i, which controllers rely on.
  for (unsigned i = 0; i < ring->ring_.sq.ring_entries; ++i) ring->ring_.sq.array[i] = i;
  ring->layout_ = RingLayoutFromParams(p);
  if (options.mem_region_size) URINGC_TRY(ring->RegisterMemRegion(options.mem_region_size));
  URINGC_TRY(ring->PrimeSubmission());
  return ring;
}

Result<std::unique_ptr<Ring>> Ring::Borrow(int fd, const io_uring_params& params,
                                           KernelInterface* kernel) {
  if (fd < 0)
    return MakeError(DiagKind::kApiMisuse, EBADF, "Ring::Borrow needs an open io_uring fd");
  std::unique_ptr<Ring> ring(new Ring());
  ring->owned_ = false;
  ring->handle_ = std::make_shared<RingHandle>();
  ring->handle_->kernel = kernel ? kernel : &SystemKernel();
  ring->handle_->owner_tid = static_cast<pid_t>(syscall(SYS_gettid));
  ring->handle_->fd = fd;
  ring->params_ = params;
  ring->layout_ = RingLayoutFromParams(params);
  return ring;
}

uint32_t Ring::CqReady() const {
  if (!mapped_) return 0;
  return io_uring_cq_ready(&ring_);
}

Result<void> Ring::RegisterMemRegion(size_t size) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  mem_size_ = (size + page - 1) / page * page;
  void* mem = mmap(nullptr, mem_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    mem_size_ = 0;
    return MakeError(DiagKind::kOutOfMemory, ENOMEM,
                     "cannot allocate a parameter region of " + std::to_string(size) + " bytes");
  }
  mem_ = mem;
  IoUringRegionDesc desc{};
  desc.user_addr = reinterpret_cast<uintptr_t>(mem_);
  desc.size = mem_size_;
  desc.flags = URINGC_IORING_MEM_REGION_TYPE_USER;
  IoUringMemRegionReg reg{};
  reg.region_uptr = reinterpret_cast<uintptr_t>(&desc);
  const int ret = handle_->kernel->IoUringRegister(handle_->fd, URINGC_IORING_REGISTER_MEM_REGION,
                                                   &reg, 1);
  if (ret < 0) {
    std::string why = "cannot register the parameter region (IORING_REGISTER_MEM_REGION: " +
                      std::string(strerror(-ret)) + ")";
    if (ret == -EINVAL) why += ": the kernel has no memory regions (Linux 6.13+ is needed)";
    if (ret == -ENOMEM || ret == -EFAULT) why += ": raise RLIMIT_MEMLOCK (ulimit -l)";
    return MakeError(DiagKind::kRingSetupFailed, ret, why);
  }
  return {};
}

Result<void> Ring::PrimeSubmission() {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (!sqe)
    return MakeError(DiagKind::kRingSetupFailed, EBUSY,
                     "the new ring has no free SQE for the priming submission");
  io_uring_prep_nop(sqe);
  sqe->user_data = 0;
  int ret = io_uring_submit_and_wait(&ring_, 1);
  if (ret < 0) {
    return MakeError(
        DiagKind::kRingSetupFailed, ret,
        "the priming submission on the new ring failed (" + std::string(strerror(-ret)) + ")");
  }
  io_uring_cqe* cqe = nullptr;
  ret = io_uring_peek_cqe(&ring_, &cqe);
  if (ret < 0 || !cqe)
    return MakeError(DiagKind::kRingSetupFailed, EIO, "the priming NOP did not complete");
  io_uring_cqe_seen(&ring_, cqe);
  return {};
}

Ring::~Ring() {
  if (mapped_) {
    // io_uring_queue_exit would unmap and close; unmap by hand (liburing 2.3 exports no unmap
    // helper) and close through the interface, so a fake kernel sees it.
    const size_t sqe_size = (params_.flags & IORING_SETUP_SQE128) ? 128 : 64;
    munmap(ring_.sq.sqes, params_.sq_entries * sqe_size);
    munmap(ring_.sq.ring_ptr, ring_.sq.ring_sz);
    if (ring_.cq.ring_ptr && ring_.cq.ring_ptr != ring_.sq.ring_ptr) {
      munmap(ring_.cq.ring_ptr, ring_.cq.ring_sz);
    }
  }
  if (handle_ && handle_->fd >= 0) {
    if (owned_) handle_->kernel->Close(handle_->fd);
    handle_->fd = -1;
  }
  if (mem_) munmap(mem_, mem_size_);
}

}  // namespace uringc
