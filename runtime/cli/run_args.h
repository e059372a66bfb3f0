// Command line of `uringc run` / `uringc-run`, parsed into data so it can be unit-tested and
// rewritten for the VM (--vm copies the object and input files into the guest).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "uringc/result.h"

namespace uringc {

/// One `--arg NAME=VALUE`. VALUE is a plain value (integer in the syntax of uringc/numbers.h,
/// bool, enumerator), `PATH:MODE` (an fd parameter: the runtime opens PATH with MODE r, w, rw or
/// create and passes the fd) or `buffer[:SIZE]` (a buffers parameter: the runtime allocates SIZE
/// zeroed bytes, at least the declared size, or the declared size without SIZE).
struct RunArg {
  enum class Kind { kValue, kFile, kBuffer };
  std::string name;
  std::string value;  // kValue: the text; kFile: the path
  Kind kind = Kind::kValue;
  std::string mode;   // kFile: r, w, rw, create
  uint64_t size = 0;  // kBuffer: bytes, 0 for the declared size
};

struct RunArgs {
  std::string object;
  std::vector<RunArg> args;
  std::string ops_map;
  uint32_t sq_entries = 64;
  uint32_t cq_entries = 0;
  uint64_t mem_region = 0;
  std::string verifier_log;
  uint64_t log_size = 1 << 20;
  uint64_t max_enters = 0;
  bool vm = false;
  bool json_diagnostics = false;    // --diagnostics-format=json
  std::vector<std::string> suites;  // --suite, for --vm
  bool help = false;
};

/// Parses argv (argv[0] is the program name). Errors name the offending argument.
Result<RunArgs> ParseRunArgs(int argc, char** argv);

/// Parses the VALUE part of --arg.
Result<RunArg> ParseRunArg(const std::string& text);

/// The usage text.
std::string RunUsage(const std::string& program);

}  // namespace uringc
