// The DWARF types a controller's object describes. The BPF backend turns them into BTF, and libbpf
// and the kernel match the object against the kernel's own BTF *by name and kind*: the ops struct
// must be called `io_uring_bpf_ops` with members `loop_step`, `ring_fd`, `priv`; the context
// struct must be complete (an empty struct), not a forward declaration. Everything here is created
// once per module and cached.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "emit/kernel_abi.h"
#include "llvm/IR/DIBuilder.h"

namespace uringc {

/// Scalar types of BPF globals and values: the language's integers (i8..i64 signed, so the
/// runtime reads -1 as -1), `res` of a CQE (s32).
enum class ScalarType { kU8, kU16, kU32, kU64, kS8, kS16, kS32, kS64 };
inline constexpr int kScalarTypes = 8;

/// Bytes of a scalar type (also its natural alignment).
uint32_t ScalarSize(ScalarType type);
/// The UAPI name: `__u8` ... `__s64` (BTF typedefs, C headers).
const char* ScalarTypeName(ScalarType type);

class DebugTypes {
 public:
  DebugTypes(llvm::DIBuilder& di, llvm::DIFile* file, KernelAbi abi);

  /// `__u8` ... `__s64` (typedefs over the C base types, as the UAPI headers spell them).
  llvm::DIType* Scalar(ScalarType type);
  /// `const volatile T`: the type of a .rodata constant, which the loader fills and freezes.
  llvm::DIType* ConstVolatile(ScalarType type);
  /// `const volatile NAME` where `typedef T NAME`: a .rodata constant whose type name tells the
  /// host what the value means (`uringc_fd`: the runtime may open a file for it).
  llvm::DIType* ConstVolatileNamed(ScalarType type, std::string_view name);
  /// `T[count]` for any element type.
  llvm::DIType* Array(llvm::DIType* element, uint64_t element_bits, uint32_t align_bits,
                      uint64_t count);
  /// `void *`.
  llvm::DIType* VoidPtr();
  /// `__u64 *`: the type of a struct_ops program's ctx argument.
  llvm::DIType* U64Ptr();
  /// `size_t` (64-bit).
  llvm::DIType* SizeT();
  /// `struct iou_ctx *` (7.2+) or `struct io_ring_ctx *` (7.1).
  llvm::DIType* ContextPtr();
  /// `struct iou_loop_params *` ({__u32 cq_wait_idx}).
  llvm::DIType* LoopParamsPtr();
  /// `int (ctx *, struct iou_loop_params *)`: the type of the loop_step member.
  llvm::DISubroutineType* LoopStepType();
  /// `int (__u64 *ctx)`: the type of the program function itself.
  llvm::DISubroutineType* ProgramType();
  /// `struct io_uring_bpf_ops { loop_step, ring_fd, priv }`, 24 bytes.
  llvm::DICompositeType* OpsStruct();
  /// `__u8 *(ctx *, __u32 region_id, const size_t rdwr_buf_size)`.
  llvm::DISubroutineType* GetRegionType();
  /// `int (ctx *, __u32 nr)`.
  llvm::DISubroutineType* SubmitSqesType();
  /// `int (void *dst, __u32 dst__sz, void *unsafe_ptr__ign, __u64 flags)`.
  llvm::DISubroutineType* CopyFromUserStrType();
  /// `int`.
  llvm::DIType* Int();

 private:
  llvm::DIBasicType* Base(std::string_view name, uint64_t bits, unsigned encoding);
  llvm::DIType* Pointer(llvm::DIType* pointee);

  llvm::DIBuilder& di_;
  llvm::DIFile* file_;
  KernelAbi abi_;
  llvm::DIType* scalars_[kScalarTypes] = {};
  llvm::DIType* const_volatile_[kScalarTypes] = {};
  std::map<std::string, llvm::DIType*, std::less<>> const_volatile_named_;
  llvm::DIType* int_ = nullptr;
  llvm::DIType* void_ptr_ = nullptr;
  llvm::DIType* u64_ptr_ = nullptr;
  llvm::DIType* size_t_ = nullptr;
  llvm::DIType* context_ptr_ = nullptr;
  llvm::DIType* loop_params_ptr_ = nullptr;
  llvm::DISubroutineType* loop_step_type_ = nullptr;
  llvm::DISubroutineType* program_type_ = nullptr;
  llvm::DICompositeType* ops_ = nullptr;
  llvm::DISubroutineType* get_region_type_ = nullptr;
  llvm::DISubroutineType* submit_sqes_type_ = nullptr;
  llvm::DISubroutineType* copy_from_user_str_type_ = nullptr;
};

}  // namespace uringc
