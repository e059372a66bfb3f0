// Starting, waiting for, and stopping the benchmark's servers (server_workloads.h).
#include "server_workloads.h"

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

namespace uringc_bench {
namespace {

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
  if (r.error.empty()) {
    r = RunLoad(run.load);
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
  if (!r.error.empty()) j["error"] = r.error;
  std::printf("BENCH %s\n", j.dump().c_str());
  std::fflush(stdout);
  if (!r.error.empty()) std::fprintf(stderr, "uringc-bench: %s: %s\n", workload.c_str(), r.error.c_str());
  return r.error.empty();
}

}  // namespace uringc_bench
