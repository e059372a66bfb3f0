// A ublk device served by controllers: one thread, one ring and one controller per queue (issue
// 16, docs/ublk.md). What `uringc ublk add` runs and what an application embeds.
//
// The order is the driver's: ADD_DEV and SET_PARAMS; per queue, the character device's descriptor
// mapping and the tags' buffers; then each queue's thread creates its ring (SINGLE_ISSUER: the
// thread that submits creates it), loads and attaches its controller and runs it, and the
// controller's first step issues a FETCH for every tag. START_DEV returns only once every tag has
// one, so it is issued on the caller's thread after every queue is running; a queue's controller
// that ends before that would leave it waiting for ever, so the wait is given up then. A run that
// outlives STOP_DEV by 10 s is interrupted with `ServerOptions::interrupt_signal`.
//
// A target (a compiled .uring graph or a C controller) gets its standard parameters from the
// server, when it declares them: `ublkc` (fd, /dev/ublkcN), `queue` (u64), `descs` (u64: the
// user address of the queue's descriptor array, 24 bytes per tag) and `buf` (a buffers parameter
// of depth x max_io_bytes: tag t's data at t * max_io_bytes, the address its FETCH names).
#pragma once

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "uringc/controller.h"
#include "uringc/result.h"
#include "uringc/ring.h"
#include "uringc/ublk.h"

namespace uringc::ublk {

/// The names of the standard parameters the server sets.
inline constexpr const char* kCharFdParam = "ublkc";
inline constexpr const char* kQueueParam = "queue";
inline constexpr const char* kDescsParam = "descs";
inline constexpr const char* kBufParam = "buf";

/// What one queue's controller is served with.
struct QueueContext {
  uint16_t queue = 0;
  const DeviceInfo* device = nullptr;
  const QueueMapping* mapping = nullptr;
  /// The tags' buffers: device->depth * device->max_io_bytes bytes.
  void* bufs = nullptr;
};

struct ServerOptions {
  /// The driver gives at most one queue per CPU: device().queues says how many it made.
  DeviceOptions device;
  /// Opens queue `queue`'s controller, not loaded yet (called once per queue, in queue order,
  /// on the thread that calls Server::Start).
  std::function<Result<std::unique_ptr<Controller>>(uint16_t queue)> open;
  /// Sets the target's other parameters, after the standard ones; may be empty.
  std::function<Result<void>(Controller&, const QueueContext&)> configure;
  RingMode ring_mode = RingMode::kAuto;
  /// Asked every 50 ms while START_DEV waits; true gives the start up (a Ctrl-C); may be empty.
  std::function<bool()> cancel_start;
  /// The signal that interrupts runs that outlive STOP_DEV by 10 s (Stop). The
  /// server gives it a handler that does nothing (without SA_RESTART, so the blocked call
  /// returns) when its disposition is the default. 0: SIGRTMIN.
  int interrupt_signal = 0;
};

/// The bytes of one tag's buffer a target declares: its `buf` parameter's size over `depth`
/// (kBadParameter when it has none or they do not divide).
Result<uint32_t> TargetTagBufferBytes(Controller& target, uint16_t depth);

class Server {
 public:
  /// Adds the device, serves each queue on its own thread and starts the device: once this
  /// returns, device().block_path() exists. On failure nothing is left behind.
  static Result<std::unique_ptr<Server>> Start(Control& control, ServerOptions options);
  /// Stop() when it was not called.
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  const DeviceInfo& device() const { return device_; }
  /// STOP_DEV (the block device goes away once its requests are done), waits for every
  /// queue's run to end, unloads, and DEL_DEV. The first failure, after doing all of it.
  Result<void> Stop();
  /// Whether a queue's run ended while the device was live (its controller failed or
  /// finished): the block device then fails that queue's requests.
  bool QueueEnded() const { return ended_early_.load(); }
  /// After Stop: queue q's run, and its controller (outputs are read from it); nullptr when
  /// the run ended while the device was live (its ring was closed then).
  const Result<RunOutcome>& outcome(uint16_t q) const;
  Controller* controller(uint16_t q);

 private:
  struct Queue;
  Server() = default;
  Result<void> OpenQueue(const ServerOptions& options, uint16_t index);
  Result<void> StartQueues(ServerOptions& options);
  void Serve(Queue& q);
  /// Joins every queue's thread; runs still going after `grace` are interrupted.
  void JoinQueues(std::chrono::milliseconds grace);

  Control* control_ = nullptr;
  DeviceInfo device_;
  int signal_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> ended_early_{false};
  bool stopped_ = true;  // until the device is added
  std::vector<std::unique_ptr<Queue>> queues_;
};

}  // namespace uringc::ublk
