// "If it compiles, it loads": runs the corpus build_corpus.py packed (random valid programs and
// the kept regressions) on a real kernel, one fresh ring per program: each must have compiled,
// pass the verifier, attach, and run to its end (done, or failed by its own `fail` or a bad
// buffer index) within 10 s, leaving nothing in flight and no CQE behind. Each program also runs
// on the host engine (its --target=host build, dlopen()ed), and the two engines must end with the
// same status, error and outputs; on a kernel without io_uring_bpf_ops the host engine runs
// alone. Every failure names the program; its source is in the pack and in the corpus directory
// of the build tree.
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "uringc/controller.h"
#include "uringc/ring.h"

namespace {

struct Program {
  std::string name, source, object, message, shared;  // shared: the host build (a .so)
};

bool ReadPack(const std::string& path, std::vector<Program>& out) {
  std::ifstream f(path, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(f)), {});
  if (data.rfind("URPK2\n", 0) != 0) return false;
  size_t at = 6;
  while (at + 20 <= data.size()) {
    uint32_t len[5];
    std::memcpy(len, data.data() + at, 20);
    at += 20;
    Program p;
    std::string* fields[5] = {&p.name, &p.source, &p.object, &p.message, &p.shared};
    for (int i = 0; i < 5; ++i) {
      if (at + len[i] > data.size()) return false;
      fields[i]->assign(data.data() + at, len[i]);
      at += len[i];
    }
    out.push_back(std::move(p));
  }
  return true;
}

// A program's host build, dlopen()ed from a file of its own; closed with the object.
class HostBuild {
 public:
  bool Open(const Program& p, std::string& error) {
    path_ = "/tmp/uringc_corpus_" + std::to_string(getpid()) + "_" + p.name + ".so";
    {
      std::ofstream f(path_, std::ios::binary | std::ios::trunc);
      f.write(p.shared.data(), static_cast<std::streamsize>(p.shared.size()));
    }
    handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) {
      error = dlerror();
      return false;
    }
    program_ = static_cast<const uringc_program*>(dlsym(handle_, "uringc_corpus_program"));
    if (program_ == nullptr) error = "no uringc_corpus_program in the host build";
    return program_ != nullptr;
  }
  ~HostBuild() {
    if (handle_) dlclose(handle_);
    if (!path_.empty()) unlink(path_.c_str());
  }
  const uringc_program& program() const { return *program_; }

 private:
  std::string path_;
  void* handle_ = nullptr;
  const uringc_program* program_ = nullptr;
};

// What a run ended with, as the engines must agree on it: the status, uringc_error and every
// output's value.
struct Outcome {
  uringc::RunStatus status = uringc::RunStatus::kDone;
  int32_t error = 0;
  std::string outputs;
  std::string Describe() const {
    return std::string(uringc::RunStatusName(status)) + " (" + std::to_string(error) + ") " +
           outputs;
  }
  bool operator==(const Outcome& o) const {
    return status == o.status && error == o.error && outputs == o.outputs;
  }
};

volatile sig_atomic_t alarmed = 0;
void OnAlarm(int) { alarmed = 1; }

