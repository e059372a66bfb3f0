// Ring creation: io_uring_setup through the KernelInterface (SQ_REWIND first in RingMode::kAuto),
// the mapping (RingMap), the parameter region, and the priming NOP (see ring.h for why it happens
// here and only here).
#include "uringc/ring.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
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
      return what + ": this kernel rejects the ring flags 0x" +
             [&] {
               char buf[16];
               snprintf(buf, sizeof(buf), "%x", flags);
               return std::string(buf);
             }() +
             " or the sizes; SINGLE_ISSUER|DEFER_TASKRUN need Linux 6.1+, NO_SQARRAY|SQ_REWIND "
             "(RingMode::kRewind, `--ring rewind`) Linux 7.0+, and entries must be powers of two "
             "up to 32768 (CQ up to 65536)";
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

bool ParseRingMode(const std::string& text, RingMode* mode) {
  if (text == "auto") {
    *mode = RingMode::kAuto;
  } else if (text == "rewind") {
    *mode = RingMode::kRewind;
  } else if (text == "tail") {
    *mode = RingMode::kTail;
  } else {
    return false;
  }
  return true;
}

const char* RingModeName(RingMode mode) {
  switch (mode) {
    case RingMode::kAuto:
      return "auto";
    case RingMode::kRewind:
      return "rewind";
    case RingMode::kTail:
      return "tail";
  }
  return "?";
}

Result<std::unique_ptr<Ring>> Ring::Create(const RingOptions& options) {
  constexpr uint32_t kRefused = IORING_SETUP_SQPOLL | IORING_SETUP_IOPOLL |
                                IORING_SETUP_R_DISABLED | IORING_SETUP_NO_SQARRAY |
                                IORING_SETUP_NO_MMAP | IORING_SETUP_SQ_REWIND;
  if (options.extra_flags & kRefused) {
    return MakeError(DiagKind::kRingNotSupported, EINVAL,
                     "ring flags SQPOLL, IOPOLL, R_DISABLED, NO_MMAP, NO_SQARRAY and SQ_REWIND "
                     "cannot be given as extra flags: the kernel runs controllers only on "
                     "SINGLE_ISSUER|DEFER_TASKRUN rings entered by their owner, and "
                     "RingOptions::mode = RingMode::kRewind asks for NO_SQARRAY|SQ_REWIND");
  }
  if (options.sq_entries == 0)
    return MakeError(DiagKind::kRingSetupFailed, EINVAL, "the SQ needs at least one entry");
  std::unique_ptr<Ring> ring(new Ring());
  ring->handle_ = std::make_shared<RingHandle>();
  ring->handle_->kernel = options.kernel ? options.kernel : &SystemKernel();
  ring->handle_->owner_tid = static_cast<pid_t>(syscall(SYS_gettid));
  if (options.mode == RingMode::kAuto && options.submit_all) {
    // Kernels before 7.0 reject SQ_REWIND with EINVAL; they cannot run controllers either, but
    // a ring is still useful there (host tests, feature probes).
    auto rewind = ring->Setup(options, RingMode::kRewind);
    if (!rewind && rewind.error().code != -EINVAL) return rewind.error();
    if (!rewind) {
      URINGC_TRY(ring->Setup(options, RingMode::kTail));
      ring->sq_rewind_refused_ = true;
    }
  } else {
    // Without SUBMIT_ALL a failed preparation leaves the rest of a batch in the SQ, which a
    // controller resubmits only on a ring with an SQ tail: kAuto takes kTail there.
    URINGC_TRY(
        ring->Setup(options, options.mode == RingMode::kAuto ? RingMode::kTail : options.mode));
  }
  ring->layout_ = RingLayoutFromParams(ring->params_);
  if (options.mem_region_size) URINGC_TRY(ring->RegisterMemRegion(options.mem_region_size));
  URINGC_TRY(ring->PrimeSubmission());
  return ring;
}

Result<void> Ring::Setup(const RingOptions& options, RingMode mode) {
  io_uring_params& p = params_;
  p = io_uring_params{};
  p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | options.extra_flags;
  if (mode == RingMode::kRewind) p.flags |= IORING_SETUP_NO_SQARRAY | IORING_SETUP_SQ_REWIND;
  if (options.submit_all) p.flags |= IORING_SETUP_SUBMIT_ALL;
  if (options.cq_entries) {
    p.flags |= IORING_SETUP_CQSIZE;
    p.cq_entries = options.cq_entries;
  }
  const int fd = handle_->kernel->IoUringSetup(options.sq_entries, &p);
  if (fd < 0) return MakeError(DiagKind::kRingSetupFailed, fd, ExplainSetupError(fd, p.flags));
  handle_->fd = fd;
  auto map = RingMap::Map(fd, p);
  if (!map) return map.error();
  map_ = std::move(*map);
  return {};
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

uint32_t Ring::CqReady() const { return map_ ? map_->CqReady() : 0; }

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
  if (ret == -EINVAL) {
    // Before Linux 6.13 there are no memory regions: the host engine reads the region from user
    // space and needs none registered; the kernel engine needs 7.1+, which has them.
    return {};
  }
  if (ret < 0) {
    std::string why = "cannot register the parameter region (IORING_REGISTER_MEM_REGION: " +
                      std::string(strerror(-ret)) + ")";
    if (ret == -ENOMEM || ret == -EFAULT) why += ": raise RLIMIT_MEMLOCK (ulimit -l)";
    return MakeError(DiagKind::kRingSetupFailed, ret, why);
  }
  mem_registered_ = true;
  return {};
}

