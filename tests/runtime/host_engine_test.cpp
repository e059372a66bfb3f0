// The host engine (runtime/src/host_engine.cpp) on a real ring of this machine, with loop_steps
// written here in C++ in place of compiled ones: a bad descriptor is refused, each engine owns its
// state, a step's return value and cq_wait_idx mean what they mean in the kernel's loop (STOP
// ends the enter, CONTINUE waits for the CQ tail, anything else is -EINVAL), and a signal ends an
// enter with -EINTR both while it waits and while it spins. The runtime's kfunc counterparts:
// regions bounded by their size, copy_from_user_str's truncation and -EFAULT.
#include "uringc/host_engine.h"

#include <gtest/gtest.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "uringc/engine.h"
#include "uringc/features.h"
#include "uringc/ring_map.h"

namespace {

using uringc::HostEngine;
using uringc::Ring;

// What the test's loop_steps see: the ring, and what they were told to do.
struct StepWorld {
  const Ring* ring = nullptr;
  int calls = 0;
  int return_value = 0;
  bool submit_timeout = false;  // first call: one IORING_OP_TIMEOUT, then wait for it
  __kernel_timespec ts{};
};
StepWorld world;

int ReturnAsTold(uint64_t*) {
  ++world.calls;
  return world.return_value;
}

// Submits one timeout on the first call and waits for its CQE (cq_wait_idx = tail + 1); STOP once
// it is there. The state's first 8 bytes count the calls, to show each engine has its own.
int TimeoutThenStop(uint64_t* args) {
  auto* ctx = reinterpret_cast<uringc_host_ctx*>(args[0]);
  auto* lp = reinterpret_cast<uint32_t*>(args[1]);
  ++*static_cast<uint64_t*>(ctx->state);
  const uringc::RingLayout& l = world.ring->layout();
  uint8_t* rings = uringc_host_get_region(ctx, 1, l.rings_size);
  uint8_t* sqes = uringc_host_get_region(ctx, 2, l.sqes_size);
  if (!rings || !sqes) return 9;
  auto* cq_head = reinterpret_cast<uint32_t*>(rings + l.cq_head_off);
  auto* cq_tail = reinterpret_cast<uint32_t*>(rings + l.cq_tail_off);
  if (++world.calls == 1) {
    auto* sq_tail = reinterpret_cast<uint32_t*>(rings + l.sq_tail_off);
    const uint32_t slot = l.sq_rewind ? 0 : *sq_tail & (l.sq_entries - 1);
    auto* sqe = reinterpret_cast<io_uring_sqe*>(sqes + 64 * slot);
    memset(sqe, 0, sizeof(*sqe));
    sqe->opcode = IORING_OP_TIMEOUT;
    sqe->addr = reinterpret_cast<uintptr_t>(&world.ts);
    sqe->len = 1;
    if (!l.sq_rewind) ++*sq_tail;
    if (uringc_host_submit_sqes(ctx, 1) != 1) return 8;
    *lp = *cq_tail + 1;
    return 0;  // IOU_LOOP_CONTINUE
  }
  if (*cq_head == *cq_tail) return 0;  // woken early: wait again
  ++*cq_head;
  return 1;  // IOU_LOOP_STOP
}

// Spins: always CONTINUE with nothing to wait for.
int Spin(uint64_t* args) {
  auto* lp = reinterpret_cast<uint32_t*>(args[1]);
  *lp = 0;
  ++world.calls;
  return 0;
}

uint8_t image[64] = {7};
const uringc_program_section kSections[] = {{".bss", 0, 64}};

uringc_program Program(int (*step)(uint64_t*)) {
  uringc_program p{};
  p.abi = URINGC_PROGRAM_ABI;
  p.section_count = 1;
  p.name = "test";
  p.loop_step = step;
  p.image = image;
  p.image_size = sizeof(image);
  p.sections = kSections;
  return p;
}

std::unique_ptr<Ring> MakeRing() {
  uringc::RingOptions o;
  o.sq_entries = 8;
  auto r = Ring::Create(o);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? std::move(*r) : nullptr;
}

// An engine for `step`, bound to a new ring of this machine; null members after a test failure.
struct Bound {
  std::unique_ptr<Ring> ring;
  std::unique_ptr<HostEngine> engine;
  int Enter() { return engine->Enter(*ring->handle()); }
};
Bound Bind(int (*step)(uint64_t*)) {
  Bound b;
  b.ring = MakeRing();
  auto e = HostEngine::Create(Program(step));
  EXPECT_TRUE(e.ok());
  if (!b.ring || !e.ok()) return {};
  EXPECT_TRUE((*e)->Bind(*b.ring).ok());
  b.engine = std::move(*e);
  world = {};
  world.ring = b.ring.get();
  return b;
}

void OnSignal(int) {}

// Sends SIGUSR1 to `thread` after `delay`, from another thread.
std::thread SignalLater(pthread_t thread, std::chrono::milliseconds delay) {
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigaction(SIGUSR1, &sa, nullptr);
  return std::thread([thread, delay] {
    std::this_thread::sleep_for(delay);
    pthread_kill(thread, SIGUSR1);
  });
}

TEST(HostEngine, RefusesAProgramOfAnotherAbiOrWithSectionsOutsideItsState) {
  uringc_program p = Program(ReturnAsTold);
  p.abi = URINGC_PROGRAM_ABI + 1;
  auto e = HostEngine::Create(p);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().kind, uringc::DiagKind::kBadObject);
  EXPECT_NE(e.error().message.find("compile it again"), std::string::npos) << e.error().message;
  p = Program(ReturnAsTold);
  const uringc_program_section outside[] = {{".bss", 32, 64}};
  p.sections = outside;
  EXPECT_FALSE(HostEngine::Create(p).ok());
  p = Program(nullptr);
  EXPECT_FALSE(HostEngine::Create(p).ok());
}

