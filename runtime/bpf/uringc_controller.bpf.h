/* Declarations a C BPF controller needs to drive an io_uring ring through io_uring_bpf_ops.
 *
 * The kernel's own headers do not export these types (they live in io_uring/loop.h and
 * io_uring/bpf-ops.h), so a controller declares them itself; libbpf matches struct_ops members by
 * name against the kernel's BTF. Linux 7.2+ passes `struct iou_ctx *`, 7.1 `struct io_ring_ctx *`;
 * libbpf checks kfunc prototypes by kind, not struct name, and the verifier types loop_step's
 * context from the kernel's own prototype, so one object loads on both (run in the 7.1, 7.2 and 7.3
 * guests). Build with -DURINGC_TARGET_KERNEL_7_1 for BTF that names 7.1's struct exactly, as
 * `uringc compile --target-kernel=7.1` does; controllers keep writing `struct iou_ctx *`. The struct
 * must be complete (empty), not a forward declaration: libbpf treats FWD and STRUCT as different.
 */
#ifndef URINGC_CONTROLLER_BPF_H
#define URINGC_CONTROLLER_BPF_H

#include <linux/types.h>
#include <stddef.h>
#include <linux/io_uring.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#ifdef URINGC_TARGET_KERNEL_7_1
#define iou_ctx io_ring_ctx
#endif
struct iou_ctx {};

struct iou_loop_params {
	__u32 cq_wait_idx; /* sleep until the CQ tail reaches this index */
};

/* An fd parameter: `const volatile uringc_fd src = -1;`. `uringc run --arg src=PATH:MODE` opens
 * PATH and passes the fd only into a global of this type; a plain integer refuses a path. The
 * runtime and the compiler spell the name once, as kFdTypeName in runtime/include/uringc/host_abi.h (C++,
 * which BPF C cannot include): a rename changes both. */
typedef __s32 uringc_fd;

enum {
	IOU_LOOP_CONTINUE = 0,
	IOU_LOOP_STOP = 1,
};

enum {
	IOU_REGION_MEM = 0, /* the parameter region (IORING_REGISTER_MEM_REGION) */
	IOU_REGION_CQ = 1,  /* the rings mapping: SQ/CQ heads and tails, CQE array */
	IOU_REGION_SQ = 2,  /* the SQE array */
};

struct io_uring_bpf_ops {
	int (*loop_step)(struct iou_ctx *ctx, struct iou_loop_params *lp);
	__u32 ring_fd;
	void *priv;
};

/* Returns the region's memory typed as exactly rdwr_buf_size bytes, or NULL when the region is
 * smaller. rdwr_buf_size must be a constant to the verifier (an immediate or frozen .rodata). */
extern __u8 *bpf_io_uring_get_region(struct iou_ctx *ctx, __u32 region_id,
				     const size_t rdwr_buf_size) __weak __ksym;
/* Submits nr SQEs from the SQ ring; sleepable, so programs go in SEC("struct_ops.s/..."). */
extern int bpf_io_uring_submit_sqes(struct iou_ctx *ctx, __u32 nr) __weak __ksym;

/* The run-state convention the runtime reads after every io_uring_enter (docs/embedding.md):
 * declare `__u32 uringc_status;` (and optionally `__s32 uringc_error; __u64 uringc_steps;`) as
 * plain globals (.bss); set uringc_status to DONE or FAILED and return IOU_LOOP_STOP to finish. */
enum {
	URINGC_STATUS_RUNNING = 0,
	URINGC_STATUS_DONE = 1,
	URINGC_STATUS_FAILED = 2,
};

#define URINGC_READ_ONCE(x) (*(volatile __typeof__(x) *)&(x))
#define URINGC_WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

#endif /* URINGC_CONTROLLER_BPF_H */
