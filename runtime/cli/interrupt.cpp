// Signals before a run starts (see interrupt.h). The handler may only make async-signal-safe
// calls, so the paths live in a fixed table of C strings and the child's pid in a sig_atomic_t.
#include "interrupt.h"

#include <errno.h>
#include <limits.h>
#include <unistd.h>

#include <cstring>

#include "diag/exit_status.h"

namespace uringc {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr int kMaxPaths = 32;

char paths[kMaxPaths][PATH_MAX];
volatile sig_atomic_t path_count = 0;
volatile sig_atomic_t child = 0;
volatile sig_atomic_t forwarded = 0;

void OnSignal(int sig) {
  if (child > 0) {
    kill(static_cast<pid_t>(child), sig);
    forwarded = sig;
    return;
  }
  for (int i = path_count - 1; i >= 0; --i) {
    if (unlink(paths[i]) != 0 && (errno == EISDIR || errno == EPERM)) rmdir(paths[i]);
  }
  _exit(kExitInterrupted);
}

void Install(void (*handler)(int)) {
  struct sigaction sa {};
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  for (int s : kSignals) sigaddset(&sa.sa_mask, s);
  for (int s : kSignals) sigaction(s, &sa, nullptr);
}

}  // namespace

void ExitOnSignal() { Install(OnSignal); }

SignalScope::SignalScope() {
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], nullptr, &saved_[i]);
}

SignalScope::~SignalScope() {
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &saved_[i], nullptr);
}

bool RemoveOnSignal(const std::string& path) {
  SignalBlock block;
  if (path_count >= kMaxPaths || path.size() >= PATH_MAX) return false;
  memcpy(paths[path_count], path.c_str(), path.size() + 1);
  path_count = path_count + 1;
  return true;
}

void KeepOnSignal(const std::string& path) {
  SignalBlock block;
  for (int i = 0; i < path_count; ++i) {
    if (path != paths[i]) continue;
    for (int j = i + 1; j < path_count; ++j) memcpy(paths[j - 1], paths[j], PATH_MAX);
    path_count = path_count - 1;
    return;
  }
}

int ForwardSignalsTo(pid_t pid) {
  SignalBlock block;
  child = pid;
  const int sig = forwarded;
  forwarded = 0;
  return sig;
}

SignalBlock::SignalBlock() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : kSignals) sigaddset(&set, s);
  sigprocmask(SIG_BLOCK, &set, &saved_);
}

SignalBlock::~SignalBlock() { sigprocmask(SIG_SETMASK, &saved_, nullptr); }

void RestoreDefaultSignals() {
  struct sigaction sa {};
  sa.sa_handler = SIG_DFL;
  for (int s : kSignals) sigaction(s, &sa, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

}  // namespace uringc
