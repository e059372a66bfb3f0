// Starting, waiting for, and stopping the benchmark's servers (server_workloads.h).
#include "server_workloads.h"

#include <bpf/bpf.h>
#include <fcntl.h>
#include <net/if.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <thread>

#include "bpf_stats.h"
#include "process_usage.h"

namespace uringc_bench {
namespace {

int64_t OwnCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// What the server, its upstream, this process and the kernel's controllers had used at one
// moment; the window's cost is the difference of two readings.
struct Reading {
  ProcessUsage server, upstream;
  int64_t loadgen_ns = 0, idle_ns = 0, wall_ns = 0;
  ProgramTime bpf;

  static Reading Take(pid_t server_pid, pid_t upstream_pid, bool bpf_stats) {
    Reading r;
    r.server = UsageOf(server_pid);
    if (upstream_pid > 0) r.upstream = UsageOf(upstream_pid);
    r.loadgen_ns = OwnCpuNs();
    r.idle_ns = IdleNs();
    r.wall_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                    std::chrono::steady_clock::now().time_since_epoch())
                    .count();
    if (bpf_stats) r.bpf = StructOpsTime();
    return r;
  }
};

// The window's costs per request (us), into the BENCH line.
void AddCosts(const Reading& a, const Reading& b, uint64_t requests, bool bpf_stats,
              bool upstream, nlohmann::json& j) {
  if (requests == 0 || b.wall_ns <= a.wall_ns) return;
  const double n = static_cast<double>(requests);
  auto per_request_us = [&](int64_t ns) { return static_cast<double>(ns) / 1000.0 / n; };
  j["server_cpu_us"] = per_request_us(b.server.cpu_ns - a.server.cpu_ns);
  j["server_switches"] = static_cast<double>(b.server.switches - a.server.switches) / n;
  if (upstream) j["upstream_cpu_us"] = per_request_us(b.upstream.cpu_ns - a.upstream.cpu_ns);
  j["loadgen_cpu_us"] = per_request_us(b.loadgen_ns - a.loadgen_ns);
  j["idle"] = static_cast<double>(b.idle_ns - a.idle_ns) / static_cast<double>(b.wall_ns - a.wall_ns);
  if (bpf_stats) j["bpf_us"] = per_request_us(b.bpf.ns - a.bpf.ns);
}

// The guest boots with its loopback interface down: bring it up (as `ip link set lo up`).
void LoopbackUp() {
  const int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0 && !(ifr.ifr_flags & IFF_UP)) {
    ifr.ifr_flags |= IFF_UP;
    ioctl(s, SIOCSIFFLAGS, &ifr);
  }
  close(s);
}

pid_t Spawn(const std::vector<std::string>& argv) {
  const pid_t pid = fork();
  if (pid == 0) {
    // Its outputs are not ours: keep the BENCH lines easy to find (stderr stays, for errors).
    const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) dup2(null, STDOUT_FILENO);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    std::fprintf(stderr, "uringc-bench: cannot run %s: %s\n", args[0], strerror(errno));
    _exit(127);
  }
  return pid;
}

// "" while `pid` still runs, else how it ended.
std::string Ended(pid_t pid, int* status) {
  if (waitpid(pid, status, WNOHANG) != pid) return "";
  if (WIFSIGNALED(*status)) return std::string("killed by signal ") + strsignal(WTERMSIG(*status));
  return "exited with status " + std::to_string(WEXITSTATUS(*status));
}

// SIGINT, then up to 10 s for a clean exit (0, or 130: `uringc-run` interrupted); "" if so.
std::string Stop(pid_t pid, const std::string& what) {
  int status = 0;
  std::string ended = Ended(pid, &status);
  if (!ended.empty()) return what + " stopped by itself before the end: " + ended;
  kill(pid, SIGINT);
  for (int i = 0; i < 1000 && (ended = Ended(pid, &status)).empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (ended.empty()) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return what + " did not stop within 10 s of SIGINT";
  }
  if (WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 130)) return "";
  return what + " " + ended + " when stopped";
}

// Starts `argv` and waits until `port` accepts; "" when up.
std::string Start(const std::vector<std::string>& argv, uint16_t port, pid_t* pid) {
  *pid = Spawn(argv);
  if (WaitForPort(port, 30)) return "";
  int status = 0;
  const std::string ended = Ended(*pid, &status);
  if (ended.empty()) Stop(*pid, argv[0]);
  *pid = -1;
  return argv[0] + " did not listen on port " + std::to_string(port) + " within 30 s" +
         (ended.empty() ? "" : " (" + ended + ")");
}

}  // namespace

bool RunServer(const std::string& workload, const ServerRun& run) {
  LoadResult r;
  pid_t upstream = -1, server = -1;
  LoopbackUp();
  if (!run.upstream.empty()) r.error = Start(run.upstream, run.upstream_port, &upstream);
  if (r.error.empty()) r.error = Start(run.server, run.load.port, &server);
  Reading opened, closed;
  int stats_fd = -1;
  if (r.error.empty() && run.bpf_stats) {
    stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);  // counts while it is open
    if (stats_fd < 0) {
      r.error = std::string("cannot switch on BPF run-time statistics: ") + strerror(errno);
    }
  }
  if (r.error.empty()) {
    LoadSpec load = run.load;
    load.window_opened = [&] { opened = Reading::Take(server, upstream, run.bpf_stats); };
    load.window_closed = [&] { closed = Reading::Take(server, upstream, run.bpf_stats); };
    r = RunLoad(load);
    const std::string stopped = Stop(server, "the server");
    if (r.error.empty()) r.error = stopped;
  }
  if (upstream > 0) {
    const std::string stopped = Stop(upstream, "the upstream");
    if (r.error.empty()) r.error = stopped;
  }
  nlohmann::json j = {{"workload", workload}, {"ok", r.error.empty()},
                      {"conns", run.load.conns}, {"requests", r.requests},
                      {"seconds", r.seconds}, {"p50_us", r.p50_us}, {"p99_us", r.p99_us},
                      {"max_us", r.max_us}, {"first_reply_ms", r.first_reply_ms},
                      {"ready_ms", r.ready_ms}};
  if (r.seconds > 0) j["req_s"] = static_cast<double>(r.requests) / r.seconds;
  AddCosts(opened, closed, r.requests, run.bpf_stats, upstream > 0, j);
  if (stats_fd >= 0) close(stats_fd);
  if (!r.error.empty()) j["error"] = r.error;
  std::printf("BENCH %s\n", j.dump().c_str());
  std::fflush(stdout);
  if (!r.error.empty()) std::fprintf(stderr, "uringc-bench: %s: %s\n", workload.c_str(), r.error.c_str());
  return r.error.empty();
}

}  // namespace uringc_bench
