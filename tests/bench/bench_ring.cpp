// The benchmark's hand-mapped ring (bench_ring.h): setup, one mapping of the rings (the kernel
// reports IORING_FEAT_SINGLE_MMAP since 5.4), the SQE array, submission and the CQ.
#include "bench_ring.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "uringc/liburing_compat.h"

namespace uringc_bench {

bool ParseRingMode(const std::string& text, RingMode* mode) {
  if (text == "rewind") {
    *mode = RingMode::kRewind;
  } else if (text == "tail") {
    *mode = RingMode::kTail;
  } else {
    return false;
  }
  return true;
}

const char* RingModeName(RingMode mode) { return mode == RingMode::kRewind ? "rewind" : "tail"; }

namespace {

int Enter(int fd, uint32_t to_submit, uint32_t wait_nr) {
  const long ret = syscall(__NR_io_uring_enter, fd, to_submit, wait_nr,
                           wait_nr ? IORING_ENTER_GETEVENTS : 0, nullptr, 0);
  return ret < 0 ? -errno : static_cast<int>(ret);
}

}  // namespace

std::unique_ptr<BenchRing> BenchRing::Create(RingMode mode, uint32_t sq_entries,
                                             uint32_t cq_entries, std::string* error) {
  std::unique_ptr<BenchRing> r(new BenchRing());
  r->mode_ = mode;
  io_uring_params& p = r->params_;
  p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_CQSIZE;
  p.flags |= mode == RingMode::kRewind ? IORING_SETUP_NO_SQARRAY | IORING_SETUP_SQ_REWIND
                                       : IORING_SETUP_SUBMIT_ALL;
  p.cq_entries = cq_entries;
  const long fd = syscall(__NR_io_uring_setup, sq_entries, &p);
  if (fd < 0) {
    *error = std::string("io_uring_setup (") + RingModeName(mode) + " ring): " + strerror(errno);
    return nullptr;
  }
  r->fd_ = static_cast<int>(fd);
  if (!(p.features & IORING_FEAT_SINGLE_MMAP)) {
    *error = "the kernel does not map SQ and CQ rings together (IORING_FEAT_SINGLE_MMAP)";
    return nullptr;
  }
  const size_t sq_array_end =
      mode == RingMode::kRewind ? 0 : p.sq_off.array + p.sq_entries * sizeof(uint32_t);
  r->rings_size_ =
      std::max<size_t>(sq_array_end, p.cq_off.cqes + p.cq_entries * sizeof(io_uring_cqe));
  r->rings_ = mmap(nullptr, r->rings_size_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                   r->fd_, IORING_OFF_SQ_RING);
  r->sqes_size_ = p.sq_entries * sizeof(io_uring_sqe);
  void* sqes = mmap(nullptr, r->sqes_size_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                    r->fd_, IORING_OFF_SQES);
  if (r->rings_ == MAP_FAILED || sqes == MAP_FAILED) {
    *error = std::string("cannot map the ring: ") + strerror(errno);
    if (r->rings_ == MAP_FAILED) r->rings_ = nullptr;
    if (sqes != MAP_FAILED) munmap(sqes, r->sqes_size_);
    return nullptr;
  }
  r->sqes_ = static_cast<io_uring_sqe*>(sqes);
  auto* base = static_cast<char*>(r->rings_);
  r->sq_tail_ = reinterpret_cast<uint32_t*>(base + p.sq_off.tail);
  r->cq_head_ = reinterpret_cast<uint32_t*>(base + p.cq_off.head);
  r->cq_tail_ = reinterpret_cast<uint32_t*>(base + p.cq_off.tail);
  r->cqes_ = reinterpret_cast<io_uring_cqe*>(base + p.cq_off.cqes);
  if (mode == RingMode::kTail) {  // SQ slot i holds SQE i, as uringc::Ring sets it up
    auto* array = reinterpret_cast<uint32_t*>(base + p.sq_off.array);
    for (uint32_t i = 0; i < p.sq_entries; i++) array[i] = i;
  }
  // The priming submission, from the owning thread, before any controller runs.
  io_uring_sqe* sqe = r->Sqe(0);
  sqe->opcode = IORING_OP_NOP;
  const int ret = r->Submit(1, 1);
  if (ret != 1 || r->CqReady() != 1) {
    *error = std::string("the priming NOP failed: ") + strerror(ret < 0 ? -ret : EIO);
    return nullptr;
  }
  r->CqAdvance(1);
  return r;
}

BenchRing::~BenchRing() {
  if (sqes_) munmap(sqes_, sqes_size_);
  if (rings_) munmap(rings_, rings_size_);
  if (fd_ >= 0) close(fd_);
}

io_uring_sqe* BenchRing::Sqe(uint32_t i) {
  const uint32_t slot = mode_ == RingMode::kRewind ? i : (*sq_tail_ + i) & (params_.sq_entries - 1);
  io_uring_sqe* sqe = &sqes_[slot];
  memset(sqe, 0, sizeof(*sqe));
  return sqe;
}

int BenchRing::Submit(uint32_t n, uint32_t wait_nr) {
  if (mode_ == RingMode::kTail) {
    std::atomic_ref<uint32_t>(*sq_tail_).store(*sq_tail_ + n, std::memory_order_release);
  }
  return Enter(fd_, n, wait_nr);
}

uint32_t BenchRing::CqReady() const {
  return std::atomic_ref<uint32_t>(*cq_tail_).load(std::memory_order_acquire) - *cq_head_;
}

const io_uring_cqe& BenchRing::Cqe(uint32_t i) const {
  return cqes_[(*cq_head_ + i) & (params_.cq_entries - 1)];
}

void BenchRing::CqAdvance(uint32_t n) {
  std::atomic_ref<uint32_t>(*cq_head_).store(*cq_head_ + n, std::memory_order_release);
}

}  // namespace uringc_bench
