// Builds the DWARF (and so BTF) types of a controller object; see debug_types.h.
#include "emit/debug_types.h"

#include <iterator>

#include "llvm/BinaryFormat/Dwarf.h"

namespace uringc {
namespace {

constexpr uint64_t kPointerBits = 64;

struct ScalarInfo {
  const char* base;
  const char* typedef_name;
  uint64_t bits;
  unsigned encoding;
};

constexpr ScalarInfo kScalars[] = {
    {"unsigned char", "__u8", 8, llvm::dwarf::DW_ATE_unsigned_char},
    {"unsigned short", "__u16", 16, llvm::dwarf::DW_ATE_unsigned},
    {"unsigned int", "__u32", 32, llvm::dwarf::DW_ATE_unsigned},
    {"unsigned long long", "__u64", 64, llvm::dwarf::DW_ATE_unsigned},
    {"signed char", "__s8", 8, llvm::dwarf::DW_ATE_signed_char},
    {"short", "__s16", 16, llvm::dwarf::DW_ATE_signed},
    {"int", "__s32", 32, llvm::dwarf::DW_ATE_signed},
    {"long long", "__s64", 64, llvm::dwarf::DW_ATE_signed},
};

static_assert(std::size(kScalars) == kScalarTypes);

}  // namespace

uint32_t ScalarSize(ScalarType type) {
  return static_cast<uint32_t>(kScalars[static_cast<int>(type)].bits / 8);
}

const char* ScalarTypeName(ScalarType type) {
  return kScalars[static_cast<int>(type)].typedef_name;
}

DebugTypes::DebugTypes(llvm::DIBuilder& di, llvm::DIFile* file, KernelAbi abi)
    : di_(di), file_(file), abi_(abi) {}

llvm::DIBasicType* DebugTypes::Base(std::string_view name, uint64_t bits, unsigned encoding) {
  return di_.createBasicType(llvm::StringRef(name.data(), name.size()), bits, encoding);
}

llvm::DIType* DebugTypes::Pointer(llvm::DIType* pointee) {
  return di_.createPointerType(pointee, kPointerBits);
}

llvm::DIType* DebugTypes::Scalar(ScalarType type) {
  llvm::DIType*& slot = scalars_[static_cast<int>(type)];
  if (slot == nullptr) {
    const ScalarInfo& info = kScalars[static_cast<int>(type)];
    slot = di_.createTypedef(Base(info.base, info.bits, info.encoding), info.typedef_name, file_, 0,
                             file_);
  }
  return slot;
}

llvm::DIType* DebugTypes::ConstVolatile(ScalarType type) {
  llvm::DIType*& slot = const_volatile_[static_cast<int>(type)];
  if (slot == nullptr) {
    slot = di_.createQualifiedType(
        llvm::dwarf::DW_TAG_const_type,
        di_.createQualifiedType(llvm::dwarf::DW_TAG_volatile_type, Scalar(type)));
  }
  return slot;
}

llvm::DIType* DebugTypes::ConstVolatileNamed(ScalarType type, std::string_view name) {
  auto it = const_volatile_named_.find(name);
  if (it != const_volatile_named_.end()) return it->second;
  llvm::DIType* named =
      di_.createTypedef(Scalar(type), llvm::StringRef(name.data(), name.size()), file_, 0, file_);
  llvm::DIType* cv = di_.createQualifiedType(
      llvm::dwarf::DW_TAG_const_type,
      di_.createQualifiedType(llvm::dwarf::DW_TAG_volatile_type, named));
  const_volatile_named_.emplace(std::string(name), cv);
  return cv;
}

llvm::DIType* DebugTypes::Array(llvm::DIType* element, uint64_t element_bits, uint32_t align_bits,
                                uint64_t count) {
  llvm::Metadata* range = di_.getOrCreateSubrange(0, static_cast<int64_t>(count));
  return di_.createArrayType(element_bits * count, align_bits, element,
                             di_.getOrCreateArray({range}));
}

llvm::DIType* DebugTypes::Int() {
  if (int_ == nullptr) int_ = Base("int", 32, llvm::dwarf::DW_ATE_signed);
  return int_;
}

llvm::DIType* DebugTypes::VoidPtr() {
  if (void_ptr_ == nullptr) void_ptr_ = Pointer(nullptr);
  return void_ptr_;
}

llvm::DIType* DebugTypes::U64Ptr() {
  if (u64_ptr_ == nullptr) u64_ptr_ = Pointer(Scalar(ScalarType::kU64));
  return u64_ptr_;
}

llvm::DIType* DebugTypes::SizeT() {
  if (size_t_ == nullptr) {
    size_t_ = di_.createTypedef(Base("unsigned long", 64, llvm::dwarf::DW_ATE_unsigned), "size_t",
                                file_, 0, file_);
  }
  return size_t_;
}

llvm::DIType* DebugTypes::ContextPtr() {
  if (context_ptr_ == nullptr) {
    // Complete and empty: libbpf treats a forward declaration as a different kind.
    std::string_view name = ContextStructName(abi_);
    auto* ctx = di_.createStructType(file_, llvm::StringRef(name.data(), name.size()), file_, 0,
                                     uint64_t{0}, 8, llvm::DINode::FlagZero, nullptr,
                                     di_.getOrCreateArray({}));
    context_ptr_ = Pointer(ctx);
  }
  return context_ptr_;
}

llvm::DIType* DebugTypes::LoopParamsPtr() {
  if (loop_params_ptr_ == nullptr) {
    auto* params = di_.createStructType(file_, "iou_loop_params", file_, 0, uint64_t{32}, 32,
                                        llvm::DINode::FlagZero, nullptr, di_.getOrCreateArray({}));
    llvm::Metadata* members[] = {di_.createMemberType(params, "cq_wait_idx", file_, 0, 32, 32, 0,
                                                      llvm::DINode::FlagZero,
                                                      Scalar(ScalarType::kU32))};
    di_.replaceArrays(params, di_.getOrCreateArray(members));
    loop_params_ptr_ = Pointer(params);
  }
  return loop_params_ptr_;
}

llvm::DISubroutineType* DebugTypes::LoopStepType() {
  if (loop_step_type_ == nullptr) {
    loop_step_type_ =
        di_.createSubroutineType(di_.getOrCreateTypeArray({Int(), ContextPtr(), LoopParamsPtr()}));
  }
  return loop_step_type_;
}

llvm::DISubroutineType* DebugTypes::ProgramType() {
  if (program_type_ == nullptr) {
    program_type_ = di_.createSubroutineType(di_.getOrCreateTypeArray({Int(), U64Ptr()}));
  }
  return program_type_;
}

llvm::DICompositeType* DebugTypes::OpsStruct() {
  if (ops_ == nullptr) {
    ops_ = di_.createStructType(file_, "io_uring_bpf_ops", file_, 0, uint64_t{192}, 64,
                                llvm::DINode::FlagZero, nullptr, di_.getOrCreateArray({}));
    llvm::Metadata* members[] = {
        di_.createMemberType(ops_, "loop_step", file_, 0, 64, 64, 0, llvm::DINode::FlagZero,
                             Pointer(LoopStepType())),
        di_.createMemberType(ops_, "ring_fd", file_, 0, 32, 32, 64, llvm::DINode::FlagZero,
                             Scalar(ScalarType::kU32)),
        di_.createMemberType(ops_, "priv", file_, 0, 64, 64, 128, llvm::DINode::FlagZero,
                             VoidPtr()),
    };
    di_.replaceArrays(ops_, di_.getOrCreateArray(members));
  }
  return ops_;
}

llvm::DISubroutineType* DebugTypes::GetRegionType() {
  if (get_region_type_ == nullptr) {
    llvm::DIType* size = di_.createQualifiedType(llvm::dwarf::DW_TAG_const_type, SizeT());
    get_region_type_ = di_.createSubroutineType(di_.getOrCreateTypeArray(
        {Pointer(Scalar(ScalarType::kU8)), ContextPtr(), Scalar(ScalarType::kU32), size}));
  }
  return get_region_type_;
}

llvm::DISubroutineType* DebugTypes::SubmitSqesType() {
  if (submit_sqes_type_ == nullptr) {
    submit_sqes_type_ = di_.createSubroutineType(
        di_.getOrCreateTypeArray({Int(), ContextPtr(), Scalar(ScalarType::kU32)}));
  }
  return submit_sqes_type_;
}

llvm::DISubroutineType* DebugTypes::CopyFromUserStrType() {
  if (copy_from_user_str_type_ == nullptr) {
    copy_from_user_str_type_ = di_.createSubroutineType(di_.getOrCreateTypeArray(
        {Int(), VoidPtr(), Scalar(ScalarType::kU32), VoidPtr(), Scalar(ScalarType::kU64)}));
  }
  return copy_from_user_str_type_;
}

}  // namespace uringc
