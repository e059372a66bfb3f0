// The benchmark's own rings (bench_ring.h): setup with the compared flags, the runtime's mapping,
// submission and the priming NOP.
#include "bench_ring.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "uringc/kernel.h"
#include "uringc/liburing_compat.h"

namespace uringc_bench {

std::unique_ptr<BenchRing> BenchRing::Create(RingMode mode, uint32_t sq_entries,
                                             uint32_t cq_entries, std::string* error) {
  if (mode == RingMode::kAuto) {
    *error = "a benchmark ring is `rewind` or `tail`";
    return nullptr;
  }
  std::unique_ptr<BenchRing> r(new BenchRing());
  r->mode_ = mode;
  io_uring_params& p = r->params_;
  p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_CQSIZE;
  p.flags |= mode == RingMode::kRewind ? IORING_SETUP_NO_SQARRAY | IORING_SETUP_SQ_REWIND
                                       : IORING_SETUP_SUBMIT_ALL;
  p.cq_entries = cq_entries;
  const long fd = syscall(__NR_io_uring_setup, sq_entries, &p);
  if (fd < 0) {
    *error =
        std::string("io_uring_setup (") + uringc::RingModeName(mode) + " ring): " + strerror(errno);
    return nullptr;
  }
  r->fd_ = static_cast<int>(fd);
  auto map = uringc::RingMap::Map(r->fd_, p);
  if (!map) {
    *error = map.error().message;
    return nullptr;
  }
  r->map_ = std::move(*map);
  // The priming submission, from the owning thread, before any controller runs.
  r->Sqe(0)->opcode = IORING_OP_NOP;
  const int ret = r->Submit(1, 1);
  if (ret != 1 || r->CqReady() != 1) {
    *error = std::string("the priming NOP failed: ") + strerror(ret < 0 ? -ret : EIO);
    return nullptr;
  }
  r->CqAdvance(1);
  return r;
}

BenchRing::~BenchRing() {
  map_.reset();
  if (fd_ >= 0) close(fd_);
}

int BenchRing::Submit(uint32_t n, uint32_t wait_nr) {
  map_->Publish(n);
  return uringc::SystemKernel().IoUringEnter(fd_, n, wait_nr, wait_nr ? IORING_ENTER_GETEVENTS : 0);
}

}  // namespace uringc_bench
