// What one benchmark run measured, and the one machine-readable line the benchmark binary prints
// for it (scripts/bench.py parses it from the guest's console):
//   BENCH {"workload": "...", "ok": true, "ops": N, "seconds": S, "steps": N, "processed": N, ...}
// (with --bpf-stats also "bpf_ns", "bpf_runs" and "bpf_ns_per_step").
#pragma once

#include <cstdint>
#include <string>

namespace uringc_bench {

struct Measurement {
  uint64_t ops = 0;        ///< NOPs completed, or bytes copied
  bool copy = false;       ///< ops are bytes (MB/s), else NOPs (ns/op)
  double seconds = 0;      ///< wall time of the run, set-up and checks excluded
  int64_t steps = -1;      ///< loop_step calls; -1 where there are none (user space)
  int64_t processed = -1;  ///< verifier-processed instructions; -1 for user space
  int64_t enters = -1;     ///< io_uring_enter calls
  /// With --bpf-stats: nanoseconds the kernel spent running struct_ops programs during the run
  /// (the controller's loop_step calls: its own code and the kfuncs it calls), and those calls.
  int64_t bpf_ns = -1;
  int64_t bpf_runs = -1;
  std::string error;       ///< empty when the run did what it should (counts, bytes)
};

/// Prints the BENCH line for `workload` on stdout.
void PrintMeasurement(const std::string& workload, const Measurement& m);

}  // namespace uringc_bench
