// RunLoop against a scripted fake controller: EINTR resumes or returns as asked, the status
// convention ends the run, objects without it finish at the first normal return, errors explain.
#include "uringc/run_loop.h"

#include <gtest/gtest.h>

#include <deque>

namespace {

using uringc::ControllerState;
using uringc::RunOptions;
using uringc::RunStatus;

// Each Enter() pops the next scripted result; the state advances with it.
class ScriptedTarget : public uringc::LoopTarget {
 public:
  struct Step {
    int enter_ret;
    ControllerState after;
  };
  explicit ScriptedTarget(std::deque<Step> steps) : steps_(std::move(steps)) {}
  int Enter() override {
    ++enters;
    if (steps_.empty()) return -EIO;  // the loop entered more often than scripted
    current_ = steps_.front().after;
    const int ret = steps_.front().enter_ret;
    steps_.pop_front();
    return ret;
  }
  uringc::Result<ControllerState> ReadState() override { return current_; }
  int enters = 0;

 private:
  std::deque<Step> steps_;
  ControllerState current_;
};

ControllerState Status(uint32_t status, uint64_t steps, int32_t error = 0) {
  ControllerState s;
  s.has_status = true;
  s.status = status;
  s.error = error;
  s.has_steps = true;
  s.steps = steps;
  return s;
}

TEST(RunLoopTest, ResumesAfterInterruptsUntilDone) {
  ScriptedTarget t({{-EINTR, Status(0, 3)}, {-EINTR, Status(0, 7)}, {0, Status(1, 12)}});
  auto out = uringc::RunLoop(t, RunOptions{});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->status, RunStatus::kDone);
  EXPECT_EQ(out->stats.enters, 3u);
  EXPECT_EQ(out->stats.interrupts, 2u);
  EXPECT_EQ(out->stats.steps, 12u);
  EXPECT_TRUE(out->stats.steps_known);
}

TEST(RunLoopTest, ReturnsInterruptedWhenAsked) {
  ScriptedTarget t({{-EINTR, Status(0, 3)}, {0, Status(1, 5)}});
  RunOptions o;
  o.return_on_interrupt = true;
  auto out = uringc::RunLoop(t, o);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->status, RunStatus::kInterrupted);
  EXPECT_EQ(out->stats.steps, 3u);
  auto rest = uringc::RunLoop(t, o);  // the caller runs again and it finishes
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(rest->status, RunStatus::kDone);
}

TEST(RunLoopTest, DoneDuringAnInterruptedEnterIsDone) {
  ScriptedTarget t({{-EINTR, Status(1, 9)}});
  RunOptions o;
  o.return_on_interrupt = true;
  auto out = uringc::RunLoop(t, o);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->status, RunStatus::kDone);
}

TEST(RunLoopTest, PausedControllerIsEnteredAgain) {
  ScriptedTarget t({{0, Status(0, 1)}, {0, Status(0, 2)}, {0, Status(2, 3, -5)}});
  auto out = uringc::RunLoop(t, RunOptions{});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->status, RunStatus::kFailed);
  EXPECT_EQ(out->controller_error, -5);
  EXPECT_EQ(t.enters, 3);
}

TEST(RunLoopTest, WithoutTheConventionTheFirstStopFinishes) {
  ScriptedTarget t({{-EINTR, ControllerState{}}, {0, ControllerState{}}, {0, ControllerState{}}});
  auto out = uringc::RunLoop(t, RunOptions{});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->status, RunStatus::kDone);
  EXPECT_EQ(t.enters, 2);
  EXPECT_FALSE(out->stats.steps_known);
}

TEST(RunLoopTest, WrongThreadIsExplained) {
  ScriptedTarget t({{-EEXIST, Status(0, 0)}});
  auto out = uringc::RunLoop(t, RunOptions{});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().code, -EEXIST);
  EXPECT_NE(out.error().message.find("thread other than the one that created it"),
            std::string::npos);
  EXPECT_EQ(out.error().kind, uringc::DiagKind::kRunFailed);
}

TEST(RunLoopTest, BadLoopStepReturnIsExplained) {
  ScriptedTarget t({{-EINVAL, Status(0, 1)}});
  auto out = uringc::RunLoop(t, RunOptions{});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message.find("IOU_LOOP_CONTINUE"), std::string::npos);
}

TEST(RunLoopTest, MaxEntersBoundsAControllerThatNeverFinishes) {
  std::deque<ScriptedTarget::Step> steps(10, {0, Status(0, 1)});
  ScriptedTarget t(steps);
  RunOptions o;
  o.max_enters = 4;
  auto out = uringc::RunLoop(t, o);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().code, -ETIME);
  EXPECT_EQ(out.error().kind, uringc::DiagKind::kEnterLimit);
  EXPECT_EQ(t.enters, 4);
}

}  // namespace
