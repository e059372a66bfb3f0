// The runtime against a real kernel (run in the VM; skipped on kernels without io_uring_bpf_ops):
// loading by name, the parameter region, the run-state convention, and every error case the kernel
// produces (EOPNOTSUPP, EBUSY, EEXIST, EINTR, closed ring, detach + re-attach, exit while attached).
#include <gtest/gtest.h>
#include <liburing.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "kernel_test_util.h"
#include "uringc/controller.h"
#include "uringc/features.h"
#include "uringc/liburing_compat.h"
#include "uringc/ring.h"

URINGC_EMBEDDED(nop_named_bpf_object);
URINGC_EMBEDDED(nop_inflight_bpf_object);

namespace {

using uringc::Controller;
using uringc::ControllerOptions;
using uringc::Ring;
using uringc::RingOptions;
using uringc::RunOptions;
using uringc::RunStatus;

// nop_named and nop_inflight advance the SQ tail: they run on tail rings.
std::unique_ptr<Ring> MakeRing(size_t mem_region = 0) {
  RingOptions o;
  o.sq_entries = 64;
  o.mode = uringc::RingMode::kTail;
  o.mem_region_size = mem_region;
  auto r = Ring::Create(o);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r ? std::move(*r) : nullptr;
}

std::unique_ptr<Controller> OpenNamed(uint32_t inflight, uint64_t total) {
  ControllerOptions o;
  o.object_name = "nop_named";
  auto c = Controller::OpenMemory(nop_named_bpf_object_obj.begin, nop_named_bpf_object_obj.size(),
                                  o);
  EXPECT_TRUE(c.ok()) << c.error().message;
  if (!c) return nullptr;
  EXPECT_TRUE((*c)->SetUint("inflight", inflight).ok());
  EXPECT_TRUE((*c)->SetUint("total", total).ok());
  return std::move(*c);
}

uint64_t Get(Controller& c, const char* name) {
  auto v = c.GetInt(name);
  EXPECT_TRUE(v.ok()) << v.error().message;
  return v ? static_cast<uint64_t>(*v) : ~0ull;
}

class RuntimeTest : public ::testing::Test {
 protected:
  // Opens, loads and attaches nop_named on ring_; false (with the test skipped or failed) if not.
  bool Start(uint32_t inflight, uint64_t total, size_t mem_region = 0) {
    ring_ = MakeRing(mem_region);
    if (!ring_) return false;
    ctl_ = OpenNamed(inflight, total);
    if (!ctl_) return false;
    auto loaded = ctl_->Load(*ring_);
    if (!loaded.ok() && loaded.error().code == -ESRCH) {
      skipped_ = true;
      if (uringc_test::FeatureRequired()) ADD_FAILURE() << loaded.error().message;
      return false;
    }
    EXPECT_TRUE(loaded.ok()) << loaded.error().message;
    if (!loaded) return false;
    auto attached = ctl_->Attach();
    EXPECT_TRUE(attached.ok()) << attached.error().message;
    return attached.ok();
  }
  std::unique_ptr<Ring> ring_;
  std::unique_ptr<Controller> ctl_;
  bool skipped_ = false;
};

#define START_OR_RETURN(...)                                                        \
  do {                                                                              \
    if (!Start(__VA_ARGS__)) {                                                      \
      if (skipped_ && !uringc_test::FeatureRequired())                              \
        GTEST_SKIP() << "kernel lacks io_uring_bpf_ops (Linux 7.1+ needed)";        \
      return;                                                                       \
    }                                                                               \
  } while (0)

TEST_F(RuntimeTest, NamedGlobalsRunToDoneWithStatistics) {
  START_OR_RETURN(8, 10000);
  auto out = ctl_->Run();
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->status, RunStatus::kDone);
  EXPECT_EQ(out->controller_error, 0);
  EXPECT_EQ(Get(*ctl_, "completed"), 10000u);
  EXPECT_EQ(Get(*ctl_, "submitted"), 10000u);
  EXPECT_EQ(Get(*ctl_, "failed"), 0u);
  EXPECT_EQ(Get(*ctl_, "max_inflight"), 8u);
  EXPECT_TRUE(out->stats.steps_known);
  EXPECT_GE(out->stats.steps, 10000u / 8);
  EXPECT_EQ(out->stats.steps, Get(*ctl_, "uringc_steps"));
  EXPECT_GE(out->stats.enters, 1u);
  EXPECT_GT(out->stats.wall_seconds, 0.0);
  // The load filled the ring constants the object declares.
  EXPECT_EQ(Get(*ctl_, "uringc_sq_entries"), ring_->layout().sq_entries);
  EXPECT_EQ(Get(*ctl_, "uringc_cqes_off"), ring_->layout().cqes_off);
}

