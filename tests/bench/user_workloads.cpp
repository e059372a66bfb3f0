// User-space NOP and copy loops (user_workloads.h). Written for this benchmark after the shape of
// liburing's examples/io_uring-cp.c (learnt from, not copied): per slot, read a block, write what
// was read, then take the next block.
#include "user_workloads.h"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "bench_files.h"

namespace uringc_bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kNopToken = 0x6e6f7073;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// One block of the depth copy: [off, end) still to copy, `len` bytes in the buffer.
struct Slot {
  uint64_t off = 0;
  uint64_t end = 0;
  uint32_t len = 0;
  uint32_t written = 0;
  bool writing = false;
  char* buf = nullptr;
};

}  // namespace

Measurement UserNops(BenchRing& ring, uint32_t k, uint64_t n) {
  Measurement m;
  m.enters = 0;
  uint64_t left = n, inflight = 0;
  const auto start = Clock::now();
  while (left > 0) {
    const uint32_t to_submit =
        static_cast<uint32_t>(std::min<uint64_t>(k - inflight, left - inflight));
    for (uint32_t i = 0; i < to_submit; i++) {
      io_uring_sqe* sqe = ring.Sqe(i);
      sqe->opcode = IORING_OP_NOP;
      sqe->user_data = kNopToken;
    }
    const int ret = ring.Submit(to_submit, 1);
    m.enters++;
    if (ret != static_cast<int>(to_submit)) {
      m.error =
          "io_uring_enter submitted " + std::to_string(ret) + " of " + std::to_string(to_submit);
      break;
    }
    inflight += to_submit;
    const uint32_t ready = ring.CqReady();
    for (uint32_t i = 0; i < ready && m.error.empty(); i++) {
      if (ring.Cqe(i).user_data != kNopToken || ring.Cqe(i).res != 0) m.error = "a NOP failed";
    }
    ring.CqAdvance(ready);
    inflight -= ready;
    left -= ready;
    m.ops += ready;
    if (!m.error.empty()) break;
  }
  m.seconds = SecondsSince(start);
  return m;
}

Measurement UserCopy(BenchRing& ring, int src, int dst, uint32_t depth, uint32_t block) {
  Measurement m;
  m.copy = true;
  m.enters = 0;
  const int64_t size = FileSize(src);
  if (size < 0 || depth == 0 || depth > ring.sq_entries()) {
    m.error = "bad copy set-up: the SQ needs at least `depth` entries";
    return m;
  }
  const size_t bytes = static_cast<size_t>(depth) * block;
  void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    m.error = "out of memory";
    return m;
  }
  std::vector<Slot> slots(depth);
  uint64_t next = 0;
  uint32_t queued = 0, inflight = 0;
  auto queue = [&](uint32_t s) {
    Slot& slot = slots[s];
    io_uring_sqe* sqe = ring.Sqe(queued++);
    sqe->opcode = slot.writing ? IORING_OP_WRITE : IORING_OP_READ;
    sqe->fd = slot.writing ? dst : src;
    sqe->addr = reinterpret_cast<uintptr_t>(slot.buf + (slot.writing ? slot.written : 0));
    sqe->len = slot.writing ? slot.len - slot.written
                            : static_cast<uint32_t>(std::min<uint64_t>(block, slot.end - slot.off));
    sqe->off = slot.off + (slot.writing ? slot.written : 0);
    sqe->user_data = s;
  };
  // Gives slot s the next block, if any is left.
  auto start_block = [&](uint32_t s) {
    if (next >= static_cast<uint64_t>(size)) return;
    slots[s] = Slot{next,  std::min<uint64_t>(next + block, size),
                    0,     0,
                    false, static_cast<char*>(mem) + static_cast<size_t>(s) * block};
    next = slots[s].end;
    queue(s);
  };
  const auto start = Clock::now();
  for (uint32_t s = 0; s < depth; s++) start_block(s);
  while (queued + inflight > 0 && m.error.empty()) {
    const int ret = ring.Submit(queued, 1);
    m.enters++;
    if (ret != static_cast<int>(queued)) {
      m.error = "io_uring_enter submitted " + std::to_string(ret) + " of " + std::to_string(queued);
      break;
    }
    inflight += queued;
    queued = 0;
    const uint32_t ready = ring.CqReady();
    for (uint32_t i = 0; i < ready && m.error.empty(); i++) {
      const io_uring_cqe& cqe = ring.Cqe(i);
      Slot& slot = slots[cqe.user_data];
      if (cqe.res <= 0) {
        m.error = cqe.res < 0
                      ? std::string(slot.writing ? "write: " : "read: ") + strerror(-cqe.res)
                      : "the input ended early";
      } else if (!slot.writing) {  // write exactly what was read
        slot.len = static_cast<uint32_t>(cqe.res);
        slot.written = 0;
        slot.writing = true;
        queue(static_cast<uint32_t>(cqe.user_data));
      } else if ((slot.written += static_cast<uint32_t>(cqe.res)) < slot.len) {
        queue(static_cast<uint32_t>(cqe.user_data));  // a short write: the rest
      } else {
        m.ops += slot.len;
        slot.off += slot.len;
        slot.writing = false;
        if (slot.off < slot.end) {
          queue(static_cast<uint32_t>(cqe.user_data));  // a short read: the rest of the block
        } else {
          start_block(static_cast<uint32_t>(cqe.user_data));
        }
      }
    }
    ring.CqAdvance(ready);
    inflight -= ready;
  }
  m.seconds = SecondsSince(start);
  munmap(mem, bytes);
  return m;
}

}  // namespace uringc_bench
