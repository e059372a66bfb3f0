// The fixture of the compiled-program kernel tests (compiled_test.cpp, compiled_requests_test.cpp):
// opens an embedded object compiled from `.uring` through the runtime's C++ API (Controller,
// Ring), sets its parameters, loads, attaches and runs it, and reads its outputs; host buffers,
// pipes and temporary files for the programs to work on.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "host_programs.h"
#include "kernel_test_util.h"
#include "uringc/controller.h"
#include "uringc/ring.h"

namespace uringc_test {

using uringc::Controller;
using uringc::Ring;
using uringc::RingMode;
using uringc::RunOutcome;
using uringc::RunStatus;
using Clock = std::chrono::steady_clock;

// Host memory for a buffers parameter; unmapped at the end of the test.
struct HostBuffer {
  explicit HostBuffer(size_t n) : size(n) {
    p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  }
  ~HostBuffer() { munmap(p, size); }
  uint64_t addr() const { return reinterpret_cast<uintptr_t>(p); }
  void* p;
  size_t size;
};

// Two pipes (read end [0], write end [1]), closed at the end of the test.
struct TwoPipes {
  TwoPipes() { ok = pipe2(a, O_CLOEXEC) == 0 && pipe2(b, O_CLOEXEC) == 0; }
  ~TwoPipes() {
    for (int fd : {a[0], a[1], b[0], b[1]}) {
      if (fd >= 0) close(fd);
    }
  }
  int a[2] = {-1, -1};
  int b[2] = {-1, -1};
  bool ok = false;
};

class Compiled : public ::testing::Test {
 protected:
  // Opens `obj` (on the host engine: the host program built from the same source), lets `set`
  // fill in parameters, loads and attaches. False: the test is over (skipped or failed) and the
  // caller returns.
  void Open(const Embedded& obj, const char* name,
            const std::function<void(Controller&)>& set = {}) {
    uringc::ControllerOptions o;
    o.object_name = name;
    const uringc_program* host = OnHostEngine() ? HostProgramFor(obj.begin) : nullptr;
    if (OnHostEngine()) ASSERT_NE(host, nullptr) << name << " has no host build";
    auto c = host ? Controller::OpenProgram(*host, uringc::Engine::kHost, o)
                  : Controller::OpenMemory(obj.begin, obj.size(), o);
    ASSERT_TRUE(c.ok()) << c.error().message;
    ctl_ = std::move(*c);
    if (set) set(*ctl_);
    uringc::RingOptions ro;
    ro.sq_entries = 64;
    ro.mem_region_size = static_cast<size_t>(*ctl_->GetInt("uringc_mem_min"));
    ro.mode = ring_mode_;
    auto r = Ring::Create(ro);
    if (!r.ok() && r.error().code == -EINVAL && ring_mode_ == RingMode::kRewind &&
        !uringc_test::FeatureRequired()) {
      GTEST_SKIP() << "kernel lacks SQ_REWIND (Linux 7.0+), and so io_uring_bpf_ops";
    }
    ASSERT_TRUE(r.ok()) << r.error().message;
    ring_ = std::move(*r);
    if (ring_mode_ != uringc::RingMode::kAuto) {
      ASSERT_EQ(ring_->rewind(), ring_mode_ == uringc::RingMode::kRewind);
    }
    auto loaded = ctl_->Load(*ring_);
    URINGC_SKIP_IF_NO_BPF_OPS(loaded);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    auto attached = ctl_->Attach();
    ASSERT_TRUE(attached.ok()) << attached.error().message;
    ready_ = true;
  }

  RunOutcome Run(bool return_on_interrupt = false) {
    uringc::RunOptions ro;
    ro.return_on_interrupt = return_on_interrupt;
    auto out = ctl_->Run(ro);
    EXPECT_TRUE(out.ok()) << out.error().message;
    return out.ok() ? *out : RunOutcome{};
  }

  int64_t Get(const std::string& name) {
    auto v = ctl_->GetInt(name);
    EXPECT_TRUE(v.ok()) << name << ": " << v.error().message;
    return v.ok() ? *v : -1;
  }

  void Set(const std::string& name, int64_t v) {
    auto r = ctl_->SetInt(name, v);
    ASSERT_TRUE(r.ok()) << name << ": " << r.error().message;
  }
  void SetU(const std::string& name, uint64_t v) {
    auto r = ctl_->SetUint(name, v);
    ASSERT_TRUE(r.ok()) << name << ": " << r.error().message;
  }
  // Buffers parameters take a pointer and a length (the runtime refuses shorter memory).
  void SetBuf(const std::string& name, const HostBuffer& buf) {
    auto r = ctl_->SetBuffer(name, buf.p, buf.size);
    ASSERT_TRUE(r.ok()) << name << ": " << r.error().message;
  }

  // After the graph ended: nothing in flight, and no CQE appears later. A graph that cannot
  // leave requests behind (one task, no timeouts) has no in-flight counter; the CQ checks remain.
  void ExpectNothingLeft(const std::string& graph) {
    const std::string inflight = "uringc_" + graph + "_inflight";
    if (ctl_->globals().Has(inflight)) {
      EXPECT_EQ(Get(inflight), 0);
    }
    EXPECT_EQ(ring_->CqReady(), 0u);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(ring_->CqReady(), 0u) << "a completion arrived after the graph ended";
  }

  // The reads on pipe `p` were cancelled, so they took nothing: data written now is all there.
  static void ExpectCancelledReadsLeftThePipe(const int p[2]) {
    ASSERT_EQ(write(p[1], "late", 4), 4);
    char got[8] = {};
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    EXPECT_EQ(read(p[0], got, sizeof(got)), 4);
    EXPECT_STREQ(got, "late");
  }

  // Opens `obj` with the pipes' read ends as parameters `a` and `b` and `buf` at `buf`.
  void OpenWithPipes(const Embedded& obj, const char* name, const TwoPipes& p,
                     const HostBuffer& buf) {
    ASSERT_TRUE(p.ok);
    Open(obj, name, [&](Controller&) {
      Set("a", p.a[0]);
      Set("b", p.b[0]);
      SetBuf("buf", buf);
    });
  }

  std::unique_ptr<Controller> ctl_;
  std::unique_ptr<Ring> ring_;
  bool ready_ = false;
  uringc::RingMode ring_mode_ = uringc::RingMode::kAuto;  // RingOptions::mode of Open()'s ring
};

// Per process: two checkouts (or CTest and a VM run) may run these tests at the same time.
inline std::string TempPath(const std::string& name) {
  return "/tmp/uringc_compiled_" + std::to_string(getpid()) + "_" + name;
}

// Descriptors this process has open.
inline size_t OpenFds() {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return 0;
  size_t n = 0;
  while (readdir(dir) != nullptr) n++;
  closedir(dir);
  return n;
}

inline std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

inline void WriteAll(const std::string& path, const std::string& data) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(data.data(), static_cast<std::streamsize>(data.size()));
}

}  // namespace uringc_test