TEST_F(RuntimeTest, ParameterRegionIsSharedWithTheController) {
  START_OR_RETURN(4, 500, 4096);
  ASSERT_NE(ring_->mem_region(), nullptr);
  EXPECT_EQ(Get(*ctl_, "uringc_mem_size"), 4096u);
  auto out = ctl_->Run();
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->status, RunStatus::kDone);
  uint64_t mirrored = 0;
  memcpy(&mirrored, ring_->mem_region(), sizeof(mirrored));
  EXPECT_EQ(mirrored, 500u);
}

TEST_F(RuntimeTest, LoadTimeConstantsAreReadOnlyAfterLoad) {
  START_OR_RETURN(1, 10);
  auto r = ctl_->SetUint("inflight", 2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, -EPERM);
  EXPECT_NE(r.error().message.find("before load"), std::string::npos) << r.error().message;
}

TEST_F(RuntimeTest, SecondControllerOnARingIsEbusyAndTheFirstKeepsWorking) {
  START_OR_RETURN(2, 1000);
  auto second = OpenNamed(1, 1);
  ASSERT_NE(second, nullptr);
  ASSERT_TRUE(second->Load(*ring_).ok());
  auto r = second->Attach();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, -EBUSY);
  EXPECT_NE(r.error().message.find("already has a controller"), std::string::npos)
      << r.error().message;
  auto out = ctl_->Run();
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(Get(*ctl_, "completed"), 1000u);
}

TEST_F(RuntimeTest, WrongThreadIsEexistThenTheOwnerRuns) {
  START_OR_RETURN(2, 1000);
  uringc::Result<uringc::RunOutcome> other =
      uringc::MakeError(uringc::DiagKind::kApiMisuse, EINVAL, "not run");
  std::thread t([&] { other = ctl_->Run(); });
  t.join();
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().code, -EEXIST);
  EXPECT_NE(other.error().message.find("thread"), std::string::npos) << other.error().message;
  EXPECT_EQ(Get(*ctl_, "uringc_steps"), 0u);  // the loop did not run
  auto out = ctl_->Run();
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(Get(*ctl_, "completed"), 1000u);
}

volatile sig_atomic_t alarms = 0;
void OnAlarm(int) { alarms = alarms + 1; }

// A 1 ms interval timer whose handler does not ask for SA_RESTART; removed on destruction.
class AlarmStorm {
 public:
  AlarmStorm() {
    struct sigaction sa {};
    sa.sa_handler = OnAlarm;
    sigaction(SIGALRM, &sa, &old_);
    itimerval it{{0, 1000}, {0, 1000}};
    setitimer(ITIMER_REAL, &it, nullptr);
  }
  ~AlarmStorm() {
    itimerval off{};
    setitimer(ITIMER_REAL, &off, nullptr);
    sigaction(SIGALRM, &old_, nullptr);
  }

 private:
  struct sigaction old_ {};
};

