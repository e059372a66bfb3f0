// RunLoop: enter, read the controller's status, repeat; EINTR resumes or returns, as asked.
#include "uringc/run_loop.h"

#include <chrono>
#include <cstring>
#include <string>

namespace uringc {

const char* RunStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::kDone: return "done";
    case RunStatus::kFailed: return "failed";
    case RunStatus::kInterrupted: return "interrupted";
  }
  return "?";
}

std::string ExplainEnterError(int err) {
  const int e = err < 0 ? -err : err;
  std::string what = "io_uring_enter on the controller's ring failed (" +
                     std::string(strerror(e)) + ")";
  switch (e) {
    case EEXIST:
      return what + ": the ring was entered from a thread other than the one that created it; "
                    "SINGLE_ISSUER rings run their controller only for the creating thread, so "
                    "call run() from that thread";
    case EBADF:
      return what + ": the ring is closed; create a new ring and load the controller again";
    case EINVAL:
      return what + ": the controller's loop_step returned a value other than IOU_LOOP_CONTINUE "
                    "(0) or IOU_LOOP_STOP (1)";
    case EOWNERDEAD:
    case ENXIO:
      return what + ": the ring is being torn down";
    default:
      return what;
  }
}

Result<RunOutcome> RunLoop(LoopTarget& target, const RunOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  RunOutcome out;
  auto finish = [&](RunStatus status, const ControllerState& state) {
    out.status = status;
    out.controller_error = state.error;
    out.stats.steps_known = state.has_steps;
    out.stats.steps = state.steps;
    out.stats.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  };
  while (true) {
    if (options.max_enters && out.stats.enters >= options.max_enters) {
      return MakeError(DiagKind::kEnterLimit, ETIME,
                       "the controller did not finish within " +
                           std::to_string(options.max_enters) +
                           " enters (it stops without setting `uringc_status`?)");
    }
    const int ret = target.Enter();
    out.stats.enters++;
    if (ret < 0 && ret != -EINTR)
      return MakeError(DiagKind::kRunFailed, ret, ExplainEnterError(ret));
    if (ret == -EINTR) out.stats.interrupts++;
    auto state = target.ReadState();
    if (!state) return state.error();
    if (state->has_status && state->status != kStatusRunning) {
      return finish(state->status == kStatusDone ? RunStatus::kDone : RunStatus::kFailed, *state);
    }
    if (ret == -EINTR) {
      if (options.return_on_interrupt) return finish(RunStatus::kInterrupted, *state);
      continue;
    }
    // loop_step returned IOU_LOOP_STOP. Without the convention that means finished; with it, the
    // controller paused (status still running) and the next enter resumes it.
    if (!state->has_status) return finish(RunStatus::kDone, *state);
  }
}

}  // namespace uringc
