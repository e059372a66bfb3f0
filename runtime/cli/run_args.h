// The command line of `uringc-run` and `uringc run`, declared with CLI11 (the one parser of every
// uringc command line) into RunArgs: data, so it can be unit-tested and rewritten for the VM
// (--vm copies the object and input files into the guest). `--opt=value` and `--opt value` both
// work; a value that is not allowed fails the parse with a message that names the option.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "uringc/diag/formatter.h"
#include "uringc/engine.h"
#include "uringc/program.h"
#include "uringc/result.h"
#include "uringc/ring.h"

namespace uringc {

/// One `--arg NAME=VALUE`. VALUE is a plain value (integer in the syntax of uringc/numbers.h,
/// bool, enumerator), `PATH:MODE` (an fd parameter: the runtime opens PATH with MODE r, w, rw or
/// create and passes the fd), a socket `KIND:ADDRESS` (an fd parameter: tcp-listen:HOST:PORT,
/// tcp-connect:HOST:PORT, unix-listen:PATH, unix-connect:PATH; arg_sockets.h) or
/// `buffer[:SIZE]` (a buffers parameter: the runtime allocates SIZE zeroed bytes, at least the
/// declared size, or the declared size without SIZE).
struct RunArg {
  enum class Kind { kValue, kFile, kSocket, kBuffer };
  std::string name;
  std::string value;  // kValue: the text; kFile: the path; kSocket: the address
  Kind kind = Kind::kValue;
  std::string mode;   // kFile: r, w, rw, create; kSocket: tcp-listen, unix-connect, ...
  uint64_t size = 0;  // kBuffer: bytes, 0 for the declared size
};

struct RunArgs {
  std::string object;
  std::vector<RunArg> args;
  std::string ops_map;
  uint32_t sq_entries = 64;
  uint32_t cq_entries = 0;
  uint64_t mem_region = 0;
  RingMode ring_mode = RingMode::kAuto;  // --ring
  EngineChoice engine = EngineChoice::kAuto;  // --engine
  /// The host engine's code for `object`, when the caller compiled the .uring file for the host
  /// too (`uringc run`, driver/host_jit.h); nullptr for an object file alone.
  const uringc_program* host_program = nullptr;
  std::string verifier_log;
  uint64_t log_size = 1 << 20;
  uint64_t max_enters = 0;
  bool vm = false;
  std::vector<std::string> suites;  // --suite, for --vm
  DiagnosticsFormat diagnostics_format = DiagnosticsFormat::kText;
  bool help = false;
};

/// Declares --arg NAME=VALUE (repeatable; ParseRunArg's syntax) into `args`.
void AddArgOption(CLI::App& app, std::vector<RunArg>& args, const std::string& description);

/// Declares the run command's options on `app`, storing into `out`: all but the object, which
/// `uringc-run` takes as OBJECT and `uringc run` as a FILE it may compile first.
void AddRunOptions(CLI::App& app, RunArgs& out);

/// Parses `uringc-run`'s argv (argv[0] is the program name). Errors name the offending
/// argument; `--help` sets `help` and nothing else is required.
Result<RunArgs> ParseRunArgs(int argc, char** argv);

/// Parses the VALUE part of --arg.
Result<RunArg> ParseRunArg(const std::string& text);

/// `uringc-run`'s help.
std::string RunUsage(const std::string& program);

}  // namespace uringc
