// Serving a ublk device with one controller per queue (uringc/ublk_server.h). The caller's thread
// does the control plane; each queue's thread owns its ring from creation to close, so the ring's
// single issuer is the thread whose io_uring_enter runs the controller.
#include "uringc/ublk_server.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <future>

namespace uringc::ublk {

struct Server::Queue {
  uint16_t index = 0;
  std::unique_ptr<QueueMapping> mapping;
  void* bufs = nullptr;
  size_t bufs_bytes = 0;
  std::unique_ptr<Controller> controller;
  std::unique_ptr<Ring> ring;
  RingMode mode = RingMode::kAuto;
  std::thread thread;
  pthread_t handle{};
  std::promise<Result<void>> attached;
  Result<RunOutcome> outcome = Error{};
  std::atomic<bool> running{false};
  ~Queue() {
    if (bufs != nullptr) munmap(bufs, bufs_bytes);
  }
};

namespace {

void IgnoreSignal(int) {}

// Gives `sig` a handler that does nothing, without SA_RESTART, unless it has one.
void PrepareInterruptSignal(int sig) {
  struct sigaction old {};
  if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) return;
  struct sigaction sa {};
  sa.sa_handler = IgnoreSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, nullptr);
}

std::string QueueName(uint16_t q) { return "queue " + std::to_string(q); }

std::string OutcomeText(const Result<RunOutcome>& out) {
  if (!out.ok()) return out.error().message;
  std::string text = std::string("its run ended: ") + RunStatusName(out->status);
  if (out->status == RunStatus::kFailed) {
    text += " with error " + std::to_string(out->controller_error) + " (" +
            std::strerror(out->controller_error > 0 ? out->controller_error
                                                    : -out->controller_error) +
            ")";
  }
  return text;
}

// The target's `buf` parameter (its tags' buffers), or nullptr.
const BufferParam* FindBufParam(const Controller& c) {
  for (const BufferParam& b : c.buffer_params()) {
    if (b.name == kBufParam) return &b;
  }
  return nullptr;
}

// The standard parameters a target declares (see the header), set when it has them.
Result<void> SetStandardParams(Controller& c, const QueueContext& q) {
  const GlobalTable& g = c.globals();
  if (g.Has(kCharFdParam)) URINGC_TRY(c.SetInt(kCharFdParam, q.mapping->char_fd()));
  if (g.Has(kQueueParam)) URINGC_TRY(c.SetUint(kQueueParam, q.queue));
  if (g.Has(kDescsParam)) URINGC_TRY(c.SetUint(kDescsParam, q.mapping->descs_address()));
  if (FindBufParam(c) == nullptr) return {};
  return c.SetBuffer(kBufParam, q.bufs, size_t{q.device->depth} * q.device->max_io_bytes);
}

}  // namespace

Result<uint32_t> TargetTagBufferBytes(Controller& target, uint16_t depth) {
  const BufferParam* b = FindBufParam(target);
  if (b == nullptr) {
    return MakeError(DiagKind::kBadParameter, EINVAL,
                     "the target has no `buf` parameter: a ublk target declares its tags' "
                     "buffers as `buf: buffers[DEPTH] of SIZE` (docs/ublk.md)");
  }
  if (depth == 0 || b->bytes % depth != 0 || b->bytes / depth > UINT32_MAX) {
    return MakeError(DiagKind::kBadParameter, EINVAL,
                     "the target's `buf` has " + std::to_string(b->bytes) +
                         " bytes, which are not " + std::to_string(depth) +
                         " tag buffers: declare it `buf: buffers[DEPTH] of SIZE` with the "
                         "device's depth");
  }
  return static_cast<uint32_t>(b->bytes / depth);
}

Result<std::unique_ptr<Server>> Server::Start(Control& control, ServerOptions options) {
  if (!options.open) {
    return MakeError(DiagKind::kApiMisuse, EINVAL, "ublk::ServerOptions::open is not set");
  }
  URINGC_TRY(CheckDeviceOptions(options.device));
  std::unique_ptr<Server> s(new Server());
  s->control_ = &control;
  s->signal_ = options.interrupt_signal ? options.interrupt_signal : SIGRTMIN;
  PrepareInterruptSignal(s->signal_);
  // Queue 0's controller first: a target with tag buffers decides the largest request.
  auto opened = s->OpenQueue(options, 0);
  if (!opened.ok()) return opened.error();
  Controller& first = *s->queues_[0]->controller;
  if (FindBufParam(first) != nullptr) {
    auto bytes = TargetTagBufferBytes(first, options.device.depth);
    if (!bytes.ok()) return bytes.error();
    options.device.max_io_bytes = *bytes;
  }
  auto added = control.Add(options.device);
  if (!added.ok()) return added.error();
  s->device_ = *added;
  s->stopped_ = false;
  // The driver gives at most one queue per CPU.
  for (uint16_t q = 1; q < s->device_.queues && opened.ok(); ++q) opened = s->OpenQueue(options, q);
  if (auto started = opened.ok() ? s->StartQueues(options) : opened; !started.ok()) {
    s->stopping_ = true;
    s->JoinQueues(std::chrono::milliseconds(0));
    for (auto& q : s->queues_) {
      q->controller.reset();
      q->ring.reset();
      q->mapping.reset();
    }
    (void)control.Delete(s->device_.dev_id);
    s->stopped_ = true;
    return started.error();
  }
  return s;
}

