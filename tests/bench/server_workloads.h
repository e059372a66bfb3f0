// The server benchmark's runs: a server started as its own process (a compiled graph under
// `uringc-run`, or one of the hand-written liburing servers), driven by the load generator
// (loadgen.h), then stopped with SIGINT; it must have kept running and must exit cleanly.
#pragma once

#include <string>
#include <vector>

#include "loadgen.h"

namespace uringc_bench {

struct ServerRun {
  std::vector<std::string> server;    ///< the server's command line
  std::vector<std::string> upstream;  ///< proxy runs: the upstream's command line
  uint16_t upstream_port = 0;
  bool bpf_stats = false;  ///< also the controllers' time in loop_step (BPF run-time statistics)
  LoadSpec load;
};

/// Runs `run` and prints its BENCH line: {"workload", "ok", "conns", "requests", "seconds",
/// "req_s", "p50_us", "p99_us", and per request inside the window "server_cpu_us",
/// "upstream_cpu_us", "loadgen_cpu_us", "server_switches", "bpf_us" (with bpf_stats), and
/// "idle" (the share of the window the vCPU was idle)[, "error"]}. Returns false when anything
/// went wrong.
bool RunServer(const std::string& workload, const ServerRun& run);

}  // namespace uringc_bench
