// Parsing for the run command (see run_args.h).
#include "run_args.h"

#include "uringc/numbers.h"

#include "uringc/controller.h"

namespace uringc {
namespace {

constexpr uint64_t kMaxBufferArg = uint64_t{65536} << 30;

Result<uint64_t> ParseSize(const std::string& flag, const std::string& text) {
  auto n = ParseByteSize(text);
  if (!n)
    return MakeError(DiagKind::kBadCommandLine, n.error().code, flag + ": " + n.error().message);
  return *n;
}

}  // namespace

std::string RunUsage(const std::string& program) {
  return "usage: " + program +
         " [options] OBJECT.bpf.o\n"
         "Loads a controller onto a new ring, runs it until it finishes, prints its outputs.\n"
         "  --arg NAME=VALUE      set a global or `struct.member` (repeatable); VALUE is an\n"
         "                        integer, true/false, an enumerator, PATH:r|w|rw|create (opens\n"
         "                        PATH, passes the fd) or buffer[:SIZE] (allocates; unset buffers\n"
         "                        parameters get their declared size)\n"
         "  --ops NAME            the io_uring_bpf_ops variable to use (several in one object)\n"
         "  --sq-entries N        SQ size (default 64)      --cq-entries N   CQ size\n"
         "  --mem-region BYTES    register a parameter region (IOU_REGION_MEM)\n"
         "  --verifier-log=FILE   write the verifier log there when loading fails\n"
         "  --log-size BYTES      verifier log kept (its tail; default 1M)\n"
         "  --diagnostics-format=text|json  how errors are printed (stderr; json: an array of\n"
         "                        {file, line, column, severity, kind, message, notes})\n"
         "  --max-enters N        give up after N io_uring_enter calls\n"
         "  --vm [--suite S]      run the same command in the project's VM (sid: 7.2,\n"
         "                        trixie-backports: 7.3, trixie-backports-7.1: 7.1) for\n"
         "                        kernels without io_uring_bpf_ops\n"
         "Exit status: 0 done, 1 failed, 2 usage error, 130 interrupted.\n";
}

Result<RunArg> ParseRunArg(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    return MakeError(DiagKind::kBadCommandLine, EINVAL,
                     "--arg `" + text + "`: expected NAME=VALUE");
  }
  RunArg a;
  a.name = text.substr(0, eq);
  a.value = text.substr(eq + 1);
  if (a.value == "buffer" || a.value.rfind("buffer:", 0) == 0) {
    a.kind = RunArg::Kind::kBuffer;
    if (a.value != "buffer") {
      auto size = ParseSize("--arg " + a.name, a.value.substr(7));
      if (!size) return size.error();
      if (*size == 0 || *size > kMaxBufferArg) {
        return MakeError(DiagKind::kBadCommandLine, EINVAL,
                         "--arg " + a.name +
                             ": a buffer needs 1 byte to 64 TiB (the "
                             "largest `buffers[65536] of 1 GiB`)");
      }
      a.size = *size;
    }
    a.value.clear();
    return a;
  }
  const size_t colon = a.value.rfind(':');
  if (colon != std::string::npos) {
    const std::string mode = a.value.substr(colon + 1);
    if (mode != "r" && mode != "w" && mode != "rw" && mode != "create") {
      return MakeError(DiagKind::kBadCommandLine, EINVAL,
                       "--arg " + a.name + ": `" + mode +
                           "` is not a file mode (use PATH:r, PATH:w, PATH:rw or "
                           "PATH:create)");
    }
    a.kind = RunArg::Kind::kFile;
    a.mode = mode;
    a.value = a.value.substr(0, colon);
    if (a.value.empty())
      return MakeError(DiagKind::kBadCommandLine, EINVAL,
                       "--arg " + a.name + ": the path is empty");
  }
  return a;
}

Result<RunArgs> ParseRunArgs(int argc, char** argv) {
  RunArgs out;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_value = false;
    const size_t eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos && arg != "--arg") {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    auto next = [&]() -> Result<std::string> {
      if (has_value) return value;
      if (i + 1 >= argc)
        return MakeError(DiagKind::kBadCommandLine, EINVAL, arg + " needs a value");
      return std::string(argv[++i]);
    };
    auto number = [&](uint64_t* dst) -> Result<void> {
      auto v = next();
      if (!v) return v.error();
      auto n = ParseSize(arg, *v);
      if (!n) return n.error();
      *dst = *n;
      return {};
    };
    uint64_t n = 0;
    if (arg == "-h" || arg == "--help") {
      out.help = true;
    } else if (arg == "--arg") {
      auto v = next();
      if (!v) return v.error();
      auto a = ParseRunArg(*v);
      if (!a) return a.error();
      out.args.push_back(*a);
    } else if (arg == "--ops") {
      auto v = next();
      if (!v) return v.error();
      out.ops_map = *v;
    } else if (arg == "--verifier-log") {
      auto v = next();
      if (!v) return v.error();
      out.verifier_log = *v;
    } else if (arg == "--suite") {
      auto v = next();
      if (!v) return v.error();
      out.suites.push_back(*v);
    } else if (arg == "--vm") {
      out.vm = true;
    } else if (arg == "--diagnostics-format") {
      auto v = next();
      if (!v) return v.error();
      if (*v != "text" && *v != "json") {
        return MakeError(DiagKind::kBadCommandLine, EINVAL,
                         "--diagnostics-format is `text` or `json`, not `" + *v + "`");
      }
      out.json_diagnostics = *v == "json";
    } else if (arg == "--sq-entries" || arg == "--cq-entries") {
      URINGC_TRY(number(&n));
      if (n == 0 || n > 65536)
        return MakeError(DiagKind::kBadCommandLine, EINVAL, arg + ": 1 to 65536 entries");
      (arg == "--sq-entries" ? out.sq_entries : out.cq_entries) = static_cast<uint32_t>(n);
    } else if (arg == "--mem-region") {
      URINGC_TRY(number(&out.mem_region));
    } else if (arg == "--log-size") {
      URINGC_TRY(number(&out.log_size));
      if (out.log_size < 4096 || out.log_size > kMaxVerifierLogSize) {
        return MakeError(DiagKind::kBadCommandLine, EINVAL,
                         "--log-size: 4096 to " + std::to_string(kMaxVerifierLogSize) +
                             " bytes (the kernel's limit)");
      }
    } else if (arg == "--max-enters") {
      URINGC_TRY(number(&out.max_enters));
    } else if (arg.rfind("-", 0) == 0) {
      return MakeError(DiagKind::kBadCommandLine, EINVAL, "unknown option `" + arg + "`");
    } else if (out.object.empty()) {
      out.object = arg;
    } else {
      return MakeError(DiagKind::kBadCommandLine, EINVAL,
                       "only one object can be run (got `" + out.object + "` and `" + arg + "`)");
    }
  }
  if (!out.help && out.object.empty())
    return MakeError(DiagKind::kBadCommandLine, EINVAL, "no object file given");
  return out;
}

}  // namespace uringc