TEST(HostEngine, EachEngineHasItsOwnCopyOfTheState) {
  const uringc_program p = Program(ReturnAsTold);
  auto a = HostEngine::Create(p);
  auto b = HostEngine::Create(p);
  ASSERT_TRUE(a.ok() && b.ok());
  size_t size = 0;
  uint8_t* sa = (*a)->Section(".bss", &size);
  ASSERT_NE(sa, nullptr);
  EXPECT_EQ(size, 64u);
  EXPECT_EQ(sa[0], 7);  // the image's bytes
  sa[0] = 42;
  EXPECT_EQ((*b)->Section(".bss", &size)[0], 7);
  EXPECT_EQ(image[0], 7);
  EXPECT_EQ((*a)->Section(".rodata", &size), nullptr);
}

TEST(HostEngine, StopEndsTheEnterAndAnyOtherValueThanContinueIsEinval) {
  Bound b = Bind(ReturnAsTold);
  ASSERT_NE(b.engine, nullptr);
  world.return_value = 1;
  EXPECT_EQ(b.Enter(), 0);
  EXPECT_EQ(world.calls, 1);
  world.return_value = 5;
  EXPECT_EQ(b.Enter(), -EINVAL);
}

TEST(HostEngine, ContinueWaitsUntilTheCqTailReachesCqWaitIdx) {
  Bound b = Bind(TimeoutThenStop);
  ASSERT_NE(b.engine, nullptr);
  world.ts.tv_nsec = 30'000'000;  // 30 ms
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(b.Enter(), 0);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, std::chrono::milliseconds(25));
  EXPECT_GE(world.calls, 2);  // submitted, waited, reaped
  size_t size = 0;
  // The state began as the image (first byte 7) and each call counted in it.
  EXPECT_EQ(*reinterpret_cast<uint64_t*>(b.engine->Section(".bss", &size)), 7u + world.calls);
}

TEST(HostEngine, ASignalEndsAWaitWithEintrAndTheNextEnterGoesOn) {
  Bound b = Bind(TimeoutThenStop);
  ASSERT_NE(b.engine, nullptr);
  world.ts.tv_sec = 1;
  std::thread t = SignalLater(pthread_self(), std::chrono::milliseconds(50));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(b.Enter(), -EINTR);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(900));
  t.join();
  EXPECT_EQ(b.Enter(), 0);  // the timeout's CQE ends it
}

TEST(HostEngine, ASignalEndsASpinningLoopToo) {
  Bound b = Bind(Spin);
  ASSERT_NE(b.engine, nullptr);
  std::thread t = SignalLater(pthread_self(), std::chrono::milliseconds(50));
  EXPECT_EQ(b.Enter(), -EINTR);
  t.join();
  EXPECT_GE(world.calls, 1024);
}

TEST(HostEngine, RefusesABorrowedRing) {
  io_uring_params params{};
  auto borrowed = Ring::Borrow(0, params);
  ASSERT_TRUE(borrowed.ok());
  auto e = HostEngine::Create(Program(ReturnAsTold));
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE((*e)->Bind(**borrowed).ok());
}

TEST(HostCalls, RegionsAreBoundedByTheirSize) {
  uringc::HostCtx ctx;
  uint8_t mem[16];
  ctx.region[0] = mem;
  ctx.region_size[0] = sizeof(mem);
  EXPECT_EQ(uringc_host_get_region(&ctx.abi, 0, 16), mem);
  EXPECT_EQ(uringc_host_get_region(&ctx.abi, 0, 17), nullptr);
  EXPECT_EQ(uringc_host_get_region(&ctx.abi, 1, 0), nullptr);  // none
  EXPECT_EQ(uringc_host_get_region(&ctx.abi, 3, 0), nullptr);  // no such region
}

