// The BENCH line (measurement.h), as JSON so the host parses it with the standard library.
#include "measurement.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace uringc_bench {

void PrintMeasurement(const std::string& workload, const Measurement& m) {
  nlohmann::json j = {
      {"workload", workload}, {"ok", m.error.empty()}, {"ops", m.ops}, {"seconds", m.seconds}};
  if (m.seconds > 0 && m.ops > 0) {
    if (m.copy) {
      j["mb_s"] = static_cast<double>(m.ops) / m.seconds / 1e6;
    } else {
      j["ns_per_op"] = m.seconds * 1e9 / static_cast<double>(m.ops);
    }
  }
  if (m.steps >= 0) {
    j["steps"] = m.steps;
    // Per NOP, or per 4 KiB copied.
    const double units = m.copy ? static_cast<double>(m.ops) / 4096 : static_cast<double>(m.ops);
    if (units > 0) j["steps_per_op"] = static_cast<double>(m.steps) / units;
  }
  if (m.processed >= 0) j["processed"] = m.processed;
  if (m.enters >= 0) j["enters"] = m.enters;
  if (m.bpf_ns >= 0) {
    j["bpf_ns"] = m.bpf_ns;
    j["bpf_runs"] = m.bpf_runs;
    if (m.bpf_runs > 0)
      j["bpf_ns_per_step"] = static_cast<double>(m.bpf_ns) / static_cast<double>(m.bpf_runs);
  }
  if (!m.error.empty()) j["error"] = m.error;
  std::printf("BENCH %s\n", j.dump().c_str());
  std::fflush(stdout);
}

}  // namespace uringc_bench
