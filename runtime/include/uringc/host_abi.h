// Names by which a compiled controller and its host find each other: the compiler gives globals
// and BTF types these names, the runtime looks them up by name. Header only and free of LLVM and
// libbpf, so the back end and the runtime both include it (library uringc_host_abi). Hand-written
// C controllers spell the same names through runtime/bpf/uringc_controller.bpf.h.
#pragma once

#include <cstdint>

namespace uringc {

/// Each `buffers[N] of SIZE` parameter `p` comes with `.rodata __u64 uringc_buffer_bytes_<p> =
/// N * SIZE`: the bytes the host must provide at `p`'s address. The runtime finds the buffers
/// parameters by this prefix and refuses shorter memory.
inline constexpr const char* kBufferBytesGlobalPrefix = "uringc_buffer_bytes_";

/// Each `shared buffers[N] of SIZE` parameter `p` lives in the ring's parameter region, not in
/// host memory: `.rodata __u64 uringc_shared_off_<p>` is its offset there and
/// `uringc_shared_bytes_<p>` its size (N * SIZE). The host sets nothing for it; it reads and
/// writes the bytes at that offset of the region (Controller::SharedBuffer).
inline constexpr const char* kSharedOffsetGlobalPrefix = "uringc_shared_off_";
inline constexpr const char* kSharedBytesGlobalPrefix = "uringc_shared_bytes_";

/// A graph's `provided buffers[N] of SIZE` pool (at most one) lives in the parameter region too,
/// with a buffer ring of N entries (group 0) beside it: `.rodata __u64 uringc_pbuf_off` (the
/// buffers' offset), `uringc_pbuf_ring_off` (the ring's, page aligned), `uringc_pbuf_size`
/// (SIZE) and `__u32 uringc_pbuf_count` (N, a power of two; 0: no pool). The host registers the
/// ring (IORING_REGISTER_PBUF_RING at its user address) and fills it with the N buffers; the
/// controller gives buffers back to it as the graph is done with them.
inline constexpr const char* kPbufOffGlobal = "uringc_pbuf_off";
inline constexpr const char* kPbufRingOffGlobal = "uringc_pbuf_ring_off";
inline constexpr const char* kPbufSizeGlobal = "uringc_pbuf_size";
inline constexpr const char* kPbufCountGlobal = "uringc_pbuf_count";

/// Each host `buffers` parameter `p` comes with `.rodata __u32 uringc_fixed_<p>`, 0 as compiled:
/// the host that registers p's memory as a fixed buffer (IORING_REGISTER_BUFFERS) sets it to
/// kFixedBufferFlag | the buffer's index before load, and the controller's reads and writes of
/// p's views become IORING_OP_READ_FIXED / WRITE_FIXED on it (buf_index: the low 16 bits, so
/// taking the index costs the controller nothing).
inline constexpr const char* kFixedIndexGlobalPrefix = "uringc_fixed_";
inline constexpr uint32_t kFixedBufferFlag = 0x10000;

/// The BTF type of every `fd` parameter: `typedef __s32 uringc_fd`. `uringc run` opens a file
/// for `--arg NAME=PATH:MODE` only into a global of this type; a plain integer refuses a path.
inline constexpr const char* kFdTypeName = "uringc_fd";

/// `.rodata __u32 uringc_sq_rewind`, filled in at load like the other ring constants: 1 on an
/// IORING_SETUP_SQ_REWIND ring (the controller writes sqes[0..n) and must leave the SQ tail
/// alone), 0 on a ring with an SQ tail. A controller that declares it handles both; one that
/// declares `uringc_sq_tail_off` without it is refused on SQ_REWIND rings.
inline constexpr const char* kSqRewindGlobal = "uringc_sq_rewind";

/// `.rodata const volatile struct uringc_ring_layout uringc_ring`: compiled controllers keep the
/// ring constants in one struct (one address to load per step), each field named as the
/// `uringc_<field>` global a hand-written controller would declare (`sq_entries`, `sq_rewind`...);
/// the runtime fills both forms.
inline constexpr const char* kRingLayoutGlobal = "uringc_ring";

/// `.rodata __u32 uringc_needs_submit_all = 1`: the controller submits each batch with one
/// bpf_io_uring_submit_sqes call and counts on IORING_SETUP_SUBMIT_ALL to go past an SQE whose
/// preparation fails. The runtime refuses to load it on a ring without that flag.
inline constexpr const char* kSubmitAllGlobal = "uringc_needs_submit_all";

/// `.rodata __u32 uringc_needs_sq_rewind = 1`: the controller writes its SQEs at sqes[0..n) and
/// never reads or publishes an SQ tail (`uringc compile --ring=rewind`, the default), so it runs
/// only on IORING_SETUP_SQ_REWIND rings: the runtime makes one in RingMode::kAuto and refuses a
/// ring with an SQ tail.
inline constexpr const char* kNeedsSqRewindGlobal = "uringc_needs_sq_rewind";

}  // namespace uringc
