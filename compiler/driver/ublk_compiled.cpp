// `uringc ublk add TARGET.uring ...` and `uringc ublk del N` (docs/ublk.md): the target is
// compiled in memory with `-D DEPTH=<--depth>`, so its `parallel tag in 0..DEPTH` lanes and its
// `buf: buffers[DEPTH] of SIZE` match the device's tags, for the kernel engine and, unless
// --engine=kernel, for the host engine too; runtime/cli/ublk_command.h serves it.
#include <iostream>
#include <memory>

#include "driver/compile_command.h"
#include "driver/compile_to_temp.h"
#include "driver/ublk_compiled.h"
#include "run_command.h"
#include "temp_files.h"
#include "ublk_command.h"
#include "uringc/numbers.h"
#include "uringc/ublk.h"

namespace uringc::driver {
namespace {

struct UblkCommand {
  RunCompiledCommand compile;
  UblkAddArgs add;
  std::string size;
  int del_id = -1;
  CLI::App* add_cmd = nullptr;
  CLI::App* del_cmd = nullptr;
};

int Add(UblkCommand& cmd) {
  auto size = ParseByteSize(cmd.size);
  if (!size || *size == 0 || *size % 512 != 0) {
    std::cerr << "uringc ublk add: error: --size " << cmd.size
              << ": the device's size is a positive multiple of 512 bytes (e.g. 1G)\n";
    return kExitUsage;
  }
  cmd.add.size_bytes = *size;
  RunCompiledCommand& c = cmd.compile;
  c.run.engine = cmd.add.engine;
  c.request.defines.push_back({"DEPTH", std::to_string(cmd.add.depth)});  // after any -D: --depth wins
  std::string dir;
  SourceTexts texts;
  std::unique_ptr<HostJit> host;
  int status = kExitOk;
  auto object = CompileToTemp(c, "uringc ublk add", dir, status, texts, host);
  if (!object) {
    if (!dir.empty()) RemoveTemp(dir);
    return status;
  }
  cmd.add.object = *object;
  if (host) cmd.add.host_program = &host->program();
  status = UblkAddCommand(cmd.add, "uringc ublk add", texts);
  RemoveTemp(*object);
  RemoveTemp(dir);
  return status;
}

// `add` until the device may exist, like `del`: a signal removes the compiled object and ends
// the command with 130 (UblkAddCommand then takes the signals over).
int Run(UblkCommand& cmd) {
  const std::string del = "uringc ublk del";
  if (cmd.del_cmd->parsed()) return RunGuarded(del, [&] { return UblkDelCommand(cmd.del_id, del); });
  return RunGuarded("uringc ublk add", [&] { return Add(cmd); });  // require_subcommand(1)
}

void DeclareAdd(CLI::App& add, UblkCommand& s) {
  add.add_option("TARGET", s.compile.file, "the target: a .uring file (docs/ublk.md)")->required();
  AddArgOption(add, s.add.args,
               "set one of the target's own parameters, as `uringc run --arg` does (repeatable;\n"
               "each queue's controller opens its own files); ublkc, queue, descs and buf are set\n"
               "by the server");
  add.add_option("--size", s.size, "the device's size in bytes (512-byte multiple; 1G, 64M)")
      ->type_name("SIZE")
      ->required();
  add.add_option("--queues", s.add.queues, "hardware queues: a thread, a ring and a controller each")
      ->type_name("Q")
      ->check(CLI::Range(1, static_cast<int>(ublk::kMaxQueues)));
  add.add_option("--depth", s.add.depth, "tags per queue (compiled as -D DEPTH=D; default 64)")
      ->type_name("D")
      ->check(CLI::Range(1, static_cast<int>(ublk::kMaxDepth)));
  add.add_option_function<std::string>(
         "--engine", [&s](const std::string& v) { ParseEngineChoice(v, &s.add.engine); },
         "where each queue's loop_step runs: kernel, host or auto (as `uringc run`)")
      ->check(CLI::IsMember({"auto", "kernel", "host"}));
  add.add_option("--verifier-log", s.add.verifier_log,
                 "write the verifier log there when loading fails")
      ->type_name("FILE");
  AddBackendOptions(add, s.compile.request, s.compile.target_kernel);
  AddStdlibOption(add, s.compile.stdlib);
  add.footer(
      "Prints /dev/ublkbN on stdout once the device exists and serves it until SIGINT, SIGTERM\n"
      "or SIGHUP; then stops and deletes it and prints each queue's outputs.\n"
      "Exit status: 0 stopped cleanly, 1 failed, 2 usage error, 130 interrupted before it started.");
}

}  // namespace

Runner DeclareUblk(CLI::App& cmd) {
  auto s = std::make_shared<UblkCommand>();
  cmd.require_subcommand(1);
  s->add_cmd = cmd.add_subcommand("add", "create a ublk block device served by TARGET.uring");
  DeclareAdd(*s->add_cmd, *s);
  s->del_cmd = cmd.add_subcommand("del", "stop and delete ublk device N (/dev/ublkbN)");
  s->del_cmd->add_option("N", s->del_id, "the device's number")->required()->check(
      CLI::NonNegativeNumber);
  return [s](Io&) { return Run(*s); };
}

}  // namespace uringc::driver
