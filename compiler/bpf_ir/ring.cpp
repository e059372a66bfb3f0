// Ring constants and region mapping; see ring.h.
#include "bpf_ir/ring.h"

#include <string>

namespace uringc {

RingConstants DeclareRingConstants(BpfModule& module, SourceRange decl, std::string_view prefix) {
  auto add = [&](const char* field) {
    return module.AddRodata(std::string(prefix) + field, ScalarType::kU32, 0, decl);
  };
  RingConstants rc;
  rc.sq_entries = add("sq_entries");
  rc.cq_entries = add("cq_entries");
  rc.sq_tail_off = add("sq_tail_off");
  rc.cq_head_off = add("cq_head_off");
  rc.cq_tail_off = add("cq_tail_off");
  rc.cqes_off = add("cqes_off");
  rc.rings_size = add("rings_size");
  rc.sqes_size = add("sqes_size");
  rc.sq_rewind = add("sq_rewind");
  return rc;
}

llvm::Value* EmitGetRegion(StepBuilder& sb, RegionId id, llvm::Value* size) {
  llvm::IRBuilder<>& ir = sb.ir();
  return ir.CreateCall(sb.module().GetRegionKfunc(),
                       {sb.ring(), ir.getInt32(static_cast<uint32_t>(id)),
                        ir.CreateZExtOrTrunc(size, ir.getInt64Ty())},
                       id == RegionId::kSq ? "sqes" : id == RegionId::kCq ? "rings" : "mem");
}

llvm::Value* EmitGetRegionChecked(StepBuilder& sb, RegionId id, llvm::Value* size) {
  llvm::Value* region = EmitGetRegion(sb, id, size);
  sb.StopIf(sb.ir().CreateIsNull(region), StopReason::kNoRegion);
  return region;
}

RingRegions EmitGetRingRegions(StepBuilder& sb, const RingConstants& rc) {
  RingRegions regions;
  // Two separate checks: the verifier learns non-NULL only from a branch on each pointer.
  regions.sqes = EmitGetRegion(sb, RegionId::kSq, sb.ReadConst(rc.sqes_size));
  regions.rings = EmitGetRegion(sb, RegionId::kCq, sb.ReadConst(rc.rings_size));
  sb.StopIf(sb.ir().CreateIsNull(regions.sqes), StopReason::kNoRegion);
  sb.StopIf(sb.ir().CreateIsNull(regions.rings), StopReason::kNoRegion);
  return regions;
}

}  // namespace uringc
