// The host engine's loop and the runtime's half of the host ABI (the uringc_host_* calls); see
// host_engine.h and uringc/program.h.
#include "uringc/host_engine.h"

#include <linux/io_uring.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <cerrno>
#include <cstring>

#include "uringc/ring_map.h"

namespace uringc {
namespace {

enum : int { kLoopContinue = 0, kLoopStop = 1 };
enum : uint32_t { kRegionMem = 0, kRegionCq = 1, kRegionSq = 2 };

// Steps in a row without a wait after which the loop looks for a pending signal: the kernel's
// loop notices one at once, so a controller that keeps finding its completions ready must not
// make a signal wait forever. A step costs about a microsecond, so a signal waits at most about
// a millisecond, and a NOP chain pays one rt_sigpending per 1,024 NOPs (at 64: 1.5% of its
// system calls).
constexpr int kStepsBetweenSignalChecks = 1024;

HostCtx* Ctx(uringc_host_ctx* abi) { return reinterpret_cast<HostCtx*>(abi); }

// The signals the loop holds back while loop_step runs: all but the ones a fault raises, which
// must reach their handler (or end the process) where they happen.
sigset_t HeldSignals() {
  sigset_t set;
  sigfillset(&set);
  for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS}) sigdelset(&set, s);
  return set;
}

// A signal the caller's mask lets through is pending.
bool SignalPending(const sigset_t& caller_mask) {
  sigset_t pending;
  if (sigpending(&pending) != 0) return false;
  for (int s = 1; s < NSIG; ++s) {
    if (sigismember(&pending, s) == 1 && sigismember(&caller_mask, s) == 0) return true;
  }
  return false;
}

}  // namespace

Result<std::unique_ptr<HostEngine>> HostEngine::Create(const uringc_program& program) {
  if (program.abi != URINGC_PROGRAM_ABI) {
    return MakeError(DiagKind::kBadObject, EINVAL,
                     "the host program was compiled for host ABI " + std::to_string(program.abi) +
                         " and this runtime has ABI " + std::to_string(URINGC_PROGRAM_ABI) +
                         ": compile it again with this uringc (`uringc compile --target=host`)");
  }
  if (program.loop_step == nullptr || program.image == nullptr ||
      (program.section_count != 0 && program.sections == nullptr)) {
    return MakeError(DiagKind::kBadObject, EINVAL, "the host program's descriptor is incomplete");
  }
  for (uint32_t i = 0; i < program.section_count; ++i) {
    const uringc_program_section& s = program.sections[i];
    if (s.name == nullptr || s.offset > program.image_size ||
        s.size > program.image_size - s.offset) {
      return MakeError(DiagKind::kBadObject, EINVAL,
                       "a section of the host program lies outside its state");
    }
  }
  std::unique_ptr<HostEngine> e(new HostEngine());
  e->program_ = program;
  // Page-aligned, zeroed memory of its own: every engine has its own state.
  e->state_size_ = program.image_size == 0 ? 1 : program.image_size;
  void* mem =
      mmap(nullptr, e->state_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    return MakeError(DiagKind::kOutOfMemory, ENOMEM,
                     "cannot allocate the host program's state (" +
                         std::to_string(program.image_size) + " bytes)");
  }
  e->state_ = static_cast<uint8_t*>(mem);
  memcpy(e->state_, program.image, program.image_size);
  e->ctx_.abi.state = e->state_;
  return e;
}

HostEngine::~HostEngine() {
  if (state_) munmap(state_, state_size_);
}

uint8_t* HostEngine::Section(const std::string& name, size_t* size) {
  for (uint32_t i = 0; i < program_.section_count; ++i) {
    const uringc_program_section& s = program_.sections[i];
    if (name == s.name) {
      *size = s.size;
      return state_ + s.offset;
    }
  }
  *size = 0;
  return nullptr;
}

