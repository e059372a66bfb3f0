// `uringc ublk add` / `del` (see ublk_command.h). The signals that end `add` are caught from the
// moment the device may exist, so that no Ctrl-C leaves a device behind: during START_DEV they
// give the start up, afterwards they stop the device cleanly.
#include "ublk_command.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "apply_args.h"
#include "diag/exit_status.h"
#include "interrupt.h"
#include "run_command.h"
#include "uringc/controller.h"
#include "uringc/error_diagnostic.h"
#include "uringc/ublk_server.h"

namespace uringc {
namespace {

volatile sig_atomic_t stop_requested = 0;
void OnStop(int) { stop_requested = 1; }

int Fail(const std::string& program, const Error& e) {
  PrintCommandError(program, e);
  return kExitErrors;
}

void CatchStopSignals() {
  struct sigaction sa {};
  sa.sa_handler = OnStop;  // no SA_RESTART: waits return so the flag is seen
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

void PrintQueue(ublk::Server& server, uint16_t q) {
  const Result<RunOutcome>& out = server.outcome(q);
  std::printf("queue %u: %s", q, out ? RunStatusName(out->status) : "not run");
  if (out && out->stats.steps_known) {
    std::printf(", %llu steps", static_cast<unsigned long long>(out->stats.steps));
  }
  std::printf("\n");
  if (Controller* c = server.controller(q)) PrintOutputs(*c);
}

}  // namespace

int UblkAddCommand(const UblkAddArgs& args, const std::string& program,
                   const SourceTexts& texts) {
  const EngineDecision engine = ChooseEngine(args.engine, args.host_program != nullptr);
  if (args.engine == EngineChoice::kAuto && args.host_program != nullptr) {
    std::fprintf(stderr, "%s: engine %s\n", program.c_str(), engine.why.c_str());
  }
  auto control = ublk::Control::Open();
  if (!control) return Fail(program, control.error());

  ControllerOptions co;
  co.verifier_log_path = args.verifier_log;
  co.log_size = args.log_size;
  co.source_texts = texts;
  std::vector<std::unique_ptr<Resources>> resources;
  ublk::ServerOptions options;
  options.device.size_bytes = args.size_bytes;
  options.device.queues = args.queues;
  options.device.depth = args.depth;
  options.ring_mode = args.ring_mode;
  options.open = [&](uint16_t) {
    return engine.engine == Engine::kHost
               ? Controller::OpenProgram(*args.host_program, Engine::kHost, co)
               : Controller::OpenFile(args.object, co);
  };
  options.configure = [&](Controller& c, const ublk::QueueContext&) -> Result<void> {
    resources.push_back(std::make_unique<Resources>());
    Resources& res = *resources.back();
    for (const RunArg& a : args.args) URINGC_TRY(ApplyArg(c, a, res));
    URINGC_TRY(GiveDeclaredBuffers(c, res, {ublk::kBufParam}));
    if (!res.shared_bytes.empty()) {
      return MakeError(DiagKind::kBadParameter, EINVAL,
                       "a socket address in a shared buffers parameter is not supported for "
                       "ublk targets");
    }
    return res.files.StartRun();
  };
  options.cancel_start = [] { return stop_requested != 0; };

  stop_requested = 0;
  CatchStopSignals();
  auto server = ublk::Server::Start(**control, options);
  if (!server) {
    if (stop_requested) {
      std::fprintf(stderr, "%s: interrupted before the device started; nothing is left\n",
                   program.c_str());
      return kExitInterrupted;
    }
    return Fail(program, server.error());
  }
  const ublk::DeviceInfo& dev = (*server)->device();
  std::printf("%s\n", dev.block_path().c_str());
  std::fflush(stdout);
  if (dev.queues < args.queues) {
    std::fprintf(stderr, "%s: note: the driver made %u of the %u queues asked for (one per CPU at "
                 "most)\n", program.c_str(), dev.queues, args.queues);
  }
  std::fprintf(stderr,
               "%s: serving %s (%u queue%s of %u tags, requests up to %u KiB, %s engine); "
               "Ctrl-C or SIGTERM stops it\n",
               program.c_str(), dev.block_path().c_str(), dev.queues, dev.queues == 1 ? "" : "s",
               dev.depth, dev.max_io_bytes >> 10, EngineName(engine.engine));
  while (!stop_requested && !(*server)->QueueEnded()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const bool ended = (*server)->QueueEnded();
  auto stopped = (*server)->Stop();
  std::fprintf(stderr, "%s: %s stopped and deleted\n", program.c_str(), dev.block_path().c_str());
  for (uint16_t q = 0; q < dev.queues; ++q) PrintQueue(**server, q);
  std::fflush(stdout);
  if (!stopped) return Fail(program, stopped.error());
  if (ended) {
    return Fail(program, MakeError(DiagKind::kUblkCommandFailed, EIO,
                                   "a queue's controller ended while the device was live (its "
                                   "requests failed with I/O errors); the device was stopped"));
  }
  return kExitOk;
}

int UblkDelCommand(int dev_id, const std::string& program) {
  auto control = ublk::Control::Open();
  if (!control) return Fail(program, control.error());
  if (auto removed = (*control)->Remove(dev_id); !removed) return Fail(program, removed.error());
  std::fprintf(stderr, "%s: deleted ublk device %d\n", program.c_str(), dev_id);
  return kExitOk;
}

}  // namespace uringc
