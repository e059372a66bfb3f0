// The ring as a controller sees it: load-time constants describing the ring's layout (in
// `.rodata`, filled by the loader from io_uring_params, frozen at load so the verifier knows
// them), and the two regions bpf_io_uring_get_region maps: the SQE array and the rings region with
// the SQ/CQ indices and the CQE array. Region sizes come from frozen `.rodata`, which the kfunc
// needs (`rdwr_buf_size` must be a constant to the verifier).
#pragma once

#include <string_view>

#include "bpf_ir/step_builder.h"

namespace uringc {

/// One field of the ring layout: a `const volatile __u32` member of the `.rodata` struct
/// `<prefix>ring` (one global, so a step loads its address once for all of them).
struct RingConstant {
  llvm::GlobalVariable* layout = nullptr;
  uint32_t index = 0;
  /// Set by a step that read the field once at its start (a value that dominates the step's
  /// code); Read then returns it instead of loading the field again.
  llvm::Value* value = nullptr;
  llvm::Value* Read(StepBuilder& sb) const {
    return value != nullptr ? value : sb.ReadConstField(layout, index);
  }
  /// The value is known when the program is compiled (a constant, not a load-time field).
  bool IsFixed() const { return llvm::isa_and_nonnull<llvm::Constant>(value); }
};

/// The fields of `.rodata struct uringc_ring_layout <prefix>ring` (default prefix `uringc_`). The
/// loader must set every one before load (uringc::RingLayoutFromParams computes them); the
/// initial values describe no ring, so a forgotten one fails at get_region or in the verifier.
struct RingConstants {
  RingConstant sq_entries;   ///< power of two
  RingConstant cq_entries;   ///< power of two
  RingConstant sq_tail_off;  ///< offsets into the rings region
  RingConstant cq_head_off;
  RingConstant cq_tail_off;
  RingConstant cqes_off;
  RingConstant rings_size;  ///< bytes of the rings region to map
  RingConstant sqes_size;   ///< bytes of the SQE array to map
  /// 1 on an SQ_REWIND ring (SQEs at sqes[0..n), the SQ tail stays 0), 0 with an SQ tail: the
  /// verifier knows the frozen value and removes the other ring's code (host_abi.h). A program
  /// compiled for SQ_REWIND rings only sets `value` to the constant 1 (FixSqRewind), so LLVM
  /// drops the tail ring's code from the object too.
  RingConstant sq_rewind;

  /// The object runs on SQ_REWIND rings only: `sq_rewind` becomes the constant 1.
  void FixSqRewind(llvm::LLVMContext& ctx) {
    sq_rewind.value = llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), 1);
  }
  /// Whether FixSqRewind was called.
  bool RewindOnly() const { return sq_rewind.IsFixed(); }
};

/// Declares the ring constants in `.rodata` (once per module; programs of one object share them).
RingConstants DeclareRingConstants(BpfModule& module, SourceRange decl,
                                   std::string_view prefix = "uringc_");

/// The mapped regions of one step, both null-checked.
struct RingRegions {
  llvm::Value* sqes = nullptr;   ///< IOU_REGION_SQ: `sqes_size` bytes
  llvm::Value* rings = nullptr;  ///< IOU_REGION_CQ: `rings_size` bytes
};

/// `bpf_io_uring_get_region(ring, id, size)`: `size` must be verifier-constant (an immediate or a
/// ReadConst of `.rodata`). Returns the possibly-NULL pointer; see EmitGetRegionChecked.
llvm::Value* EmitGetRegion(StepBuilder& sb, RegionId id, llvm::Value* size);
/// Same, then Stop(kNoRegion) when the kernel returned NULL.
llvm::Value* EmitGetRegionChecked(StepBuilder& sb, RegionId id, llvm::Value* size);
/// Maps the SQE array and the rings region, stopping with kNoRegion if either is missing.
RingRegions EmitGetRingRegions(StepBuilder& sb, const RingConstants& rc);

}  // namespace uringc
