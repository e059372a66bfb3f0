// The BPF side of the benchmark: a controller object (a compiled `.uring` graph or a lean C
// baseline) opened, given its parameters, loaded, attached and run through the runtime's
// Controller, as `uringc run` does, on the ring the command line chose; or the same graph's host
// build on the host engine.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "measurement.h"
#include "uringc/program.h"

namespace uringc_bench {

/// Where a controller runs: a ring made by uringc::Ring::Create (`runtime`: its default,
/// RingMode::kAuto; `runtime-rewind`, `runtime-tail`: that RingMode), or one the benchmark sets up
/// itself (`rewind`, `tail`).
struct BpfRingChoice {
  std::string mode = "runtime";
  uint32_t sq_entries = 64;
  uint32_t cq_entries = 128;
};

/// What to check after the run: each named output global must hold the value.
using Expected = std::map<std::string, uint64_t>;

struct BpfRun {
  std::string object;
  /// When set: this program on the host engine instead of `object` in the kernel.
  const uringc_program* host = nullptr;
  BpfRingChoice ring;
  std::map<std::string, int64_t> ints;  ///< parameters (fds too) set with SetInt
  bool copy = false;                    ///< ops are bytes
  uint64_t ops = 0;                     ///< NOPs or bytes the run must complete
  Expected expected;
  /// Also measure the kernel's time in the controller (Measurement::bpf_ns): BPF run-time
  /// statistics are switched on for the run.
  bool bpf_stats = false;
};

/// Loads and runs `run`; the measurement's error says what went wrong.
Measurement RunBpf(const BpfRun& run);

}  // namespace uringc_bench
