// uringc-bench: runs one benchmark workload in the guest and prints one BENCH line
// (measurement.h). scripts/bench.py writes a guest script that calls it once per workload and
// round, interleaved, and takes the medians. Exit status 1 when the run did not do what it must
// (a NOP count, a copy that is not byte-exact), 2 for a bad command line.
//
//   uringc-bench make-file PATH BYTES
//   uringc-bench nops --name W --runner user|c|compiled|host --k K --n N [--object F]
//                     [--program G] [--ring M] [--bpf-stats]
//   uringc-bench copy --name W --runner user|c|compiled|host --src IN --dst OUT [--depth D]
//                     [--block B] [--object F] [--program G] [--ring M] [--bpf-stats]
//   uringc-bench server --name W --protocol echo|file --port P --conns C --server 'CMD ARGS'
//                       [--seconds S] [--warmup S] [--message B] [--key K --file PATH]
//                       [--upstream 'CMD ARGS' --upstream-port P] [--bpf-stats]
// `host` runs graph G's --target=host build (linked in, host_programs.h) on the host engine.
// `server` starts the server command (and an upstream's first), drives it with the load
// generator (loadgen.h) and stops it (server_workloads.h); PATH holds the file KEY names.
#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "bench_files.h"
#include "bench_ring.h"
#include "bpf_workloads.h"
#include "host_programs.h"
#include "server_workloads.h"
#include "user_workloads.h"

