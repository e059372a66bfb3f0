// The exit statuses of uringc's commands (`uringc`, `uringc run`, `uringc-run`), in one place:
// the compiler's driver and the runtime's run command share them, and the docs name them.
#pragma once

namespace uringc {

enum ExitStatus : int {
  kExitOk = 0,
  kExitErrors = 1,         ///< the input has errors, or the run failed
  kExitUsage = 2,          ///< a usage or I/O error
  kExitInterrupted = 130,  ///< ended by SIGINT, SIGTERM or SIGHUP (128 + SIGINT, as shells do)
};

}  // namespace uringc
