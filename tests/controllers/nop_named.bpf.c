/* nop_inflight's sibling with plain named globals instead of config/state structs: proves the
 * runtime sets parameters and reads outputs by name from BTF, fills the ring-layout constants
 * (uringc_*), and follows the run-state convention (uringc_status / uringc_error / uringc_steps).
 * When the ring has a parameter region, the count of completions is mirrored into its first 8 bytes
 * (IOU_REGION_MEM), so the host can check the region from user space.
 */
#include "uringc_controller.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define NOP_MAX 64
#define NOP_TOKEN 0x75726e67ULL

/* Ring layout, filled by the runtime at load. */
const volatile __u32 uringc_sq_entries;
const volatile __u32 uringc_cq_entries;
const volatile __u32 uringc_sq_tail_off;
const volatile __u32 uringc_cq_head_off;
const volatile __u32 uringc_cq_tail_off;
const volatile __u32 uringc_cqes_off;
const volatile __u32 uringc_rings_size;
const volatile __u32 uringc_mem_size;

/* Parameters. */
const volatile __u32 inflight = 1;
const volatile __u64 total = 1;

/* Outputs. */
__u64 submitted;
__u64 completed;
__u64 failed;
__u32 max_inflight;

/* Run state. */
__u32 uringc_status;
__s32 uringc_error;
__u64 uringc_steps;

static __always_inline int finish(__u32 status, __s32 error)
{
	uringc_error = error;
	uringc_status = status;
	return IOU_LOOP_STOP;
}

SEC("struct_ops.s/nop_named_step")
int BPF_PROG(nop_named_step, struct iou_ctx *ring, struct iou_loop_params *lp)
{
	const __u32 sq_mask = uringc_sq_entries - 1;
	const __u32 cq_mask = uringc_cq_entries - 1;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	__u32 *cq_head, *cq_tail, *sq_tail;
	__u32 head, tail, sq_idx, want, i;
	__u64 in_flight, left, *mem;
	void *rings;
	int ret;

	uringc_steps++;
	sqes = (void *)bpf_io_uring_get_region(ring, IOU_REGION_SQ,
					       uringc_sq_entries * sizeof(struct io_uring_sqe));
	rings = bpf_io_uring_get_region(ring, IOU_REGION_CQ, uringc_rings_size);
	if (!sqes || !rings)
		return finish(URINGC_STATUS_FAILED, -14 /* EFAULT */);
	cq_head = rings + uringc_cq_head_off;
	cq_tail = rings + uringc_cq_tail_off;
	sq_tail = rings + uringc_sq_tail_off;
	cqes = rings + uringc_cqes_off;

	head = *cq_head;
	tail = URINGC_READ_ONCE(*cq_tail);
	for (i = 0; i < NOP_MAX && head != tail; i++, head++) {
		struct io_uring_cqe *cqe = &cqes[head & cq_mask];

		if (cqe->user_data != NOP_TOKEN)
			return finish(URINGC_STATUS_FAILED, -71 /* EPROTO */);
		if (cqe->res < 0)
			failed++;
		completed++;
	}
	URINGC_WRITE_ONCE(*cq_head, head);

	if (uringc_mem_size >= 8) {
		mem = (void *)bpf_io_uring_get_region(ring, IOU_REGION_MEM, 8);
		if (mem)
			*mem = completed;
	}
	if (completed >= total)
		return finish(URINGC_STATUS_DONE, 0);

	in_flight = submitted - completed;
	left = total - submitted;
	want = 0;
	if (in_flight < inflight) {
		want = inflight - in_flight;
		if (want > left)
			want = left;
		if (want > NOP_MAX)
			want = NOP_MAX;
	}
	sq_idx = *sq_tail;
	for (i = 0; i < NOP_MAX && i < want; i++) {
		struct io_uring_sqe *sqe = &sqes[(sq_idx + i) & sq_mask];

		__builtin_memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = IORING_OP_NOP;
		sqe->user_data = NOP_TOKEN;
	}
	if (want) {
		URINGC_WRITE_ONCE(*sq_tail, sq_idx + want);
		ret = bpf_io_uring_submit_sqes(ring, want);
		if (ret != (int)want)
			return finish(URINGC_STATUS_FAILED, ret < 0 ? ret : -5 /* EIO */);
		submitted += want;
		in_flight += want;
		if (in_flight > max_inflight)
			max_inflight = in_flight;
	}
	lp->cq_wait_idx = URINGC_READ_ONCE(*cq_tail) != head ? head : head + 1;
	return IOU_LOOP_CONTINUE;
}

SEC(".struct_ops.link")
struct io_uring_bpf_ops nop_named_ops = {
	.loop_step = (void *)nop_named_step,
};
