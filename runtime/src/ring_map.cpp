// Mapping an io_uring ring by hand; see ring_map.h.
#include "uringc/ring_map.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include "uringc/liburing_compat.h"

namespace uringc {
namespace {

Result<void*> MapShared(int fd, size_t size, off_t offset, const char* what) {
  void* addr = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, offset);
  if (addr != MAP_FAILED) return addr;
  const int err = errno;
  return MakeError(DiagKind::kRingSetupFailed, -err,
                   std::string("cannot map the io_uring ") + what + " (" + strerror(err) +
                       "): out of address space or locked memory?");
}

}  // namespace

Result<std::unique_ptr<RingMap>> RingMap::Map(int fd, const io_uring_params& p) {
  if (!(p.features & IORING_FEAT_SINGLE_MMAP)) {
    return MakeError(DiagKind::kRingSetupFailed, EOPNOTSUPP,
                     "the kernel does not map the SQ and CQ rings together "
                     "(IORING_FEAT_SINGLE_MMAP, Linux 5.4+)");
  }
  std::unique_ptr<RingMap> m(new RingMap());
  m->rewind_ = p.flags & IORING_SETUP_SQ_REWIND;
  m->sq_mask_ = p.sq_entries - 1;
  m->cq_mask_ = p.cq_entries - 1;
  m->sqe_size_ = (p.flags & IORING_SETUP_SQE128) ? 128 : 64;
  m->cqe_size_ = (p.flags & IORING_SETUP_CQE32) ? 32 : 16;
  const bool has_array = !(p.flags & IORING_SETUP_NO_SQARRAY);
  const size_t array_end = has_array ? p.sq_off.array + p.sq_entries * sizeof(uint32_t) : 0;
  m->rings_size_ = std::max<size_t>(array_end, p.cq_off.cqes + p.cq_entries * m->cqe_size_);
  auto rings = MapShared(fd, m->rings_size_, IORING_OFF_SQ_RING, "rings");
  if (!rings) return rings.error();
  m->rings_ = *rings;
  m->sqes_size_ = static_cast<size_t>(p.sq_entries) * m->sqe_size_;
  auto sqes = MapShared(fd, m->sqes_size_, IORING_OFF_SQES, "SQE array");
  if (!sqes) return sqes.error();
  m->sqes_ = static_cast<char*>(*sqes);
  auto* base = static_cast<char*>(m->rings_);
  m->sq_tail_ = reinterpret_cast<uint32_t*>(base + p.sq_off.tail);
  m->cq_head_ = reinterpret_cast<uint32_t*>(base + p.cq_off.head);
  m->cq_tail_ = reinterpret_cast<uint32_t*>(base + p.cq_off.tail);
  m->cqes_ = base + p.cq_off.cqes;
  if (has_array) {
    auto* array = reinterpret_cast<uint32_t*>(base + p.sq_off.array);
    for (uint32_t i = 0; i < p.sq_entries; i++) array[i] = i;
  }
  return m;
}

RingMap::~RingMap() {
  if (sqes_) munmap(sqes_, sqes_size_);
  if (rings_) munmap(rings_, rings_size_);
}

io_uring_sqe* RingMap::Sqe(uint32_t i) {
  const uint32_t slot = rewind_ ? i : (*sq_tail_ + i) & sq_mask_;
  char* sqe = sqes_ + static_cast<size_t>(slot) * sqe_size_;
  memset(sqe, 0, sqe_size_);
  return reinterpret_cast<io_uring_sqe*>(sqe);
}

void RingMap::Publish(uint32_t n) {
  if (rewind_) return;
  std::atomic_ref<uint32_t>(*sq_tail_).store(*sq_tail_ + n, std::memory_order_release);
}

uint32_t RingMap::CqReady() const {
  return std::atomic_ref<uint32_t>(*cq_tail_).load(std::memory_order_acquire) - *cq_head_;
}

const io_uring_cqe& RingMap::Cqe(uint32_t i) const {
  const uint32_t slot = (*cq_head_ + i) & cq_mask_;
  return *reinterpret_cast<const io_uring_cqe*>(cqes_ + static_cast<size_t>(slot) * cqe_size_);
}

void RingMap::CqAdvance(uint32_t n) {
  std::atomic_ref<uint32_t>(*cq_head_).store(*cq_head_ + n, std::memory_order_release);
}

}  // namespace uringc
