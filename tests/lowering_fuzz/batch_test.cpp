// "If it compiles, it loads": runs the corpus build_corpus.py packed (random valid programs and
// the kept regressions) on a real kernel, one fresh ring per program: each must have compiled,
// pass the verifier, attach, and run to its end (done, or failed by its own `fail` or a bad
// buffer index) within 10 s, leaving nothing in flight and no CQE behind. Every failure names the
// program; its source is in the pack and in the corpus directory of the build tree.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "uringc/controller.h"
#include "uringc/ring.h"

namespace {

struct Program {
  std::string name, source, object, message;
};

bool ReadPack(const std::string& path, std::vector<Program>& out) {
  std::ifstream f(path, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(f)), {});
  if (data.rfind("URPK1\n", 0) != 0) return false;
  size_t at = 6;
  while (at + 16 <= data.size()) {
    uint32_t len[4];
    std::memcpy(len, data.data() + at, 16);
    at += 16;
    Program p;
    std::string* fields[4] = {&p.name, &p.source, &p.object, &p.message};
    for (int i = 0; i < 4; ++i) {
      if (at + len[i] > data.size()) return false;
      fields[i]->assign(data.data() + at, len[i]);
      at += len[i];
    }
    out.push_back(std::move(p));
  }
  return true;
}

volatile sig_atomic_t alarmed = 0;
void OnAlarm(int) { alarmed = 1; }

TEST(Corpus, EveryGeneratedProgramLoadsAndTerminates) {
  const char* path = std::getenv("URINGC_CORPUS");
  if (path == nullptr) path = URINGC_DEFAULT_CORPUS;
  std::vector<Program> programs;
  ASSERT_TRUE(ReadPack(path, programs)) << "cannot read the corpus " << path;
  ASSERT_FALSE(programs.empty());

  struct sigaction sa {};
  sa.sa_handler = OnAlarm;
  sigaction(SIGALRM, &sa, nullptr);
  const std::string file = "/tmp/uringc_corpus_f_" + std::to_string(getpid());  // per process
  {
    std::ofstream f(file, std::ios::binary | std::ios::trunc);
    f << std::string(8192, 'u');
  }
  void* buf = mmap(nullptr, 4 * 256, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(buf, MAP_FAILED);

  size_t loaded = 0, done = 0, failed_by_program = 0, bad_index = 0;
  std::vector<std::string> problems;
  std::vector<double> load_ms;
  const auto start = std::chrono::steady_clock::now();
  for (const Program& p : programs) {
    auto problem = [&](const std::string& what) {
      problems.push_back(p.name + ": " + what);
    };
    if (p.object.empty()) {
      problem("did not compile\n" + p.message);
      continue;
    }
    uringc::ControllerOptions o;
    o.object_name = p.name;
    auto c = uringc::Controller::OpenMemory(p.object.data(), p.object.size(), o);
    if (!c) {
      problem("open: " + c.error().message);
      continue;
    }
    uringc::Controller& ctl = **c;
    const int fd = open(file.c_str(), O_RDWR | O_CLOEXEC);
    int pp[2];
    if (fd < 0 || pipe2(pp, O_CLOEXEC) != 0) {
      problem("cannot make its descriptors");
      continue;
    }
    auto set = [&] {
      if (auto r = ctl.SetInt("f", fd); !r) return r;
      if (auto r = ctl.SetInt("p", pp[0]); !r) return r;
      return ctl.SetBuffer("buf", buf, 4 * 256);
    }();
    uringc::RingOptions ro;
    ro.mem_region_size = static_cast<size_t>(*ctl.GetInt("uringc_mem_min"));
    auto ring = uringc::Ring::Create(ro);
    if (!set || !ring) {
      problem("setup: " + (!set ? set.error().message : ring.error().message));
    } else {
      const auto t0 = std::chrono::steady_clock::now();
      auto l = ctl.Load(**ring);
      load_ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      if (!l && l.error().code == -ESRCH) {
        close(fd);
        close(pp[0]);
        close(pp[1]);
        URINGC_SKIP_IF_NO_BPF_OPS(l);
      }
      if (!l) {
        problem("REJECTED BY THE VERIFIER\n" + l.error().message + "\n--- source ---\n" + p.source);
      } else if (auto a = ctl.Attach(); !a) {
        problem("attach: " + a.error().message);
      } else {
        ++loaded;
        alarmed = 0;
        alarm(10);
        uringc::RunOptions run;
        run.return_on_interrupt = true;
        auto out = ctl.Run(run);
        alarm(0);
        if (!out) {
          problem("run: " + out.error().message);
        } else if (out->status == uringc::RunStatus::kInterrupted) {
          problem("did not terminate within 10 s\n--- source ---\n" + p.source);
        } else {
          if (out->status == uringc::RunStatus::kDone) ++done;
          if (out->status == uringc::RunStatus::kFailed) {
            // Only the program's own failures are expected: EIO/EPERM/EINVAL/EAGAIN/ETIME, and
            // EFAULT raised by a buffer index out of range (gen_programs.py makes some).
            const int e = -out->controller_error;
            if (e == EIO || e == EPERM || e == EINVAL || e == EAGAIN || e == ETIME ||
                e == EFAULT) {
              ++failed_by_program;
              if (e == EFAULT) ++bad_index;
            } else {
              problem("failed with " + std::to_string(out->controller_error) +
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
            problem("cannot read " + counter + ": " + inflight.error().message);
          } else if (*inflight != 0 || cqes != 0) {
            problem("left requests in flight or CQEs behind: ended " +
                    std::string(out->status == uringc::RunStatus::kDone ? "done" : "failed") +
                    " (" + std::to_string(out->controller_error) + "), in flight " +
                    std::to_string(*inflight) + ", CQEs " + std::to_string(cqes) +
                    "\n--- source ---\n" + p.source);
          }
        }
      }
    }
    c->reset();
    ring->reset();
    close(fd);
    close(pp[0]);
    close(pp[1]);
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::sort(load_ms.begin(), load_ms.end());
  std::printf("corpus: %zu programs, %zu loaded and ran (%zu done, %zu failed by their own `fail`, "
              "%zu of them by a bad buffer index), %zu problems; load median %.1f ms, max %.1f ms; "
              "%.1f s in all\n",
              programs.size(), loaded, done, failed_by_program, bad_index, problems.size(),
              load_ms.empty() ? 0 : load_ms[load_ms.size() / 2],
              load_ms.empty() ? 0 : load_ms.back(), total);
  for (size_t i = 5; i < problems.size(); ++i) {  // the first five in full below
    std::printf("also: %s\n", problems[i].substr(0, problems[i].find('\n')).c_str());
  }
  for (size_t i = 0; i < problems.size() && i < 5; ++i) {
    ADD_FAILURE() << problems[i];
  }
  EXPECT_TRUE(problems.empty()) << problems.size() << " programs failed";
  // The pack holds URINGC_CORPUS_COUNT generated programs plus the regressions: a short pack
  // (a broken build of the corpus) must not pass as a small success.
  EXPECT_GE(loaded, static_cast<size_t>(URINGC_CORPUS_COUNT));
  munmap(buf, 4 * 256);
  unlink(file.c_str());
}

}  // namespace
