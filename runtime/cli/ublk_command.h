// `uringc ublk add` and `uringc ublk del`: a ublk block device whose queues a compiled target
// serves (uringc/ublk_server.h), from the command line. `add` prints the block device's path on
// stdout as soon as it exists, serves until SIGINT, SIGTERM or SIGHUP, then stops and deletes the
// device and prints each queue's outputs; `del` removes a device a killed server left behind.
// The driver compiles the target (compiler/driver/ublk_compiled.cpp) and calls these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "run_args.h"
#include "uringc/verifier_report.h"

namespace uringc {

struct UblkAddArgs {
  /// The compiled target: its BPF object and, when compiled for the host too, its host code.
  std::string object;
  const uringc_program* host_program = nullptr;
  /// --arg NAME=VALUE: the target's own parameters (each queue's controller gets its own files).
  std::vector<RunArg> args;
  EngineChoice engine = EngineChoice::kAuto;
  RingMode ring_mode = RingMode::kAuto;
  uint64_t size_bytes = 0;
  uint16_t queues = 1;
  uint16_t depth = 64;
  std::string verifier_log;
  uint64_t log_size = 1 << 20;
};

/// Serves the device; the exit status (diag/exit_status.h): 0 after a clean stop, 1 on a failure
/// (the device is then gone too), 2 for a usage error.
int UblkAddCommand(const UblkAddArgs& args, const std::string& program, const SourceTexts& texts);

/// STOP_DEV (when it is live) and DEL_DEV of device `dev_id`.
int UblkDelCommand(int dev_id, const std::string& program);

}  // namespace uringc
