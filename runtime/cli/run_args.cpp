// The run command's options (see run_args.h). CLI11 finds each option and its value; the values
// are converted here, with the runtime's number syntax (uringc/numbers.h: no octal `010`, sizes
// like `64k`), and a bad one throws CLI::ValidationError with the message the user sees.
#include "run_args.h"

#include "arg_sockets.h"
#include "uringc/controller.h"
#include "uringc/numbers.h"

namespace uringc {
namespace {

constexpr uint64_t kMaxBufferArg = uint64_t{65536} << 30;
constexpr const char* kEntries = "1 to 65536 entries";

Result<uint64_t> ParseSize(const std::string& flag, const std::string& text) {
  auto n = ParseByteSize(text);
  if (!n)
    return MakeError(DiagKind::kBadCommandLine, n.error().code, flag + ": " + n.error().message);
  return *n;
}

// The number `text` of option `flag`, or the parse fails saying why.
uint64_t Number(const std::string& flag, const std::string& text) {
  auto n = ParseSize(flag, text);
  if (!n) throw CLI::ValidationError(n.error().message);
  return *n;
}

// The same within [min, max]; outside, the parse fails with `range` (what is allowed).
uint64_t NumberIn(const std::string& flag, const std::string& text, uint64_t min, uint64_t max,
                  const std::string& range) {
  const uint64_t n = Number(flag, text);
  if (n < min || n > max) throw CLI::ValidationError(flag + ": " + range);
  return n;
}

// Declares option `flag`, whose value `set` converts (throwing CLI::ValidationError).
CLI::Option* AddConverted(CLI::App& app, const std::string& flag, const std::string& type,
                          const std::string& description,
                          std::function<void(const std::string&)> set) {
  return app.add_option_function<std::string>(flag, std::move(set), description)->type_name(type);
}

// uringc-run's app: the options and OBJECT.
void DeclareRunCommand(CLI::App& app, RunArgs& out) {
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.allow_extras();
  AddRunOptions(app, out);
  app.add_option("OBJECT", out.object, "the controller object (.bpf.o)");
  app.footer("Exit status: 0 done, 1 failed, 2 usage error, 130 interrupted.");
}

}  // namespace

void AddArgOption(CLI::App& app, std::vector<RunArg>& args, const std::string& description) {
  app.add_option_function<std::vector<std::string>>(
         "--arg",
         [&args](const std::vector<std::string>& texts) {
           for (const std::string& text : texts) {
             auto a = ParseRunArg(text);
             if (!a) throw CLI::ValidationError(a.error().message);
             args.push_back(*a);
           }
         },
         description)
      ->type_name("NAME=VALUE")
      ->allow_extra_args(false);
}

void AddRunOptions(CLI::App& app, RunArgs& out) {
  AddArgOption(app, out.args,
               "set a global or `struct.member` (repeatable); VALUE is an integer, true/false, an\n"
               "enumerator, PATH:r|w|rw|create (opens PATH, passes the fd), a socket\n"
               "tcp-listen:HOST:PORT, tcp-connect:HOST:PORT, unix-listen:PATH or unix-connect:PATH\n"
               "(passes its fd; a listener's address is printed on stderr), tcp-addr:HOST:PORT or\n"
               "unix-addr:PATH (the struct sockaddr, into a buffers parameter) or buffer[:SIZE]\n"
               "(allocates; unset buffers parameters get their declared size)");
  app.add_option("--ops", out.ops_map,
                 "the io_uring_bpf_ops variable to use (several in one object)")
      ->type_name("NAME");
  AddConverted(app, "--sq-entries", "N", "SQ size (default 64)", [&out](const std::string& v) {
    out.sq_entries = static_cast<uint32_t>(NumberIn("--sq-entries", v, 1, 65536, kEntries));
  });
  AddConverted(app, "--cq-entries", "N", "CQ size", [&out](const std::string& v) {
    out.cq_entries = static_cast<uint32_t>(NumberIn("--cq-entries", v, 1, 65536, kEntries));
  });
  AddConverted(app, "--mem-region", "BYTES", "register a parameter region (IOU_REGION_MEM)",
               [&out](const std::string& v) {
                 out.mem_region = Number("--mem-region", v);
               });
  app.add_option_function<std::string>(
         "--ring", [&out](const std::string& v) { ParseRingMode(v, &out.ring_mode); },
         "the SQ: rewind (NO_SQARRAY|SQ_REWIND, Linux 7.0+: SQEs at sqes[0..n), no SQ tail),\n"
         "tail (an SQ tail), or auto (default: rewind where the kernel has it and the\n"
         "controller handles it, which compiled controllers do)")
      ->check(CLI::IsMember({"auto", "rewind", "tail"}));
  app.add_option_function<std::string>(
         "--engine", [&out](const std::string& v) { ParseEngineChoice(v, &out.engine); },
         "where loop_step runs: kernel (the BPF object in the ring: Linux 7.1+ with\n"
         "io_uring_bpf_ops, BPF privileges), host (the same lowering as native code in this\n"
         "process: any io_uring kernel, no privileges; needs a .uring FILE), or auto\n"
         "(default: kernel where it can run, else host; says which on stderr)")
      ->check(CLI::IsMember({"auto", "kernel", "host"}));
  app.add_option("--verifier-log", out.verifier_log,
                 "write the verifier log there when loading fails")
      ->type_name("FILE");
  AddConverted(app, "--log-size", "BYTES", "verifier log kept (its tail; default 1M)",
               [&out](const std::string& v) {
                 out.log_size = NumberIn("--log-size", v, 4096, kMaxVerifierLogSize,
                                         "4096 to " + std::to_string(kMaxVerifierLogSize) +
                                             " bytes (the kernel's limit)");
               });
  AddConverted(app, "--max-enters", "N", "give up after N io_uring_enter calls",
               [&out](const std::string& v) {
                 out.max_enters = Number("--max-enters", v);
               });
  app.add_flag("--vm", out.vm,
               "run the same command in the project's VM, for kernels without io_uring_bpf_ops");
  app.add_option("--suite", out.suites,
                 "the VM's kernel (repeatable): sid (7.2), trixie-backports (7.3),\n"
                 "trixie-backports-7.1 (7.1); default sid")
      ->type_name("S")
      ->allow_extra_args(false);
  app.add_option_function<std::string>(
         "--diagnostics-format",
         [&out](const std::string& format) {
           out.diagnostics_format =
               format == "json" ? DiagnosticsFormat::kJson : DiagnosticsFormat::kText;
         },
         "how a verifier rejection (and, for a .uring FILE, the compiler's diagnostics) is\n"
         "printed on stderr (default text)")
      ->check(CLI::IsMember({"text", "json"}));
}

std::string RunUsage(const std::string& program) {
  RunArgs unused;
  CLI::App app("Loads a controller onto a new ring, runs it until it finishes, prints its outputs.",
               program);
  DeclareRunCommand(app, unused);
  return app.help();
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
  if (const size_t first = a.value.find(':');
      first != std::string::npos && IsSocketKind(a.value.substr(0, first))) {
    a.kind = RunArg::Kind::kSocket;
    a.mode = a.value.substr(0, first);
    a.value = a.value.substr(first + 1);
    if (auto ok = CheckSocketAddress(a.name, a.mode, a.value); !ok) {
      return MakeError(DiagKind::kBadCommandLine, ok.error().code, ok.error().message);
    }
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
  CLI::App app("", argc > 0 ? argv[0] : "uringc-run");
  DeclareRunCommand(app, out);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    RunArgs help;
    help.help = true;
    return help;
  } catch (const CLI::ParseError& e) {
    return MakeError(DiagKind::kBadCommandLine, EINVAL, e.what());
  }
  for (const std::string& extra : app.remaining()) {
    if (extra == "--") continue;
    if (extra[0] == '-') {
      return MakeError(DiagKind::kBadCommandLine, EINVAL, "unknown option `" + extra.substr(0, extra.find('=')) + "`");
    }
    return MakeError(DiagKind::kBadCommandLine, EINVAL, "only one object can be run (got `" + out.object + "` and `" +
                                 extra + "`)");
  }
  if (out.object.empty()) return MakeError(DiagKind::kBadCommandLine, EINVAL, "no object file given");
  return out;
}

}  // namespace uringc