Result<void> Ring::ProvideBufferRing(uint64_t ring_off, uint32_t count, uint64_t buf_off,
                                     uint64_t size) const {
  if (mem_ == nullptr || ring_off + uint64_t{count} * sizeof(io_uring_buf) > mem_size_ ||
      buf_off + uint64_t{count} * size > mem_size_ || count == 0 || (count & (count - 1)) != 0) {
    return MakeError(DiagKind::kRingNotSupported, EINVAL,
                     "the provided pool (" + std::to_string(count) + " buffers of " +
                         std::to_string(size) + " bytes) does not fit the ring's parameter "
                         "region of " + std::to_string(mem_size_) + " bytes");
  }
  auto* base = static_cast<uint8_t*>(mem_);
  auto* ring = reinterpret_cast<io_uring_buf_ring*>(base + ring_off);
  for (uint32_t i = 0; i < count; ++i) {
    ring->bufs[i].addr = reinterpret_cast<uintptr_t>(base + buf_off + i * size);
    ring->bufs[i].len = static_cast<uint32_t>(size);
    ring->bufs[i].bid = static_cast<uint16_t>(i);
  }
  io_uring_buf_reg reg{};
  reg.ring_addr = reinterpret_cast<uintptr_t>(ring);
  reg.ring_entries = count;
  reg.bgid = 0;
  int ret = handle_->kernel->IoUringRegister(handle_->fd, IORING_REGISTER_PBUF_RING, &reg, 1);
  if (ret == -EEXIST) {
    io_uring_buf_reg old{};
    handle_->kernel->IoUringRegister(handle_->fd, IORING_UNREGISTER_PBUF_RING, &old, 1);
    ret = handle_->kernel->IoUringRegister(handle_->fd, IORING_REGISTER_PBUF_RING, &reg, 1);
  }
  if (ret < 0) {
    return MakeError(DiagKind::kRingSetupFailed, ret,
                     "cannot register the provided pool's buffer ring "
                     "(IORING_REGISTER_PBUF_RING: " + std::string(strerror(-ret)) + ")" +
                         (ret == -ENOMEM || ret == -EFAULT
                              ? ": raise RLIMIT_MEMLOCK (ulimit -l)"
                              : ret == -EINVAL ? ": buffer rings need Linux 5.19+" : ""));
  }
  // The kernel takes entries up to the tail (after the registration, which zeroed nothing).
  __atomic_store_n(&ring->tail, static_cast<uint16_t>(count), __ATOMIC_RELEASE);
  return {};
}

Result<void> Ring::RegisterFixedBuffers(const std::vector<std::pair<void*, size_t>>& iov) const {
  std::vector<iovec> v;
  for (const auto& [p, n] : iov) v.push_back({p, n});
  const auto nr = static_cast<unsigned>(v.size());
  int ret = handle_->kernel->IoUringRegister(handle_->fd, IORING_REGISTER_BUFFERS, v.data(), nr);
  if (ret == -EBUSY) {
    handle_->kernel->IoUringRegister(handle_->fd, IORING_UNREGISTER_BUFFERS, nullptr, 0);
    ret = handle_->kernel->IoUringRegister(handle_->fd, IORING_REGISTER_BUFFERS, v.data(), nr);
  }
  if (ret < 0) {
    return MakeError(DiagKind::kRingSetupFailed, ret,
                     "cannot register fixed buffers (IORING_REGISTER_BUFFERS: " +
                         std::string(strerror(-ret)) + ")");
  }
  return {};
}

Result<void> Ring::PrimeSubmission() {
  map_->Sqe(0)->opcode = IORING_OP_NOP;
  map_->Publish(1);
  const int ret = handle_->kernel->IoUringEnter(handle_->fd, 1, 1, IORING_ENTER_GETEVENTS);
  if (ret < 0) {
    return MakeError(
        DiagKind::kRingSetupFailed, ret,
        "the priming submission on the new ring failed (" + std::string(strerror(-ret)) + ")");
  }
  if (ret != 1 || map_->CqReady() != 1)
    return MakeError(DiagKind::kRingSetupFailed, EIO, "the priming NOP did not complete");
  map_->CqAdvance(1);
  return {};
}

Ring::~Ring() {
  map_.reset();  // unmapped before the fd is closed (through the interface: a fake kernel sees it)
  if (handle_ && handle_->fd >= 0) {
    if (owned_) handle_->kernel->Close(handle_->fd);
    handle_->fd = -1;
  }
  if (mem_) munmap(mem_, mem_size_);
}

}  // namespace uringc
