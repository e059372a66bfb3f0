// What liburing 2.3 (Debian 12) and the 6.12 UAPI headers lack for io_uring_bpf_ops controllers.
// Every definition is guarded, so newer headers win. Values are the kernel's UAPI
// (include/uapi/linux/io_uring.h).
#pragma once

#include <liburing.h>
#include <linux/types.h>

#ifndef IORING_SETUP_NO_MMAP
#define IORING_SETUP_NO_MMAP (1U << 14)  // Linux 6.5
#endif
#ifndef IORING_SETUP_NO_SQARRAY
#define IORING_SETUP_NO_SQARRAY (1U << 16)  // Linux 6.6
#endif
#ifndef IORING_SETUP_SQ_REWIND
#define IORING_SETUP_SQ_REWIND (1U << 20)  // reported for 7.x; not used by default
#endif

// IORING_REGISTER_MEM_REGION (Linux 6.13): the parameter region a controller reads as
// IOU_REGION_MEM. liburing 2.3's enum stops at 25, so the opcode is a plain constant here.
#define URINGC_IORING_REGISTER_MEM_REGION 34u
#define URINGC_IORING_MEM_REGION_TYPE_USER 1u

namespace uringc {

/// struct io_uring_region_desc (UAPI, 6.13).
struct IoUringRegionDesc {
  __u64 user_addr;
  __u64 size;
  __u32 flags;
  __u32 id;
  __u64 mmap_offset;
  __u64 resv[4];
};
static_assert(sizeof(IoUringRegionDesc) == 64);

/// struct io_uring_mem_region_reg (UAPI, 6.13).
struct IoUringMemRegionReg {
  __u64 region_uptr;
  __u64 flags;
  __u64 resv[2];
};
static_assert(sizeof(IoUringMemRegionReg) == 32);

}  // namespace uringc
