// SIGINT, SIGTERM and SIGHUP before a run starts. `uringc run` makes files of its own (the
// compiled object, the --vm manifest, files a `PATH:create` argument created); a signal that
// ends the command before the controller runs must remove them and end it with the documented
// status 130. While the VM runner runs, a signal is forwarded to it instead, so that it stops its
// guest and removes its own files; the command then ends when the runner has.
// Once the controller is attached, the run command installs its own handler (a clean stop).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <string>

namespace uringc {

/// From now on SIGINT, SIGTERM and SIGHUP remove the registered paths and _exit(130).
void ExitOnSignal();

/// Saves the dispositions of SIGINT, SIGTERM and SIGHUP and restores them when it ends, so that
/// a command run in-process (tests, the `uringc` driver) leaves the caller's handlers as it found
/// them.
class SignalScope {
 public:
  SignalScope();
  ~SignalScope();
  SignalScope(const SignalScope&) = delete;
  SignalScope& operator=(const SignalScope&) = delete;

 private:
  struct sigaction saved_[3];
};

/// Registers a file or empty directory that a signal removes (the newest first). False when the
/// table is full; the path is then left behind by a signal (but not by a normal end).
bool RemoveOnSignal(const std::string& path);

/// Forgets a registered path (removed already, or to be kept).
void KeepOnSignal(const std::string& path);

/// Forwards SIGINT, SIGTERM and SIGHUP to pid instead (0: back to ExitOnSignal). Returns the
/// last signal forwarded since the previous call, or 0.
int ForwardSignalsTo(pid_t pid);

/// Blocks SIGINT, SIGTERM and SIGHUP for its lifetime: create and register a path under it, so
/// that a signal cannot fall between the two; fork under it, so that the child starts with
/// default handlers (RestoreDefaultSignals) before any signal reaches it.
class SignalBlock {
 public:
  SignalBlock();
  ~SignalBlock();
  SignalBlock(const SignalBlock&) = delete;
  SignalBlock& operator=(const SignalBlock&) = delete;

 private:
  sigset_t saved_;
};

/// In a forked child: default dispositions and an empty mask, as a fresh program expects.
void RestoreDefaultSignals();

}  // namespace uringc
