// What a process (all its threads) has used of the CPU so far, and how often it was switched
// out, read from /proc; and the guest's idle time. The server benchmark takes them at both ends
// of its measured window to say what each request cost the server, its upstream and the load
// generator, and whether the vCPU had time to spare.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace uringc_bench {

struct ProcessUsage {
  int64_t cpu_ns = 0;    ///< on the CPU, user and kernel (its io_uring_enter's loop_step too)
  int64_t switches = 0;  ///< context switches, voluntary (it slept) and not
};

/// The sums over /proc/PID/task/*; zeros when the process is gone.
ProcessUsage UsageOf(pid_t pid);

/// The time every CPU has spent idle since boot (/proc/uptime), in ns.
int64_t IdleNs();

}  // namespace uringc_bench