TEST_F(RuntimeTest, SignalsDuringRunResumeWithoutLosingCompletions) {
  START_OR_RETURN(1, 200000);
  RunOptions o;
  o.return_on_interrupt = false;
  uringc::Result<uringc::RunOutcome> out =
      uringc::MakeError(uringc::DiagKind::kApiMisuse, EINVAL, "not run");
  {
    AlarmStorm storm;
    out = ctl_->Run(o);
  }
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->status, RunStatus::kDone);
  EXPECT_GT(out->stats.interrupts, 0u) << "no signal arrived during the run: make it longer";
  EXPECT_EQ(out->stats.enters, out->stats.interrupts + 1);
  EXPECT_EQ(Get(*ctl_, "completed"), 200000u);
  EXPECT_EQ(Get(*ctl_, "submitted"), 200000u);
  std::printf("interrupts=%llu wall=%.3fs\n",
              static_cast<unsigned long long>(out->stats.interrupts), out->stats.wall_seconds);
}

TEST_F(RuntimeTest, InterruptedRunReturnsAndTheNextRunFinishes) {
  START_OR_RETURN(1, 200000);
  RunOptions o;
  o.return_on_interrupt = true;
  int interrupted = 0;
  uint64_t last = 0;
  {
    AlarmStorm storm;
    for (int i = 0; i < 100000; ++i) {
      auto out = ctl_->Run(o);
      ASSERT_TRUE(out.ok()) << out.error().message;
      if (out->status == RunStatus::kDone) break;
      ASSERT_EQ(out->status, RunStatus::kInterrupted);
      ++interrupted;
      const uint64_t now = Get(*ctl_, "completed");
      EXPECT_GE(now, last);  // progress is never lost
      last = now;
    }
  }
  EXPECT_GT(interrupted, 0);
  EXPECT_EQ(Get(*ctl_, "completed"), 200000u);
  EXPECT_EQ(Get(*ctl_, "submitted"), 200000u);
  EXPECT_EQ(Get(*ctl_, "uringc_status"), uint64_t{uringc::kStatusDone});
}

TEST_F(RuntimeTest, DetachAndReattachRunsAgain) {
  START_OR_RETURN(4, 1000);
  ASSERT_TRUE(ctl_->Run().ok());
  ASSERT_TRUE(ctl_->Detach().ok());
  EXPECT_FALSE(ctl_->attached());
  // Outputs in .bss stay writable after load: reset them for a second run.
  for (const char* name : {"uringc_status", "completed", "submitted", "uringc_steps"})
    ASSERT_TRUE(ctl_->SetUint(name, 0).ok()) << name;
  auto again = ctl_->Attach();
  ASSERT_TRUE(again.ok()) << again.error().message;
  auto out = ctl_->Run();
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->status, RunStatus::kDone);
  EXPECT_EQ(Get(*ctl_, "completed"), 1000u);
}

TEST_F(RuntimeTest, RingClosedWhileAttachedIsCleanAndExplained) {
  START_OR_RETURN(1, 10);
  ring_.reset();  // closes the ring while the controller is attached
  auto out = ctl_->Run();
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().code, -EBADF);
  EXPECT_NE(out.error().message.find("closed"), std::string::npos);
  EXPECT_TRUE(ctl_->Detach().ok());
  ctl_.reset();
}

TEST_F(RuntimeTest, ControllerDestroyedBeforeRing) {
  START_OR_RETURN(1, 10);
  ctl_.reset();  // detaches and unloads
  ring_.reset();
}

TEST_F(RuntimeTest, ProcessExitWhileAttachedIsClean) {
  ring_ = MakeRing();
  ASSERT_NE(ring_, nullptr);
  ring_.reset();
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (!Start(1, 1000000)) _exit(skipped_ ? 3 : 2);
    _exit(0);  // still attached
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 3 && !uringc_test::FeatureRequired())
    GTEST_SKIP() << "kernel lacks io_uring_bpf_ops";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// Every kernel with io_uring_bpf_ops (7.1+) has SQ_REWIND (7.0+), so the default ring is one;
