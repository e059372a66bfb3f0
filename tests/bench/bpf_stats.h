// The kernel's BPF run-time statistics, summed over every struct_ops program loaded: how much
// time the controllers' loop_step calls took. The guest runs one controller at a time, so the
// difference over a run is that controller's own. Counting happens only while a descriptor from
// bpf_enable_stats(BPF_STATS_RUN_TIME) is open (each call then costs two clock reads).
#pragma once

#include <cstdint>

namespace uringc_bench {

struct ProgramTime {
  int64_t ns = 0;
  int64_t runs = 0;
};

ProgramTime StructOpsTime();

}  // namespace uringc_bench