Result<void> HostEngine::Bind(const Ring& ring) {
  const RingMap* map = ring.map();
  if (map == nullptr) {
    return MakeError(DiagKind::kApiMisuse, EINVAL,
                     "the host engine maps the ring's regions itself: it runs on rings that "
                     "Ring::Create made, not on a borrowed ring");
  }
  if (!(ring.params().flags & IORING_SETUP_DEFER_TASKRUN)) {
    return MakeError(DiagKind::kRingNotSupported, EINVAL,
                     "the host engine needs a DEFER_TASKRUN ring (Linux 6.1+)");
  }
  ctx_.fd = ring.fd();
  ctx_.kernel = ring.handle()->kernel;
  ctx_.region[kRegionMem] = static_cast<uint8_t*>(ring.mem_region());
  ctx_.region_size[kRegionMem] = ring.mem_region_size();
  ctx_.region[kRegionCq] = static_cast<uint8_t*>(map->rings());
  ctx_.region_size[kRegionCq] = map->rings_size();
  ctx_.region[kRegionSq] = static_cast<uint8_t*>(map->sqes());
  ctx_.region_size[kRegionSq] = map->sqes_size();
  cq_tail_ = reinterpret_cast<const uint32_t*>(ctx_.region[kRegionCq] + ring.params().cq_off.tail);
  return {};
}

int HostEngine::Wait(uint32_t count, const sigset_t& caller_mask) {
  // The caller's own mask while the kernel waits: a signal that arrives (or waited) ends the
  // wait with -EINTR after its handler ran, as in the kernel engine's loop.
  return ctx_.kernel->IoUringEnterWithMask(ctx_.fd, 0, count, IORING_ENTER_GETEVENTS, &caller_mask);
}

int HostEngine::Enter(const RingHandle& ring) {
  if (ring.fd < 0 || ctx_.fd != ring.fd) return -EBADF;
  const sigset_t held = HeldSignals();
  sigset_t caller_mask;
  pthread_sigmask(SIG_BLOCK, &held, &caller_mask);
  uint64_t args[2] = {reinterpret_cast<uintptr_t>(&ctx_),
                      reinterpret_cast<uintptr_t>(&cq_wait_idx_)};
  int result = 0;
  int busy = 0;
  while (true) {
    const int ret = program_.loop_step(args);
    if (ret == kLoopStop) break;
    if (ret != kLoopContinue) {
      result = -EINVAL;
      break;
    }
    const uint32_t tail = __atomic_load_n(cq_tail_, __ATOMIC_ACQUIRE);
    const int32_t missing = static_cast<int32_t>(cq_wait_idx_ - tail);
    if (missing > 0) {
      busy = 0;
      const int r = Wait(static_cast<uint32_t>(missing), caller_mask);
      if (r == -EINTR || (r < 0 && r != -ETIME && r != -EAGAIN)) {
        result = r;
        break;
      }
    } else if (++busy == kStepsBetweenSignalChecks) {
      busy = 0;
      if (SignalPending(caller_mask)) {
        result = -EINTR;
        break;
      }
    }
  }
  // Restoring the caller's mask delivers any signal held back since the last wait.
  pthread_sigmask(SIG_SETMASK, &caller_mask, nullptr);
  return result;
}

}  // namespace uringc

namespace {

// RegisterReadableMemory's table: [begin, end) pairs, 0 when free. Lookups take no lock (the
// host engine's copy_from_user is on every request's path); a slot is written end last and
// cleared begin first, so a reader never sees a range larger than the registered one.
struct ReadableRange {
  std::atomic<uintptr_t> begin{0};
  std::atomic<uintptr_t> end{0};
};
ReadableRange readable[256];
std::mutex readable_writers;

bool IsRegisteredReadable(const void* src, uint32_t size) {
  const uintptr_t from = reinterpret_cast<uintptr_t>(src);
  for (const ReadableRange& r : readable) {
    const uintptr_t begin = r.begin.load(std::memory_order_acquire);
    if (begin == 0 || from < begin) continue;
    const uintptr_t end = r.end.load(std::memory_order_acquire);
    if (from <= end && size <= end - from) return true;
  }
  return false;
}

// A pipe of this thread's, for CopyThroughPipe; closed when the thread ends.
struct CopyPipe {
  int fd[2] = {-1, -1};
  CopyPipe() {
    if (pipe2(fd, O_CLOEXEC | O_NONBLOCK) != 0) fd[0] = fd[1] = -1;
  }
  ~CopyPipe() {
    for (int f : fd)
      if (f >= 0) close(f);
  }
};

// Copies `size` bytes at `src` into `dst` by writing them into a pipe (the kernel reads them with
// copy_from_user, which a PFNMAP mapping allows and an unmapped address fails with EFAULT) and
// reading them back; a page at a time, so the pipe never fills. False when any byte failed.
bool CopyThroughPipe(void* dst, uint32_t size, const void* src) {
  thread_local CopyPipe p;
  if (p.fd[0] < 0) return false;
  auto* out = static_cast<char*>(dst);
  const char* in = static_cast<const char*>(src);
  for (uint32_t done = 0; done < size;) {
    const size_t chunk = std::min<size_t>(size - done, 4096);
    if (write(p.fd[1], in + done, chunk) != static_cast<ssize_t>(chunk)) {
      char drain[4096];
      while (read(p.fd[0], drain, sizeof drain) > 0) {
      }
      return false;
    }
    if (read(p.fd[0], out + done, chunk) != static_cast<ssize_t>(chunk)) return false;
    done += static_cast<uint32_t>(chunk);
  }
  return true;
}

}  // namespace

