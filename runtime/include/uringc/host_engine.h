// The host engine: runs a graph's native loop_step (uringc/program.h) in user space, on any
// kernel with io_uring, with the kernel loop's contract (docs/architecture.md, "Two engines"):
// call loop_step; IOU_LOOP_STOP ends the enter; IOU_LOOP_CONTINUE waits until the CQ tail
// reaches cq_wait_idx; a signal ends the enter with -EINTR, the state kept, however busy the
// loop. The controller's SQEs are submitted when it calls uringc_host_submit_sqes, as the
// kfunc does; requests that complete inline (NOPs, reads of cached files) post their CQEs in
// that same io_uring_enter, so a step that needs no wait makes one system call.
//
// Each HostEngine has its own copy of the program's state (the BPF object's data sections), so
// one linked program can run on many rings at once. The ring must have DEFER_TASKRUN, as the
// kernel engine's must: completions are then posted only inside this thread's io_uring_enter
// calls, which are opaque calls to the compiled code, so its plain loads of the CQ tail and
// stores of the CQ head need no barriers (x86-64 keeps the stores of one thread in order).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "uringc/kernel.h"
#include "uringc/program.h"
#include "uringc/result.h"
#include "uringc/ring.h"

namespace uringc {

/// What uringc_host_* receive back: the ABI part first (the compiled code reads `state`).
struct HostCtx {
  uringc_host_ctx abi{};
  int fd = -1;
  KernelInterface* kernel = nullptr;
  uint8_t* region[3] = {};  ///< IOU_REGION_MEM, IOU_REGION_CQ, IOU_REGION_SQ
  uint64_t region_size[3] = {};
};

/// Memory the runtime mapped itself and keeps readable while it is registered (a ublk queue's
/// descriptor array, which only the kernel's copy_from_user can read: it has no pages to pin):
/// the host engine's copy_from_user reads inside it with memcpy, without a system call.
/// Unregister before unmapping. At most 256 ranges; false when the table is full.
bool RegisterReadableMemory(const void* addr, size_t size);
void UnregisterReadableMemory(const void* addr);

class HostEngine {
 public:
  /// Checks the descriptor (ABI version, sections inside the state) and copies its state.
  static Result<std::unique_ptr<HostEngine>> Create(const uringc_program& program);
  ~HostEngine();
  HostEngine(const HostEngine&) = delete;
  HostEngine& operator=(const HostEngine&) = delete;

  /// The bytes of data section `name` in this engine's state; nullptr (size 0) when the program
  /// has no such section.
  uint8_t* Section(const std::string& name, size_t* size);

  /// Gives loop_step the ring's regions. The ring must be one Ring::Create made (mapped here).
  Result<void> Bind(const Ring& ring);

  /// One io_uring_enter's worth of the kernel loop: 0 after IOU_LOOP_STOP, -EINTR after a
  /// signal, -EINVAL for another return value of loop_step, or the failed wait's -errno.
  int Enter(const RingHandle& ring);

 private:
  HostEngine() = default;
  int Wait(uint32_t count, const sigset_t& caller_mask);

  uringc_program program_{};  ///< a copy: its arrays and code are the linked object's
  uint8_t* state_ = nullptr;
  size_t state_size_ = 0;
  HostCtx ctx_;
  uint32_t cq_wait_idx_ = 0;  ///< struct iou_loop_params
  const uint32_t* cq_tail_ = nullptr;
};

}  // namespace uringc
