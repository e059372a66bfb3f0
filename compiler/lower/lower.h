// Lowering a request graph (rgir::Graph) to one io_uring_bpf_ops controller in a BpfModule.
// The design (docs/codegen.md, "rgir lowering"):
//  - every rgir task instance owns a slot in a `.bss` table (its resume state and variables);
//  - a loop_step reaps up to `reap_budget` CQEs, each naming (task, slot, sequence number) in its
//    user_data, stores the result in the slot and puts the slot on a ready queue; it then runs up
//    to `run_budget` ready slots, each from its resume state to its next await point (a request,
//    a join, a race) or back edge, submits what they queued, and sleeps until the next CQE (or
//    continues at once while slots are ready);
//  - every loop in a task's code is a back edge through the ready queue, so each step's code is
//    loop-free apart from the loops with constant bounds (reap, run, narrow child instances)
//    and iterator loops over wide child instances (bpf_iter_num): the
//    verifier accepts it whatever the program;
//  - when the graph ends (done, stop, or failure) everything in flight is cancelled and the
//    controller waits for the last CQE before it sets `uringc_status` and stops.
#pragma once

#include <cstdint>

#include "uringc/diag/diagnostic.h"
#include "emit/bpf_module.h"
#include "uringc/host_abi.h"  // the names the lowering gives buffers sizes and fd parameters
#include "rgir/rgir.h"

namespace uringc {

/// The submission queues a controller runs on (`uringc compile --ring`). Every kernel with
/// io_uring_bpf_ops (7.1+) has SQ_REWIND (7.0+), and `uringc run` makes such rings by default;
/// a ring with an SQ tail is what RingMode::kTail makes, and what the host engine has on kernels
/// before 7.0.
enum class SqRing {
  kRewind,  ///< SQ_REWIND rings only: SQEs at sqes[0..n), no SQ tail to read or publish
  kAny,     ///< also rings with an SQ tail: the load-time `sq_rewind` constant chooses the path
};

struct GraphLoweringOptions {
  /// kRewind: the object declares `.rodata uringc_needs_sq_rewind = 1` (the runtime refuses
  /// other rings) and carries no tail-ring code; kAny: one object for both kinds of ring.
  SqRing sq_ring = SqRing::kAny;
  /// Ready slots run per loop_step; 0: from the graph (its task slots, between 4 and 32), so a
  /// graph of K tasks resumes all K in one step when their CQEs arrive together.
  uint32_t run_budget = 0;
  /// CQEs reaped per loop_step; 0: from the graph (its task slots, between 8 and 32).
  uint32_t reap_budget = 0;
  /// Test only: leave out the null check of the parameter region, so the verifier rejects the
  /// program at the first access through it (to show verifier errors mapped to `.uring` lines).
  bool break_region_null_check = false;
  /// Test only: add an instruction the BPF backend cannot select (`atomicrmw nand`), so LLVM
  /// fails fatally in code generation (to show that this becomes a diagnostic, not an abort).
  bool break_instruction_selection = false;
};

/// The parameter region (IOU_REGION_MEM) of a compiled controller: user memory the controller
/// writes what the kernel must read from user space while it submits an SQE (timespecs of
/// timeouts, openat paths); the host's address of it comes in `.rodata uringc_mem_addr`. First
/// one 16-byte timespec slot per SQE position of a step, then kPathSlots path slots of
/// kPathSlotSize bytes (a path of at most kPathMax bytes and its NUL).
inline constexpr uint32_t kTimespecSlots = 4096;
inline constexpr uint32_t kTimespecAreaSize = kTimespecSlots * 16;
inline constexpr uint32_t kPathSlots = 8;
inline constexpr uint32_t kPathSlotSize = 4096;          // PATH_MAX
inline constexpr uint32_t kPathMax = kPathSlotSize - 1;  // longer paths: ENAMETOOLONG
inline constexpr uint32_t kGraphMemRegionSize = kTimespecAreaSize;
inline constexpr uint32_t kGraphMemRegionSizeWithPaths =
    kTimespecAreaSize + kPathSlots * kPathSlotSize;

/// Where a graph's data sits in the parameter region: the timespec slots (with timeouts, sleeps
/// or deadlines) and path slots (with openat) at 0 as above, then its byte-string literals (each
/// at an 8-byte boundary; the controller writes them on its first step), then its shared buffers
/// parameters (each at a page boundary, zeroed by the host when it registers the region).
struct MemLayout {
  uint32_t size = 0;  ///< bytes the controller needs (0: it maps no region)
  bool timespecs = false;
  bool paths = false;
  uint32_t how_at = 0;  ///< openat2: kPathSlots `struct open_how` slots of 32 bytes (0: none)
  std::vector<uint32_t> literal_at;  ///< by rgir literal index
  std::vector<uint32_t> shared_at;   ///< by ParamId: shared buffers' offset (others 0)
  rgir::ParamId pool = rgir::kNone;  ///< the `provided buffers` parameter, if any
  uint32_t pool_at = 0;              ///< its buffers (page aligned)
  uint32_t ring_at = 0;              ///< its buffer ring: count entries of 16 bytes (page aligned)
};
inline constexpr uint32_t kSharedBufferAlign = 4096;
inline constexpr uint32_t kHowSlotSize = 32;  ///< struct open_how is 24 bytes
MemLayout GraphMemLayout(const rgir::Graph& graph);

/// Bytes of the parameter region `graph`'s controller needs (GraphMemLayout(graph).size). The
/// object declares `.rodata uringc_mem_min` with this value so a host can size the region.
uint32_t GraphMemRegionSize(const rgir::Graph& graph);

/// The scalar type a parameter or output of type `t` has in the object's globals (and BTF):
/// `__s8` for i8, `__u8` for u8 and bool, `__s32` for fd, `__u64` for durations and buffers.
ScalarType StorageTypeOf(const Type& t);

/// Adds the controller for `graph` (program `<graph>`, ops `<graph>_ops`) to `module`. Limits
/// the lowering cannot meet (too many task instances) are reported as diagnostics; returns false
/// then.
bool LowerGraphToBpf(const rgir::Graph& graph, BpfModule& module,
                     const GraphLoweringOptions& options, DiagnosticList& diags);

}  // namespace uringc
