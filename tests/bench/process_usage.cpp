// UsageOf and IdleNs (process_usage.h). schedstat's first field is the task's time on the CPU in
// ns (finer than /proc/PID/stat's clock ticks, which a 2 s window would cut to 10 ms steps).
#include "process_usage.h"

#include <dirent.h>

#include <fstream>
#include <sstream>
#include <string>

namespace uringc_bench {
namespace {

int64_t FirstNumber(const std::string& path) {
  std::ifstream in(path);
  int64_t v = 0;
  in >> v;
  return v;
}

int64_t SwitchesIn(const std::string& status_path) {
  std::ifstream in(status_path);
  int64_t sum = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("voluntary_ctxt_switches:", 0) == 0 ||
        line.rfind("nonvoluntary_ctxt_switches:", 0) == 0) {
      sum += std::stoll(line.substr(line.find(':') + 1));
    }
  }
  return sum;
}

}  // namespace

ProcessUsage UsageOf(pid_t pid) {
  ProcessUsage u;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = opendir(dir.c_str());
  if (!d) return u;
  while (const dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    const std::string task = dir + "/" + e->d_name;
    u.cpu_ns += FirstNumber(task + "/schedstat");
    u.switches += SwitchesIn(task + "/status");
  }
  closedir(d);
  return u;
}

int64_t IdleNs() {
  std::ifstream in("/proc/uptime");
  double up = 0, idle = 0;
  in >> up >> idle;
  return static_cast<int64_t>(idle * 1e9);
}

}  // namespace uringc_bench
