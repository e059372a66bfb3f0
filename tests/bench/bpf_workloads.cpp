// Loading and timing a controller through the runtime (bpf_workloads.h). Buffers parameters get
// their declared size in fresh anonymous memory, as `uringc run` gives them; the run is timed
// from the first io_uring_enter to the controller's finish. With bpf_stats the kernel's own
// run-time statistics say how much of that time the controller's loop_step calls took.
#include "bpf_workloads.h"

#include <bpf/bpf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include "bench_ring.h"
#include "bpf_stats.h"
#include "uringc/controller.h"
#include "uringc/ring.h"

namespace uringc_bench {
namespace {

struct Mapping {
  explicit Mapping(size_t n) : size(n) {
    p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  }
  ~Mapping() {
    if (p != MAP_FAILED) munmap(p, size);
  }
  void* p;
  size_t size;
};

// The ring `choice` names, kept alive in `owned` / `mapped`; nullptr and *error on failure.
uringc::Ring* MakeRing(const BpfRingChoice& choice, size_t mem_min,
                       std::unique_ptr<uringc::Ring>* owned, std::unique_ptr<BenchRing>* mapped,
                       std::string* error) {
  RingMode mode;
  if (uringc::ParseRingMode(choice.mode, &mode) && mode != RingMode::kAuto) {
    if (mem_min > 0) {
      *error =
          "the controller needs a parameter region, which a hand-mapped ring has not: use "
          "--ring=runtime";
      return nullptr;
    }
    *mapped = BenchRing::Create(mode, choice.sq_entries, choice.cq_entries, error);
    if (!*mapped) return nullptr;
    auto r = uringc::Ring::Borrow((*mapped)->fd(), (*mapped)->params());
    if (!r) {
      *error = r.error().message;
      return nullptr;
    }
    *owned = std::move(*r);
    return owned->get();
  }
  uringc::RingOptions ro;
  ro.sq_entries = choice.sq_entries;
  ro.cq_entries = choice.cq_entries;
  ro.mem_region_size = mem_min;
  const std::string prefix = "runtime-";
  if (choice.mode == "runtime") {
    ro.mode = RingMode::kAuto;
  } else if (choice.mode.compare(0, prefix.size(), prefix) != 0 ||
             !uringc::ParseRingMode(choice.mode.substr(prefix.size()), &ro.mode)) {
    *error = "unknown ring mode `" + choice.mode +
             "` (runtime, runtime-rewind, runtime-tail, rewind, tail)";
    return nullptr;
  }
  auto r = uringc::Ring::Create(ro);
  if (!r) {
    *error = r.error().message;
    return nullptr;
  }
  *owned = std::move(*r);
  return owned->get();
}

}  // namespace

Measurement RunBpf(const BpfRun& run) {
  Measurement m;
  m.copy = run.copy;
  auto ctl = run.host ? uringc::Controller::OpenProgram(*run.host, uringc::Engine::kHost)
                      : uringc::Controller::OpenFile(run.object);
  if (!ctl) {
    m.error = ctl.error().message;
    return m;
  }
  uringc::Controller& c = **ctl;
  for (const auto& [name, value] : run.ints) {
    if (c.globals().Has(name)) {
      auto r = c.SetInt(name, value);
      if (!r) m.error = r.error().message;
    }
  }
  std::vector<std::unique_ptr<Mapping>> buffers;
  for (const uringc::BufferParam& b : c.buffer_params()) {
    buffers.push_back(std::make_unique<Mapping>(b.bytes));
    auto r = buffers.back()->p == MAP_FAILED ? uringc::Result<void>(uringc::MakeError(
                                                   uringc::DiagKind::kOutOfMemory, ENOMEM, "mmap"))
                                             : c.SetBuffer(b.name, buffers.back()->p, b.bytes);
    if (!r) m.error = r.error().message;
  }
  if (!m.error.empty()) return m;
  size_t mem_min = 0;  // compiled graphs declare the parameter region they need
  if (c.globals().Has("uringc_mem_min")) {
    auto v = c.GetInt("uringc_mem_min");
    if (v) mem_min = static_cast<size_t>(*v);
  }
  std::unique_ptr<uringc::Ring> owned;
  std::unique_ptr<BenchRing> mapped;
  uringc::Ring* ring = MakeRing(run.ring, mem_min, &owned, &mapped, &m.error);
  if (!ring) return m;
  if (auto r = c.Load(*ring); !r) {
    m.error = r.error().message;
    return m;
  }
  if (auto insns = c.VerifiedInsns()) m.processed = static_cast<int64_t>(*insns);
  if (auto r = c.Attach(); !r) {
    m.error = r.error().message;
    return m;
  }
  // The statistics stay on while the returned descriptor is open.
  const bool timed = run.bpf_stats && !run.host;  // the host engine runs no BPF
  const int stats_fd = timed ? bpf_enable_stats(BPF_STATS_RUN_TIME) : -1;
  if (timed && stats_fd < 0) {
    m.error = std::string("cannot switch on BPF run-time statistics: ") + strerror(errno);
    return m;
  }
  const ProgramTime before = stats_fd >= 0 ? StructOpsTime() : ProgramTime{};
  const auto start = std::chrono::steady_clock::now();
  auto out = c.Run();
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (stats_fd >= 0) {
    const ProgramTime after = StructOpsTime();
    m.bpf_ns = after.ns - before.ns;
    m.bpf_runs = after.runs - before.runs;
    close(stats_fd);
  }
  if (!out) {
    m.error = out.error().message;
    return m;
  }
  m.enters = static_cast<int64_t>(out->stats.enters);
  if (out->stats.steps_known) m.steps = static_cast<int64_t>(out->stats.steps);
  if (out->status != uringc::RunStatus::kDone) {
    m.error = std::string("the controller ended ") + uringc::RunStatusName(out->status) +
              " (error " + std::to_string(out->controller_error) + ")";
    return m;
  }
  m.ops = run.ops;
  for (const auto& [name, want] : run.expected) {
    auto got = c.GetInt(name);
    if (!got || static_cast<uint64_t>(*got) != want) {
      m.error = "`" + name + "` is " + (got ? std::to_string(*got) : got.error().message) +
                ", not " + std::to_string(want);
    }
  }
  return m;
}

}  // namespace uringc_bench