// A page of zeroes whose next page is unmapped (nullptr when mmap fails); munmap one page.
char* PageBeforeAHole() {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* two = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (two == MAP_FAILED) return nullptr;
  munmap(static_cast<char*>(two) + page, page);
  return static_cast<char*>(two);
}

TEST(HostCalls, CopyFromUserStrTruncatesAndFailsLikeTheKfunc) {
  char dst[8];
  EXPECT_EQ(uringc_host_copy_from_user_str(dst, sizeof(dst), "abc", 0), 4);
  EXPECT_STREQ(dst, "abc");
  EXPECT_EQ(uringc_host_copy_from_user_str(dst, sizeof(dst), "abcdefghij", 0), 8);
  EXPECT_STREQ(dst, "abcdefg");
  // A string that ends just before an unmapped page is read; one that runs into it is -EFAULT.
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  char* two = PageBeforeAHole();
  ASSERT_NE(two, nullptr);
  memcpy(two + page - 3, "hi", 3);
  EXPECT_EQ(uringc_host_copy_from_user_str(dst, sizeof(dst), two + page - 3, 0), 3);
  EXPECT_STREQ(dst, "hi");
  memset(two + page - 3, 'x', 3);
  EXPECT_EQ(uringc_host_copy_from_user_str(dst, sizeof(dst), two + page - 3, 0), -EFAULT);
  EXPECT_EQ(dst[0], 0);
  EXPECT_EQ(uringc_host_copy_from_user_str(dst, sizeof(dst), nullptr, 0), -EFAULT);
  munmap(two, page);
}

// Registered memory is read with memcpy, only inside its range: a copy that runs past it takes
// the checked path and fails on the unmapped page after it rather than faulting.
TEST(HostCalls, CopyFromUserReadsRegisteredMemoryOnlyInsideIt) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  char* two = PageBeforeAHole();
  ASSERT_NE(two, nullptr);
  memcpy(two + page - 8, "ABCDEFGH", 8);
  ASSERT_TRUE(uringc::RegisterReadableMemory(two, page));
  char dst[16];
  EXPECT_EQ(uringc_host_copy_from_user(dst, 8, two + page - 8), 0);
  EXPECT_EQ(std::string(dst, 8), "ABCDEFGH");
  EXPECT_EQ(uringc_host_copy_from_user(dst, 16, two + page - 8), -EFAULT);
  uringc::UnregisterReadableMemory(two);
  EXPECT_EQ(uringc_host_copy_from_user(dst, 8, two + page - 8), 0);  // the system calls' way
  munmap(two, page);
  std::vector<char> bytes(300);
  int registered = 0;
  for (char& b : bytes) registered += uringc::RegisterReadableMemory(&b, 1);
  EXPECT_EQ(registered, 256);  // the table's size; the rest go the system calls' way
  for (char& b : bytes) uringc::UnregisterReadableMemory(&b);
  EXPECT_TRUE(uringc::RegisterReadableMemory(bytes.data(), 1));
  uringc::UnregisterReadableMemory(bytes.data());
}

TEST(Engine, ParsesTheChoicesAndTakesAnExplicitOneAsAsked) {
  uringc::EngineChoice c;
  EXPECT_TRUE(uringc::ParseEngineChoice("host", &c) && c == uringc::EngineChoice::kHost);
  EXPECT_TRUE(uringc::ParseEngineChoice("kernel", &c) && c == uringc::EngineChoice::kKernel);
  EXPECT_TRUE(uringc::ParseEngineChoice("auto", &c) && c == uringc::EngineChoice::kAuto);
  EXPECT_FALSE(uringc::ParseEngineChoice("gpu", &c));
  EXPECT_EQ(uringc::ChooseEngine(uringc::EngineChoice::kHost, true).engine, uringc::Engine::kHost);
  EXPECT_EQ(uringc::ChooseEngine(uringc::EngineChoice::kKernel, true).engine,
            uringc::Engine::kKernel);
}

TEST(Engine, AutoTakesTheHostWhereTheKernelCannotRunTheController) {
  auto f = uringc::DetectKernelFeatures();
  const bool kernel_can = f.ok() && uringc::CheckKernelFeatures(*f).ok() &&
                          uringc::MissingPrivileges(uringc::ReadPrivileges()).empty();
  const uringc::EngineDecision d = uringc::ChooseEngine(uringc::EngineChoice::kAuto, true);
  EXPECT_EQ(d.engine, kernel_can ? uringc::Engine::kKernel : uringc::Engine::kHost) << d.why;
  EXPECT_EQ(d.why.rfind(kernel_can ? "kernel: " : "host: ", 0), 0u) << d.why;
  EXPECT_EQ(d.why.find('\n'), std::string::npos);
  // Without host code there is only the kernel engine, whose load says what is missing.
  EXPECT_EQ(uringc::ChooseEngine(uringc::EngineChoice::kAuto, false).engine,
            uringc::Engine::kKernel);
}

}  // namespace