namespace uringc {

bool RegisterReadableMemory(const void* addr, size_t size) {
  std::lock_guard<std::mutex> lock(readable_writers);
  for (ReadableRange& r : readable) {
    if (r.begin.load() != 0) continue;
    r.end.store(0);
    r.begin.store(reinterpret_cast<uintptr_t>(addr));
    r.end.store(reinterpret_cast<uintptr_t>(addr) + size, std::memory_order_release);
    return true;
  }
  return false;
}

void UnregisterReadableMemory(const void* addr) {
  std::lock_guard<std::mutex> lock(readable_writers);
  for (ReadableRange& r : readable) {
    if (r.begin.load() != reinterpret_cast<uintptr_t>(addr)) continue;
    r.begin.store(0, std::memory_order_release);
    r.end.store(0);
  }
}

}  // namespace uringc

extern "C" {

uint8_t* uringc_host_get_region(uringc_host_ctx* abi, uint32_t region_id, uint64_t size) {
  uringc::HostCtx* ctx = uringc::Ctx(abi);
  if (region_id > 2 || ctx->region[region_id] == nullptr || size > ctx->region_size[region_id])
    return nullptr;
  return ctx->region[region_id];
}

int uringc_host_submit_sqes(uringc_host_ctx* abi, uint32_t nr) {
  uringc::HostCtx* ctx = uringc::Ctx(abi);
  return ctx->kernel->IoUringEnter(ctx->fd, nr, 0, 0);
}

// bpf_copy_from_user_str's contract: at most dst_size - 1 bytes and a NUL; the length + 1, or
// dst_size when no NUL came first (the copy truncated); -EFAULT (dst zeroed) for memory that
// cannot be read. The source is read with process_vm_readv, a page at a time (it does not split
// an iovec), so a bad address is an error, as in the kernel, and not a fault.
int uringc_host_copy_from_user_str(void* dst, uint32_t dst_size, const void* src, uint64_t flags) {
  (void)flags;
  if (dst_size == 0) return -EINVAL;
  auto* out = static_cast<char*>(dst);
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t from = reinterpret_cast<uintptr_t>(src);
  size_t done = 0;
  while (done < dst_size) {
    const size_t chunk = std::min<size_t>(dst_size - done, page - (from % page));
    iovec local{out + done, chunk};
    iovec remote{reinterpret_cast<void*>(from), chunk};
    if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != static_cast<ssize_t>(chunk)) {
      memset(out, 0, dst_size);
      return -EFAULT;
    }
    if (const void* nul = memchr(out + done, '\0', chunk))
      return static_cast<int>(static_cast<const char*>(nul) - out) + 1;
    done += chunk;
    from += chunk;
  }
  out[dst_size - 1] = '\0';
  return static_cast<int>(dst_size);
}

uint64_t uringc_host_ktime_get_ns(void) {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

// bpf_copy_from_user's contract: all `size` bytes and 0, or -EFAULT with dst zeroed. Read with
// process_vm_readv as above; memory that refuses it (a driver's VM_IO|VM_PFNMAP mapping, such as
// ublk's descriptor array: process_vm_readv pins pages, and those have none to pin) goes through
// CopyThroughPipe, which reads with the kernel's copy_from_user as the BPF helper does. Memory
// the runtime registered as readable (RegisterReadableMemory) is read directly.
long uringc_host_copy_from_user(void* dst, uint32_t size, const void* src) {
  if (size == 0) return 0;
  if (IsRegisteredReadable(src, size)) {
    memcpy(dst, src, size);
    return 0;
  }
  iovec local{dst, size};
  iovec remote{const_cast<void*>(src), size};
  if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(size) ||
      CopyThroughPipe(dst, size, src)) {
    return 0;
  }
  memset(dst, 0, size);
  return -EFAULT;
}

}  // extern "C"
