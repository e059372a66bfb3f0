// Handing `--arg NAME=VALUE`s (run_args.h) to a controller: values set by name, files opened and
// sockets made for fd parameters, buffers mapped for buffers parameters, socket addresses written
// into buffers. Shared by `uringc run` and `uringc ublk add` (one controller per queue, each with
// its own Resources).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "arg_files.h"
#include "arg_sockets.h"
#include "run_args.h"
#include "uringc/controller.h"

namespace uringc {

/// Files and buffers handed to the controller; closed and freed when the command ends.
struct Resources {
  ArgFiles files;
  ArgSockets sockets;
  std::vector<std::pair<void*, size_t>> buffers;
  /// Socket addresses for shared buffers parameters, written into the region after Load.
  std::vector<std::pair<std::string, std::string>> shared_bytes;
  Resources() = default;
  Resources(const Resources&) = delete;
  Resources& operator=(const Resources&) = delete;
  ~Resources();
};

/// Sets one --arg on `ctl`, keeping what it opens or maps in `res`.
Result<void> ApplyArg(Controller& ctl, const RunArg& a, Resources& res);

/// Gives every buffers parameter no --arg set its declared size (zeroed), but those in `skip`.
Result<void> GiveDeclaredBuffers(Controller& ctl, Resources& res,
                                 const std::vector<std::string>& skip = {});

/// Writes the socket addresses meant for shared buffers (after Load, when the region exists).
Result<void> WriteSharedBytes(Controller& ctl, const Resources& res);

/// Prints the controller's outputs (`  NAME = VALUE`, one a line) on stdout.
void PrintOutputs(Controller& ctl);

}  // namespace uringc