namespace uringc_bench {
namespace {

struct Options {
  std::string name, runner = "user", object, program, ring = "rewind", src, dst;
  uint32_t k = 1, depth = 1, block = 4096, sq = 0, cq = 0;
  uint64_t n = 1000;
  bool bpf_stats = false;
};

// SQ entries: at least 8 (upstream's rings) and room for everything in flight.
uint32_t SqEntries(const Options& o, uint32_t in_flight) {
  if (o.sq) return o.sq;
  uint32_t sq = 8;
  while (sq < in_flight) sq *= 2;
  return sq;
}

Measurement UserRun(const Options& o, uint32_t in_flight,
                    const std::function<Measurement(BenchRing&)>& run) {
  Measurement m;
  RingMode mode;
  if (!ParseRingMode(o.ring, &mode)) {
    m.error = "user space runs on a hand-mapped ring: --ring=rewind or --ring=tail";
    return m;
  }
  const uint32_t sq = SqEntries(o, in_flight);
  auto ring = BenchRing::Create(mode, sq, o.cq ? o.cq : sq, &m.error);
  return ring ? run(*ring) : m;
}

BpfRun BpfRunFor(const Options& o, uint32_t in_flight) {
  BpfRun run;
  run.object = o.object;
  if (o.runner == "host") run.host = FindHostProgram(o.program.c_str());
  run.ring.mode = o.ring;
  run.ring.sq_entries = SqEntries(o, in_flight);
  run.ring.cq_entries = o.cq ? o.cq : run.ring.sq_entries;
  run.bpf_stats = o.bpf_stats;
  return run;
}

Measurement Nops(const Options& o) {
  if (o.runner == "user") {
    return UserRun(o, o.k, [&](BenchRing& r) { return UserNops(r, o.k, o.n); });
  }
  BpfRun run = BpfRunFor(o, o.k);
  if (o.runner == "c") {  // tests/bench/nops.bpf.c
    run.ints = {{"inflight_target", o.k}, {"nops_left", static_cast<int64_t>(o.n)}};
    run.ops = o.n;
    run.expected = {{"nops_left", 0}, {"inflight", 0}};
  } else {  // a graph (n: u64) -> (done: u64) whose K lanes each complete n NOPs
    const uint64_t per_lane = o.n / o.k;
    run.ints = {{"n", static_cast<int64_t>(per_lane)}};
    run.ops = per_lane * o.k;
    run.expected = {{"done", run.ops}};
  }
  return RunBpf(run);
}

Measurement Copy(const Options& o) {
  Measurement m;
  m.copy = true;
  const int src = open(o.src.c_str(), O_RDONLY | O_CLOEXEC);
  const int dst = open(o.dst.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (src < 0 || dst < 0) {
    m.error = "cannot open " + (src < 0 ? o.src : o.dst) + ": " + strerror(errno);
  } else if (o.runner == "user") {
    m = UserRun(o, o.depth, [&](BenchRing& r) { return UserCopy(r, src, dst, o.depth, o.block); });
  } else {
    const uint64_t size = static_cast<uint64_t>(FileSize(src));
    BpfRun run = BpfRunFor(o, o.depth);
    run.copy = true;
    run.ints = {{"src", src}, {"dst", dst}, {"size", static_cast<int64_t>(size)}};
    run.ops = size;
    run.expected = {{"copied", size}};
    m = RunBpf(run);
  }
  if (src >= 0) close(src);
  if (dst >= 0) close(dst);
  if (m.error.empty()) m.error = CompareFiles(o.src, o.dst);  // byte-exact, or the run failed
  return m;
}

std::vector<std::string> Words(const std::string& command) {
  std::istringstream in(command);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

int Server(ServerRun run, const std::string& name, const std::string& server,
           const std::string& upstream, const std::string& file) {
  run.server = Words(server);
  run.upstream = Words(upstream);
  if (run.load.protocol == "file") {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "uringc-bench: cannot read %s (--file)\n", file.c_str());
      return 2;
    }
    run.load.expected.assign(std::istreambuf_iterator<char>(in), {});
  }
  return RunServer(name, run) ? 0 : 1;
}

int Main(int argc, char** argv) {
  CLI::App app{"Runs one uringc benchmark workload and prints a BENCH line"};
  app.require_subcommand(1);
  Options o;
  std::string path;
  uint64_t bytes = 0;
  auto* make_file = app.add_subcommand("make-file", "write a pseudo-random input file");
  make_file->add_option("path", path)->required();
  make_file->add_option("bytes", bytes)->required();
  auto* nops = app.add_subcommand("nops", "NOPs, K in flight");
  auto* copy = app.add_subcommand("copy", "copy a file, byte-exact");
  auto* server = app.add_subcommand("server", "a server under load from C connections");
  ServerRun srun;
  std::string server_cmd, upstream_cmd, file;
  server->add_option("--name", o.name, "the workload's name in the BENCH line")->required();
  server->add_option("--protocol", srun.load.protocol, "echo (proxies too) or file")
      ->required()
      ->check(CLI::IsMember({"echo", "file"}));
  server->add_option("--port", srun.load.port, "where the server listens")->required();
  server->add_option("--conns", srun.load.conns, "connections, one request in flight each")
      ->check(CLI::Range(1, 1024));
  server->add_option("--seconds", srun.load.seconds, "the measured window");
  server->add_option("--warmup", srun.load.warmup, "seconds of load before the window");
  server->add_option("--message", srun.load.message, "echo: bytes per request")
      ->check(CLI::Range(1u, 1u << 20));
  server->add_option("--key", srun.load.key, "file: the key asked for");
  server->add_option("--file", file, "file: the file the key names (the expected reply)");
  server->add_option("--server", server_cmd, "the server's command line")->required();
  server->add_option("--upstream", upstream_cmd, "an upstream to start first (proxies)");
  server->add_option("--upstream-port", srun.upstream_port, "where the upstream listens");
  server->add_flag("--bpf-stats", srun.bpf_stats,
                   "also the controllers' time in loop_step per request (BPF run-time "
                   "statistics, which cost every loop_step two clock reads)");
  for (CLI::App* sub : {nops, copy}) {
    sub->add_option("--name", o.name, "the workload's name in the BENCH line")->required();
    sub->add_option("--runner", o.runner,
                    "user, c (a lean C baseline), compiled, or host (the compiled graph on the "
                    "host engine)")
        ->check(CLI::IsMember({"user", "c", "compiled", "host"}));
    sub->add_option("--object", o.object, "the controller object (c, compiled)");
    sub->add_option("--program", o.program, "the graph built for the host engine (host)");
    sub->add_option("--ring", o.ring,
                    "rewind or tail (the benchmark's), runtime, runtime-rewind or runtime-tail "
                    "(uringc::Ring)");
    sub->add_option("--sq", o.sq, "SQ entries (default: 8, or more for what is in flight)");
    sub->add_option("--cq", o.cq, "CQ entries (default: as many as SQ entries)");
    sub->add_flag("--bpf-stats", o.bpf_stats,
                  "c, compiled: also measure the time the kernel spends in the controller "
                  "(BPF run-time statistics, which cost every loop_step two clock reads)");
  }
  nops->add_option("--k", o.k, "NOPs in flight (lanes of a compiled graph)")
      ->check(CLI::Range(1u, 4096u));
  nops->add_option("--n", o.n, "NOPs in all");
  copy->add_option("--src", o.src)->required();
  copy->add_option("--dst", o.dst)->required();
  copy->add_option("--depth", o.depth,
                   "requests in flight (user space), and room for them in the SQ (all runners)")
      ->check(CLI::Range(1u, 4096u));
  copy->add_option("--block", o.block, "bytes per request (user space)")
      ->check(CLI::Range(1u, 1u << 30));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int ret = app.exit(e);  // prints the help or the error
    return ret == 0 ? 0 : 2;
  }
  if (make_file->parsed()) {
    const std::string error = MakeInputFile(path, bytes);
    if (!error.empty()) std::fprintf(stderr, "uringc-bench: %s\n", error.c_str());
    return error.empty() ? 0 : 1;
  }
  if (server->parsed()) return Server(srun, o.name, server_cmd, upstream_cmd, file);
  if ((o.runner == "c" || o.runner == "compiled") && o.object.empty()) {
    std::fprintf(stderr, "uringc-bench: --runner=%s needs --object\n", o.runner.c_str());
    return 2;
  }
  if (o.runner == "host" && FindHostProgram(o.program.c_str()) == nullptr) {
    std::fprintf(stderr, "uringc-bench: no host build of graph `%s` (--program)\n",
                 o.program.c_str());
    return 2;
  }
  const Measurement m = nops->parsed() ? Nops(o) : Copy(o);
  PrintMeasurement(o.name, m);
  if (!m.error.empty())
    std::fprintf(stderr, "uringc-bench: %s: %s\n", o.name.c_str(), m.error.c_str());
  return m.error.empty() ? 0 : 1;
}

}  // namespace
}  // namespace uringc_bench

int main(int argc, char** argv) { return uringc_bench::Main(argc, argv); }
