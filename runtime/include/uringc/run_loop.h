// Running a loaded controller: io_uring_enter(GETEVENTS) until the controller says it is finished.
//
// The finish convention (docs/embedding.md): a controller declares in `.bss`
//   __u32 uringc_status;  // 0 running, 1 done, 2 failed   (URINGC_STATUS_*)
//   __s32 uringc_error;   // why it failed (negative errno or the controller's own code)
//   __u64 uringc_steps;   // optional: loop_step calls, reported in the statistics
// The loop enters the ring until uringc_status is non-zero. An object without `uringc_status` is
// finished the first time an enter returns normally (its loop_step returned IOU_LOOP_STOP).
// A signal makes the enter return -EINTR; the kernel keeps the controller's state and the CQ, so the
// loop either enters again or returns kInterrupted, as the caller chose.
#pragma once

#include <cstdint>

#include "uringc/result.h"

namespace uringc {

enum : uint32_t { kStatusRunning = 0, kStatusDone = 1, kStatusFailed = 2 };

enum class RunStatus { kDone, kFailed, kInterrupted };

struct RunOptions {
  /// On a signal: false enters again (nothing is lost), true returns kInterrupted.
  bool return_on_interrupt = false;
  /// Most enters before giving up with -ETIME; 0 for no limit.
  uint64_t max_enters = 0;
};

struct RunStats {
  uint64_t enters = 0;
  uint64_t interrupts = 0;
  /// loop_step calls, when the controller declares `uringc_steps`.
  bool steps_known = false;
  uint64_t steps = 0;
  double wall_seconds = 0;
};

struct RunOutcome {
  RunStatus status = RunStatus::kDone;
  /// The controller's uringc_error (0 when it declares none).
  int32_t controller_error = 0;
  RunStats stats;
};

/// What the loop reads after each enter.
struct ControllerState {
  bool has_status = false;
  uint32_t status = kStatusRunning;
  int32_t error = 0;
  bool has_steps = false;
  uint64_t steps = 0;
};

/// The two things the loop needs from a loaded controller; a fake stands in for unit tests.
class LoopTarget {
 public:
  virtual ~LoopTarget() = default;
  /// One io_uring_enter(GETEVENTS): >= 0 or -errno.
  virtual int Enter() = 0;
  virtual Result<ControllerState> ReadState() = 0;
};

Result<RunOutcome> RunLoop(LoopTarget& target, const RunOptions& options);

/// What a failed io_uring_enter on a controller's ring means, and what to do.
std::string ExplainEnterError(int err);

const char* RunStatusName(RunStatus status);

}  // namespace uringc
