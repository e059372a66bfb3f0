// The run command (see run_command.h; its options are run_args.h): fd and buffer parameters,
// SIGINT as a clean stop once the controller runs (before that, interrupt.h), the report, the
// diagnostics (text or JSON), and --vm, which hands the same command to tests/vm/run-vm-tests.py
// with the object and input files copied into the guest. No exception leaves it: one escaping
// the runtime would abort the command.
#include "run_command.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <string_view>
#include <vector>

#include "apply_args.h"
#include "arg_files.h"
#include "arg_sockets.h"
#include "diag/exit_status.h"
#include "driver/install_layout.h"
#include "interrupt.h"
#include "run_args.h"
#include "temp_files.h"
#include "uringc/controller.h"
#include "uringc/diag/formatter.h"
#include "uringc/error_diagnostic.h"
#include "uringc/ring.h"

namespace uringc {

void PrintCommandError(const std::string& program, const Error& e) {
  std::string text = EscapeForTerminal(e.message);
  const size_t eol = std::min(text.find('\n'), text.size());
  text = program + ": error: " + text.substr(0, eol) + " [" + std::string(DiagKindName(e.kind)) +
         "]" + text.substr(eol);
  if (text.back() != '\n') text += '\n';
  std::fputs(text.c_str(), stderr);
}

namespace {

volatile sig_atomic_t stop_requested = 0;
void OnStop(int) { stop_requested = 1; }

// The notes after a verifier rejection, for text and JSON alike: the `note: ...` lines the
// controller put after the report's text (the log did not fit, could not be written), then where
// the log is when it was written.
std::vector<std::string> RejectionNotes(const RunArgs& args, const Error& e,
                                        const VerifierReport& report) {
  std::vector<std::string> notes;
  const bool after_report = e.message.rfind(report.text, 0) == 0;
  std::string_view rest = after_report ? std::string_view(e.message).substr(report.text.size())
                                       : std::string_view();
  bool log_written = !args.verifier_log.empty();
  while (!rest.empty()) {
    const size_t eol = std::min(rest.find('\n'), rest.size());
    std::string_view line = rest.substr(0, eol);
    rest.remove_prefix(std::min(eol + 1, rest.size()));
    if (line.rfind("note: ", 0) == 0) line.remove_prefix(6);
    if (line.empty()) continue;
    if (line.find("cannot write the verifier log") != std::string_view::npos) log_written = false;
    notes.emplace_back(line);
  }
  if (log_written) notes.push_back("the verifier log is in " + args.verifier_log);
  return notes;
}

// Every failure of a run is printed here, once. Text: `PROGRAM: error: MESSAGE [Kind]`, or for a
// verifier rejection its located diagnostic and notes. JSON (--diagnostics-format=json): an
// array of one diagnostic, as `uringc compile` prints them.
void ReportError(const std::string& program, const RunArgs& args, const Error& e,
                 const VerifierReport* report = nullptr) {
  const bool json = args.diagnostics_format == DiagnosticsFormat::kJson;
  if (report) {
    const std::vector<std::string> notes = RejectionNotes(args, e, *report);
    if (json) {
      Diagnostic d = report->diagnostic;
      for (const std::string& n : notes) d.notes.push_back({{}, n});
      std::fputs(FormatJson({d}, report->sources).c_str(), stderr);
      return;
    }
    std::fputs(EscapeForTerminal(report->text).c_str(), stderr);
    for (const std::string& n : notes) {
      std::fprintf(stderr, "note: %s\n", EscapeForTerminal(n).c_str());
    }
    return;
  }
  if (json) {
    std::fputs(FormatJson({DiagnosticOf(e)}, SourceManager()).c_str(), stderr);
    return;
  }
  PrintCommandError(program, e);
}

void PrintStats(const RunOutcome& out) {
  std::printf("status: %s", RunStatusName(out.status));
  if (out.status == RunStatus::kFailed) std::printf(" (uringc_error = %d)", out.controller_error);
  std::printf("\nstatistics:\n");
  if (out.stats.steps_known) {
    std::printf("  steps = %llu\n", static_cast<unsigned long long>(out.stats.steps));
  }
  std::printf("  enters = %llu\n  interrupts = %llu\n  wall_time = %.6f s\n",
              static_cast<unsigned long long>(out.stats.enters),
              static_cast<unsigned long long>(out.stats.interrupts), out.stats.wall_seconds);
}

std::string SelfExe() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

// Length of the valid UTF-8 sequence at s[i] (as Python decodes it: no overlong forms, no
// surrogates, nothing past U+10FFFF), or 0.
size_t Utf8Length(const std::string& s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  const size_t n = c >= 0xc2 && c <= 0xdf   ? 2
                   : c >= 0xe0 && c <= 0xef ? 3
                   : c >= 0xf0 && c <= 0xf4 ? 4
                                            : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xc0) != 0x80) return 0;
  if ((c == 0xe0 && b(i + 1) < 0xa0) || (c == 0xed && b(i + 1) >= 0xa0) ||
      (c == 0xf0 && b(i + 1) < 0x90) || (c == 0xf4 && b(i + 1) >= 0x90))
    return 0;
  return n;
}

