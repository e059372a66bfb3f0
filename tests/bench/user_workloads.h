// The user-space side of the benchmark: the loops an application writes with io_uring and no
// controller, on the same rings (bench_ring.h) the C baselines use.
#pragma once

#include <cstdint>

#include "bench_ring.h"
#include "measurement.h"

namespace uringc_bench {

/// n NOPs, K in flight: refill to K, submit and wait for one completion, reap every CQE.
Measurement UserNops(BenchRing& ring, uint32_t k, uint64_t n);

/// Copies src to dst with `depth` requests in flight and blocks of `block` bytes: each block is
/// read, then exactly what was read is written at the same offset (short writes and reads are
/// resumed). depth 1 is the one-at-a-time submit-and-wait copy, one read or write per enter.
Measurement UserCopy(BenchRing& ring, int src, int dst, uint32_t depth, uint32_t block);

}  // namespace uringc_bench