// a controller that advances the SQ tail is refused there before anything is loaded.
TEST(RuntimeAttach, DefaultRingIsRewindAndRefusesATailController) {
  auto features = uringc::DetectKernelFeatures();
  if (!features.ok() || !features->has_bpf_ops) {
    if (uringc_test::FeatureRequired()) FAIL() << "kernel lacks io_uring_bpf_ops";
    GTEST_SKIP() << "kernel lacks io_uring_bpf_ops";
  }
  auto ring = Ring::Create({});
  ASSERT_TRUE(ring.ok()) << ring.error().message;
  EXPECT_TRUE((*ring)->rewind());
  EXPECT_TRUE((*ring)->params().flags & IORING_SETUP_NO_SQARRAY);
  auto ctl = OpenNamed(1, 1);
  ASSERT_NE(ctl, nullptr);
  EXPECT_FALSE(ctl->HandlesRewindRings());
  auto loaded = ctl->Load(**ring);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().kind, uringc::DiagKind::kRingNotSupported);
  EXPECT_NE(loaded.error().message.find("--ring tail"), std::string::npos)
      << loaded.error().message;
}

TEST(RuntimeAttach, RingWithoutDeferTaskrunIsEopnotsupp) {
  io_uring raw{};
  ASSERT_EQ(io_uring_queue_init(8, &raw, 0), 0);
  io_uring_params params{};
  params.sq_entries = raw.sq.ring_entries;
  params.cq_entries = raw.cq.ring_entries;
  auto ring = Ring::Borrow(raw.ring_fd, params);
  ASSERT_TRUE(ring.ok());
  auto ctl = OpenNamed(1, 1);
  ASSERT_NE(ctl, nullptr);
  auto loaded = ctl->Load(**ring);
  if (!loaded.ok() && loaded.error().code == -ESRCH && !uringc_test::FeatureRequired()) {
    io_uring_queue_exit(&raw);
    GTEST_SKIP() << loaded.error().message;
  }
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  auto r = ctl->Attach();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, -EOPNOTSUPP);
  EXPECT_NE(r.error().message.find("DEFER_TASKRUN"), std::string::npos) << r.error().message;
  ctl.reset();
  ring->reset();
  io_uring_queue_exit(&raw);
}

TEST(RuntimeLegacy, ConfigStructControllerViaMemberNames) {
  auto ring = MakeRing();
  ASSERT_NE(ring, nullptr);
  ControllerOptions o;
  o.object_name = "nop_inflight";
  auto c = Controller::OpenMemory(nop_inflight_bpf_object_obj.begin,
                                  nop_inflight_bpf_object_obj.size(), o);
  ASSERT_TRUE(c.ok()) << c.error().message;
  Controller& ctl = **c;
  const uringc::RingLayout& l = ring->layout();
  const std::pair<const char*, uint64_t> config[] = {
      {"config.sq_entries", l.sq_entries},   {"config.cq_entries", l.cq_entries},
      {"config.sq_head_off", l.sq_head_off}, {"config.sq_tail_off", l.sq_tail_off},
      {"config.cq_head_off", l.cq_head_off}, {"config.cq_tail_off", l.cq_tail_off},
      {"config.cqes_off", l.cqes_off},       {"config.rings_size", l.rings_size},
      {"config.inflight", 8},                {"config.total", 5000}};
  for (auto& [name, value] : config) ASSERT_TRUE(ctl.SetUint(name, value).ok()) << name;
  auto loaded = ctl.Load(*ring);
  URINGC_SKIP_IF_NO_BPF_OPS(loaded);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  ASSERT_TRUE(ctl.Attach().ok());
  auto out = ctl.Run();  // no uringc_status: the first IOU_LOOP_STOP ends the run
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_FALSE(out->stats.steps_known);
  EXPECT_EQ(ctl.GetInt("state.completed").value(), 5000);
  EXPECT_EQ(ctl.GetInt("state.stop_reason").value(), 1);  // NOP_STOP_DONE
  auto text = ctl.Format("state");
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("completed = 5000"), std::string::npos) << *text;
}

}  // namespace