// A JSON string for the VM runner. File names may hold any bytes: a byte that is not part of
// valid UTF-8 becomes the surrogate escape \udcXX, which Python's os functions turn back into
// that byte (PEP 383).
std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const size_t n = Utf8Length(s, i);
    if (n == 0 || c < 0x20) {
      char b[8];
      snprintf(b, sizeof(b), "\\u%04x", n == 0 ? 0xdc00 + c : c);
      out += b;
      ++i;
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out.append(s, i, n);
    i += n;
  }
  return out + "\"";
}

std::string Basename(const std::string& p) {
  const size_t s = p.rfind('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

// --vm: the same command inside the guest. The object and readable input files are copied to
// /data; files the controller writes live in the guest's /tmp and are not brought back.
int RunInVm(const RunArgs& args) {
  std::string binary = SelfExe();
  if (Basename(binary) != "uringc-run") binary = install::Locate("uringc-run", URINGC_RUN_BINARY);
  if (access(binary.c_str(), X_OK) != 0) {
    std::fprintf(stderr, "uringc run --vm: cannot find the uringc-run binary (%s)\n",
                 binary.c_str());
    return kExitErrors;
  }
  std::vector<std::pair<std::string, std::string>> files = {
      {args.object, "/data/" + Basename(args.object)}};
  std::vector<std::string> argv = {binary, "/data/" + Basename(args.object)};
  for (const RunArg& a : args.args) {
    std::string value;
    switch (a.kind) {
      case RunArg::Kind::kValue: value = a.value; break;
      case RunArg::Kind::kBuffer: value = a.size ? "buffer:" + std::to_string(a.size) : "buffer"; break;
      case RunArg::Kind::kSocket: value = a.mode + ":" + a.value; break;  // made in the guest
      case RunArg::Kind::kFile:
        if (a.mode == "r" || a.mode == "rw") {
          const std::string guest = "/data/" + std::to_string(files.size()) + "-" +
                                    Basename(a.value);
          files.emplace_back(a.value, guest);
          value = guest + ":" + a.mode;
        } else {
          value = "/tmp/" + Basename(a.value) + ":" + a.mode;
          std::fprintf(stderr, "note: `%s` is written inside the VM (/tmp) and not copied back\n",
                       a.value.c_str());
        }
        break;
    }
    argv.push_back("--arg");
    argv.push_back(a.name + "=" + value);
  }
  if (!args.ops_map.empty()) argv.insert(argv.end(), {"--ops", args.ops_map});
  argv.insert(argv.end(), {"--sq-entries", std::to_string(args.sq_entries)});
  if (args.cq_entries) argv.insert(argv.end(), {"--cq-entries", std::to_string(args.cq_entries)});
  if (args.mem_region) argv.insert(argv.end(), {"--mem-region", std::to_string(args.mem_region)});
  argv.insert(argv.end(), {"--ring", RingModeName(args.ring_mode)});
  if (args.max_enters) argv.insert(argv.end(), {"--max-enters", std::to_string(args.max_enters)});
  argv.insert(argv.end(), {"--log-size", std::to_string(args.log_size)});
  if (args.diagnostics_format == DiagnosticsFormat::kJson) {
    argv.insert(argv.end(), {"--diagnostics-format", "json"});
  }
  if (!args.verifier_log.empty()) {
    std::fprintf(stderr, "note: --verifier-log is printed by the guest, not written on the host\n");
  }
  for (const auto& [host, guest] : files) {
    struct stat st;
    if (access(host.c_str(), R_OK) != 0 || stat(host.c_str(), &st) != 0) {
      std::fprintf(stderr, "uringc run --vm: cannot read `%s`: %s\n", host.c_str(),
                   strerror(errno));
      return kExitErrors;
    }
    if (!S_ISREG(st.st_mode)) {  // copied into the guest: a FIFO or a device would never end
      std::fprintf(stderr, "uringc run --vm: `%s` is not a regular file; --vm copies the object "
                   "and the files it reads into the guest\n", host.c_str());
      return kExitErrors;
    }
  }
  std::string json = "[{\"name\": \"uringc-run\", \"argv\": [";
  for (size_t i = 0; i < argv.size(); ++i) json += (i ? ", " : "") + JsonString(argv[i]);
  json += "], \"env\": {}, \"files\": [";
  for (size_t i = 0; i < files.size(); ++i) {
    json += std::string(i ? ", " : "") + "[" + JsonString(files[i].first) + ", " +
            JsonString(files[i].second) + "]";
  }
  json += "]}]\n";
  auto dir = MakeTempDir("uringc-run-vm");
  const std::string manifest = dir ? *dir + "/manifest.json" : "";
  auto written = dir ? WriteNewFile(manifest, json) : Result<void>(dir.error());
  if (!written) {
    if (dir) RemoveTemp(*dir);
    std::fprintf(stderr, "uringc run --vm: %s\n", written.error().message.c_str());
    return kExitErrors;
  }
  const std::string runner = install::Locate(URINGC_VM_RUNNER_FROM_BINDIR, URINGC_VM_RUNNER);
  std::vector<std::string> cmd = {"/usr/bin/python3", runner, "--manifest", manifest,
                                  "--retries", "1", "--exit-status"};
  const std::vector<std::string> suites =
      args.suites.empty() ? std::vector<std::string>{"sid"} : args.suites;
  for (const std::string& s : suites) cmd.insert(cmd.end(), {"--suite", s});
  std::vector<char*> c;
  for (std::string& s : cmd) c.push_back(s.data());
  c.push_back(nullptr);
  pid_t pid;
  {
    // The runner gets SIGINT/SIGTERM forwarded (it stops its guest and cleans up); it starts
    // with default handlers, and no signal falls between fork and forwarding.
    SignalBlock block;
    pid = fork();
    if (pid == 0) {
      RestoreDefaultSignals();
      execv(c[0], c.data());
      std::perror("uringc run --vm: cannot start the VM runner (/usr/bin/python3)");
      _exit(127);
    }
    if (pid > 0) ForwardSignalsTo(pid);
  }
  int status = 1, sig = 0;
  if (pid > 0) {
    // Wait without reaping, so that a forwarded signal can never reach a recycled pid.
    siginfo_t info;
    while (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
    }
    sig = ForwardSignalsTo(0);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  RemoveTemp(manifest);
  RemoveTemp(*dir);
  const bool stopped = WIFSIGNALED(status) && (WTERMSIG(status) == SIGINT ||
                                                WTERMSIG(status) == SIGTERM ||
                                                WTERMSIG(status) == SIGHUP);
  if (sig || stopped || (WIFEXITED(status) && WEXITSTATUS(status) == kExitInterrupted)) {
    return kExitInterrupted;
  }
  // The guest's own status (the runner's --exit-status): 0, 2 for a usage error, else 1.
  if (pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) return kExitOk;
  if (pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == kExitUsage) return kExitUsage;
  return kExitErrors;
}

int RunCommand(const RunArgs& args, const std::string& program, const SourceTexts& texts) {
  stop_requested = 0;
  if (args.vm) return RunInVm(args);

  ControllerOptions co;
  co.ops_map = args.ops_map;
  co.verifier_log_path = args.verifier_log;
  co.log_size = args.log_size;
  co.source_texts = texts;
  if (args.engine == EngineChoice::kHost && args.host_program == nullptr) {
    ReportError(program, args,
                MakeError(DiagKind::kApiMisuse, EINVAL,
                          "`" + args.object +
                              "` is a BPF object, which holds no host code: run the .uring file "
                              "(`uringc run FILE.uring --engine=host`), which is compiled for both "
                              "engines"));
    return kExitUsage;
  }
  const EngineDecision engine = ChooseEngine(args.engine, args.host_program != nullptr);
  if (args.engine == EngineChoice::kAuto && args.host_program != nullptr)
    std::fprintf(stderr, "%s: engine %s\n", program.c_str(), engine.why.c_str());
  auto ctl = engine.engine == Engine::kHost
                 ? Controller::OpenProgram(*args.host_program, Engine::kHost, co)
                 : Controller::OpenFile(args.object, co);
  if (!ctl) {
    ReportError(program, args, ctl.error());
    return kExitErrors;
  }
  RingOptions ro;
  ro.sq_entries = args.sq_entries;
  ro.cq_entries = args.cq_entries;
  ro.mem_region_size = args.mem_region;
  ro.mode = args.ring_mode;
  // auto: a controller that advances the SQ tail itself gets a ring with one.
  auto ring = Ring::Create((*ctl)->FitRingOptions(ro));
  if (!ring) {
    ReportError(program, args, ring.error());
    return kExitErrors;
  }
  Resources res;
  for (const RunArg& a : args.args) {
    auto r = ApplyArg(**ctl, a, res);
    if (!r) {
      ReportError(program, args, r.error());
      return kExitErrors;
    }
  }
  // Buffers parameters without --arg get their declared size (the README's promise).
  if (auto r = GiveDeclaredBuffers(**ctl, res); !r) {
    ReportError(program, args, r.error());
    return kExitErrors;
  }
  auto loaded = (*ctl)->Load(**ring);
  if (!loaded) {
    ReportError(program, args, loaded.error(), (*ctl)->verifier_report());
    return kExitErrors;
  }
  if (!(*ctl)->kernel_warning().empty())
    std::fprintf(stderr, "%s: warning: %s\n", program.c_str(), (*ctl)->kernel_warning().c_str());
  if (auto written = WriteSharedBytes(**ctl, res); !written) {
    ReportError(program, args, written.error());
    return kExitErrors;
  }
  auto attached = (*ctl)->Attach();
  if (!attached) {
    ReportError(program, args, attached.error());
    return kExitErrors;
  }
  // The run starts: only now are `PATH:create` files emptied.
  auto started = res.files.StartRun();
  if (!started) {
    ReportError(program, args, started.error());
    return kExitErrors;
  }
  // Ctrl-C and SIGTERM stop the run cleanly: the enter returns -EINTR, outputs are printed.
  struct sigaction sa {};
  sa.sa_handler = OnStop;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
  RunOptions run_opts;
  run_opts.return_on_interrupt = true;
  run_opts.max_enters = args.max_enters;
  RunOutcome total;
  while (true) {
    auto out = (*ctl)->Run(run_opts);
    if (!out) {
      ReportError(program, args, out.error());
      return kExitErrors;
    }
    total.status = out->status;
    total.controller_error = out->controller_error;
    total.stats.enters += out->stats.enters;
    total.stats.interrupts += out->stats.interrupts;
    total.stats.steps_known = out->stats.steps_known;
    total.stats.steps = out->stats.steps;
    total.stats.wall_seconds += out->stats.wall_seconds;
    if (out->status != RunStatus::kInterrupted || stop_requested) break;
  }
  std::printf("%s: %s on ring fd %d (ops `%s`, %s engine)\n", program.c_str(), args.object.c_str(),
              (*ring)->fd(), (*ctl)->ops_map_name().c_str(), EngineName((*ctl)->engine()));
  PrintStats(total);
  std::printf("outputs:\n");
  PrintOutputs(**ctl);
  std::fflush(stdout);
  if (total.status == RunStatus::kInterrupted) return kExitInterrupted;
  return total.status == RunStatus::kDone ? kExitOk : kExitErrors;
}

}  // namespace

int RunGuarded(const std::string& program, const std::function<int()>& command) {
  SignalScope scope;
  ExitOnSignal();
  try {
    return command();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s: error: out of memory\n", program.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", program.c_str(), e.what());
  }
  return kExitErrors;
}

int RunCommandMain(int argc, char** argv) {
  const std::string program = argc > 0 ? Basename(argv[0]) : "uringc-run";
  return RunGuarded(program, [&] {
    auto parsed = ParseRunArgs(argc, argv);
    if (!parsed) {
      std::fprintf(stderr, "%s: error: %s [%s]\nsee `%s --help`\n", program.c_str(),
                   parsed.error().message.c_str(),
                   std::string(DiagKindName(parsed.error().kind)).c_str(), program.c_str());
      return static_cast<int>(kExitUsage);
    }
    if (parsed->help) {
      std::printf("%s", RunUsage(program).c_str());
      return static_cast<int>(kExitOk);
    }
    return RunCommand(*parsed, program, {});
  });
}

int RunParsedCommand(const RunArgs& args, const std::string& program, const SourceTexts& texts) {
  return RunGuarded(program, [&] { return RunCommand(args, program, texts); });
}

}  // namespace uringc