Result<void> Server::OpenQueue(const ServerOptions& options, uint16_t index) {
  auto queue = std::make_unique<Queue>();
  queue->index = index;
  queue->mode = options.ring_mode;
  auto c = options.open(index);
  if (!c.ok()) return c.error();
  queue->controller = std::move(*c);
  queues_.push_back(std::move(queue));
  return {};
}

Result<void> Server::StartQueues(ServerOptions& options) {
  for (auto& q : queues_) {
    auto mapping = QueueMapping::Open(device_, q->index);
    if (!mapping.ok()) return mapping.error();
    q->mapping = std::move(*mapping);
    q->bufs_bytes = size_t{device_.depth} * device_.max_io_bytes;
    q->bufs = mmap(nullptr, q->bufs_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (q->bufs == MAP_FAILED) {
      q->bufs = nullptr;
      return MakeError(DiagKind::kOutOfMemory, ENOMEM,
                       "cannot map " + std::to_string(q->bufs_bytes) + " bytes of tag buffers");
    }
    const QueueContext context{q->index, &device_, q->mapping.get(), q->bufs};
    auto set = SetStandardParams(*q->controller, context);
    if (set.ok() && options.configure) set = options.configure(*q->controller, context);
    if (!set.ok()) return MakeError(set.error().kind, set.error().code,
                                    QueueName(q->index) + ": " + set.error().message);
  }
  for (auto& q : queues_) {
    auto attached = q->attached.get_future();
    q->running = true;
    Queue* queue = q.get();
    q->thread = std::thread([this, queue] { Serve(*queue); });
    Result<void> r = attached.get();
    if (!r.ok()) {
      return MakeError(r.error().kind, r.error().code,
                       QueueName(q->index) + ": " + r.error().message);
    }
  }
  // START_DEV waits until every tag has a FETCH pending: given up when a queue's run ends first.
  auto started = control_->Start(device_.dev_id, getpid(), [this, &options] {
    for (auto& q : queues_) {
      if (!q->running) return true;
    }
    return options.cancel_start && options.cancel_start();
  });
  for (auto& q : queues_) {
    if (q->running) continue;
    return MakeError(DiagKind::kUblkCommandFailed, ECANCELED,
                     QueueName(q->index) + "'s controller ended before every tag had a FETCH "
                     "pending, so the device could not start: " + OutcomeText(q->outcome));
  }
  return started;
}

void Server::Serve(Queue& q) {
  q.handle = pthread_self();
  Controller& c = *q.controller;
  RingOptions ro;
  ro.sq_entries = 2u * device_.depth;
  ro.cq_entries = 4u * device_.depth;
  ro.mode = q.mode;
  auto ring = Ring::Create(c.FitRingOptions(ro));
  Result<void> ready = ring.ok() ? Result<void>() : Result<void>(ring.error());
  if (ready.ok()) {
    q.ring = std::move(*ring);
    ready = c.Load(*q.ring);
    if (ready.ok()) ready = c.Attach();
  }
  if (!ready.ok()) {
    q.running = false;
    q.attached.set_value(ready);
    return;
  }
  q.attached.set_value({});
  RunOptions run;
  run.return_on_interrupt = true;
  do {
    q.outcome = c.Run(run);
  } while (q.outcome.ok() && q.outcome->status == RunStatus::kInterrupted && !stopping_);
  if (!stopping_) {
    // Ended while the device lives: closing the ring cancels the queue's pending commands, so
    // its requests fail instead of waiting for ever.
    ended_early_ = true;
    q.controller.reset();
    q.ring.reset();
  }
  q.running = false;
}

void Server::JoinQueues(std::chrono::milliseconds grace) {
  for (auto& q : queues_) {
    if (!q->thread.joinable()) continue;
    auto deadline = std::chrono::steady_clock::now() + grace;
    while (q->running && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    while (q->running) {
      pthread_kill(q->handle, signal_);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    q->thread.join();
  }
}

Result<void> Server::Stop() {
  if (stopped_) return {};
  stopped_ = true;
  stopping_ = true;
  Result<void> first = control_->Stop(device_.dev_id);
  JoinQueues(std::chrono::seconds(10));
  for (auto& q : queues_) {
    if (first.ok() && !q->outcome.ok()) {
      first = MakeError(q->outcome.error().kind, q->outcome.error().code,
                        QueueName(q->index) + ": " + q->outcome.error().message);
    }
    q->mapping.reset();  // DEL_DEV waits until /dev/ublkcN is closed
  }
  auto deleted = control_->Delete(device_.dev_id);
  if (first.ok() && !deleted.ok()) first = deleted;
  return first;
}

Server::~Server() {
  (void)Stop();
  for (auto& q : queues_) {
    q->controller.reset();
    q->ring.reset();
  }
}

const Result<RunOutcome>& Server::outcome(uint16_t q) const { return queues_.at(q)->outcome; }

Controller* Server::controller(uint16_t q) { return queues_.at(q)->controller.get(); }

}  // namespace uringc::ublk