TEST(Corpus, EveryGeneratedProgramLoadsAndTerminates) {
  const char* path = std::getenv("URINGC_CORPUS");
  if (path == nullptr) path = URINGC_DEFAULT_CORPUS;
  std::vector<Program> programs;
  ASSERT_TRUE(ReadPack(path, programs)) << "cannot read the corpus " << path;
  ASSERT_FALSE(programs.empty());
  // Both engines where the kernel has io_uring_bpf_ops (the VM), their outcomes compared; the
  // host engine alone with URINGC_TEST_ENGINE=host or on a kernel without it (this machine).
  bool kernel = !uringc_test::OnHostEngine();
  if (kernel) {
    auto f = uringc::DetectKernelFeatures();
    if (!f || !uringc::CheckKernelFeatures(*f)) {
      if (uringc_test::FeatureRequired()) FAIL() << "the kernel lacks io_uring_bpf_ops";
      std::printf("corpus: the kernel lacks io_uring_bpf_ops; the host engine only\n");
      kernel = false;
    }
  }

  struct sigaction sa {};
  sa.sa_handler = OnAlarm;
  sigaction(SIGALRM, &sa, nullptr);
  const std::string file = "/tmp/uringc_corpus_f_" + std::to_string(getpid());  // per process
  void* buf = mmap(nullptr, 4 * 256, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(buf, MAP_FAILED);

  size_t runs = 0, done = 0, failed_by_program = 0, bad_index = 0, compared = 0;
  std::vector<std::string> problems;
  std::vector<double> load_ms;
  const auto start = std::chrono::steady_clock::now();
  for (const Program& p : programs) {
    auto problem = [&](const std::string& what) { problems.push_back(p.name + ": " + what); };
    if (p.object.empty() || p.shared.empty()) {
      problem("did not compile\n" + p.message);
      continue;
    }
    HostBuild host;
    std::string error;
    if (!host.Open(p, error)) {
      problem("cannot open its host build: " + error);
      continue;
    }
    // One run on a fresh ring, the file and the buffers as they were; nullopt after a problem.
    auto run_on = [&](uringc::Engine engine) -> std::optional<Outcome> {
      const std::string on = std::string(" on the ") + uringc::EngineName(engine) + " engine";
      {
        std::ofstream f(file, std::ios::binary | std::ios::trunc);
        f << std::string(8192, 'u');
      }
      std::memset(buf, 0, 4 * 256);
      uringc::ControllerOptions o;
      o.object_name = p.name;
      auto c = engine == uringc::Engine::kHost
                   ? uringc::Controller::OpenProgram(host.program(), engine, o)
                   : uringc::Controller::OpenMemory(p.object.data(), p.object.size(), o);
      if (!c) {
        problem("open" + on + ": " + c.error().message);
        return std::nullopt;
      }
      uringc::Controller& ctl = **c;
      const int fd = open(file.c_str(), O_RDWR | O_CLOEXEC);
      int pp[2] = {-1, -1};
      std::optional<Outcome> result;
      auto set = [&] {
        if (fd < 0 || pipe2(pp, O_CLOEXEC) != 0)
          return uringc::Result<void>(uringc::MakeError(uringc::DiagKind::kFileError, EMFILE,
                                                        "cannot make its descriptors"));
        if (auto r = ctl.SetInt("f", fd); !r) return r;
        if (auto r = ctl.SetInt("p", pp[0]); !r) return r;
        return ctl.SetBuffer("buf", buf, 4 * 256);
      }();
      uringc::RingOptions ro;
      ro.mem_region_size = static_cast<size_t>(*ctl.GetInt("uringc_mem_min"));
      auto ring = uringc::Ring::Create(ro);
      if (!set || !ring) {
        problem("setup" + on + ": " + (!set ? set.error().message : ring.error().message));
      } else if (const auto t0 = std::chrono::steady_clock::now(); auto l = ctl.Load(**ring)) {
        if (engine == uringc::Engine::kKernel) {
          load_ms.push_back(
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                  .count());
        }
        if (auto a = ctl.Attach(); !a) {
          problem("attach" + on + ": " + a.error().message);
        } else {
          ++runs;
          alarmed = 0;
          alarm(10);
          uringc::RunOptions run;
          run.return_on_interrupt = true;
          auto out = ctl.Run(run);
          alarm(0);
          if (!out) {
            problem("run" + on + ": " + out.error().message);
          } else if (out->status == uringc::RunStatus::kInterrupted) {
            problem("did not terminate within 10 s" + on + "\n--- source ---\n" + p.source);
          } else {
            if (out->status == uringc::RunStatus::kDone) ++done;
            bool ok = true;
            if (out->status == uringc::RunStatus::kFailed) {
              // Only the program's own failures are expected: EIO/EPERM/EINVAL/EAGAIN/ETIME,
              // and EFAULT raised by a buffer index out of range (gen_programs.py makes some).
              const int e = -out->controller_error;
              if (e == EIO || e == EPERM || e == EINVAL || e == EAGAIN || e == ETIME ||
                  e == EFAULT) {
                ++failed_by_program;
                if (e == EFAULT) ++bad_index;
              } else {
                ok = false;
                problem("failed with " + std::to_string(out->controller_error) + on +
                        " (not a `fail` of the program)\n--- source ---\n" + p.source);
              }
            }
            // The graph's name (a kept regression's file may be named otherwise): `<graph>_ops`.
            // Graphs that cannot leave requests behind (one task, no timeouts) have no counter.
            const std::string& ops = ctl.ops_map_name();
            const std::string counter =
                "uringc_" + ops.substr(0, ops.size() - std::string("_ops").size()) + "_inflight";
            auto inflight =
                ctl.globals().Has(counter) ? ctl.GetInt(counter) : uringc::Result<int64_t>(0);
            const uint32_t cqes = (*ring)->CqReady();
            if (!inflight) {
              ok = false;
              problem("cannot read " + counter + on + ": " + inflight.error().message);
            } else if (*inflight != 0 || cqes != 0) {
              ok = false;
              problem("left requests in flight or CQEs behind" + on + ": ended " +
                      std::string(uringc::RunStatusName(out->status)) + " (" +
                      std::to_string(out->controller_error) + "), in flight " +
                      std::to_string(*inflight) + ", CQEs " + std::to_string(cqes) +
                      "\n--- source ---\n" + p.source);
            }
            if (ok) {
              Outcome o{out->status, out->controller_error, ""};
              for (const uringc::GlobalVar& v : ctl.globals().vars()) {
                if (v.read_only() || v.name.rfind("uringc_", 0) == 0) continue;
                auto text = ctl.Format(v.name);
                o.outputs += v.name + "=" + (text ? *text : "?") + " ";
              }
              result = o;
            }
          }
        }
      } else if (engine == uringc::Engine::kKernel) {
        problem("REJECTED BY THE VERIFIER\n" + l.error().message + "\n--- source ---\n" + p.source);
      } else {
        problem("load" + on + ": " + l.error().message);
      }
      c->reset();
      ring->reset();
      if (fd >= 0) close(fd);
      if (pp[0] >= 0) close(pp[0]);
      if (pp[1] >= 0) close(pp[1]);
      return result;
    };
    const std::optional<Outcome> on_host = run_on(uringc::Engine::kHost);
    if (kernel) {
      const std::optional<Outcome> on_kernel = run_on(uringc::Engine::kKernel);
      if (on_host && on_kernel) {
        ++compared;
        if (!(*on_host == *on_kernel)) {
          problem("THE ENGINES DISAGREE: kernel " + on_kernel->Describe() + "; host " +
                  on_host->Describe() + "\n--- source ---\n" + p.source);
        }
      }
    }
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::sort(load_ms.begin(), load_ms.end());
  std::printf(
      "corpus: %zu programs, %zu runs (%zu done, %zu failed by their own `fail`, %zu of "
      "them by a bad buffer index), %zu compared across the engines, %zu problems; "
      "kernel load median %.1f ms, max %.1f ms; %.1f s in all\n",
      programs.size(), runs, done, failed_by_program, bad_index, compared, problems.size(),
      load_ms.empty() ? 0 : load_ms[load_ms.size() / 2], load_ms.empty() ? 0 : load_ms.back(),
      total);
  for (size_t i = 5; i < problems.size(); ++i) {  // the first five in full below
    std::printf("also: %s\n", problems[i].substr(0, problems[i].find('\n')).c_str());
  }
  for (size_t i = 0; i < problems.size() && i < 5; ++i) {
    ADD_FAILURE() << problems[i];
  }
  EXPECT_TRUE(problems.empty()) << problems.size() << " programs failed";
  // The pack holds URINGC_CORPUS_COUNT generated programs plus the regressions: a short pack
  // (a broken build of the corpus) must not pass as a small success.
  EXPECT_GE(runs, static_cast<size_t>(URINGC_CORPUS_COUNT) * (kernel ? 2 : 1));
  if (kernel) {
    EXPECT_GE(compared, static_cast<size_t>(URINGC_CORPUS_COUNT));
  }
  munmap(buf, 4 * 256);
  unlink(file.c_str());
}

}  // namespace
