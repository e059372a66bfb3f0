// Ring constants and region mapping; see ring.h.
#include "bpf_ir/ring.h"

#include <string>
#include <vector>

namespace uringc {

RingConstants DeclareRingConstants(BpfModule& module, SourceRange decl, std::string_view prefix) {
  static constexpr const char* kFields[] = {"sq_entries",  "cq_entries",  "sq_tail_off",
                                            "cq_head_off", "cq_tail_off", "cqes_off",
                                            "rings_size",  "sqes_size",   "sq_rewind"};
  constexpr uint32_t kCount = sizeof(kFields) / sizeof(kFields[0]);
  llvm::DIBuilder& di = module.di();
  llvm::DIFile* file = module.File(decl.file);
  auto* layout = di.createStructType(file, "uringc_ring_layout", file, 0, 32 * kCount, 32,
                                     llvm::DINode::FlagZero, nullptr, di.getOrCreateArray({}));
  std::vector<llvm::Metadata*> members;
  for (uint32_t i = 0; i < kCount; ++i) {
    members.push_back(di.createMemberType(layout, kFields[i], file, 0, 32, 32, 32 * i,
                                          llvm::DINode::FlagZero,
                                          module.types().Scalar(ScalarType::kU32)));
  }
  di.replaceArrays(layout, di.getOrCreateArray(members));
  llvm::DIType* type =
      di.createQualifiedType(llvm::dwarf::DW_TAG_const_type,
                             di.createQualifiedType(llvm::dwarf::DW_TAG_volatile_type, layout));
  llvm::GlobalVariable* gv = module.AddRodata(
      std::string(prefix) + "ring",
      llvm::ArrayType::get(llvm::Type::getInt32Ty(module.context()), kCount), type, 4, decl);
  uint32_t next = 0;
  auto field = [&] { return RingConstant{gv, next++}; };
  RingConstants rc;  // in kFields' order
  rc.sq_entries = field();
  rc.cq_entries = field();
  rc.sq_tail_off = field();
  rc.cq_head_off = field();
  rc.cq_tail_off = field();
  rc.cqes_off = field();
  rc.rings_size = field();
  rc.sqes_size = field();
  rc.sq_rewind = field();
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
  regions.sqes = EmitGetRegion(sb, RegionId::kSq, rc.sqes_size.Read(sb));
  regions.rings = EmitGetRegion(sb, RegionId::kCq, rc.rings_size.Read(sb));
  sb.StopIf(sb.ir().CreateIsNull(regions.sqes), StopReason::kNoRegion);
  sb.StopIf(sb.ir().CreateIsNull(regions.rings), StopReason::kNoRegion);
  return regions;
}

}  // namespace uringc
