/* The hand-written baseline controller: keeps K NOP requests in flight until N have completed.
 *
 * Each loop_step reaps every available CQE (up to a constant bound the verifier can see), tops the
 * ring back up to K requests in flight, and asks the kernel to wake it at the next completion. The
 * compiled NOP chain is measured against this program, so it stays as plain as the ABI allows.
 */
#include "uringc_controller.bpf.h"
#include "nop_inflight.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile struct nop_inflight_config config;
struct nop_inflight_state state;

static __always_inline __u32 min_u32(__u32 a, __u32 b)
{
	return a < b ? a : b;
}

SEC("struct_ops.s/nop_inflight_step")
int BPF_PROG(nop_inflight_step, struct iou_ctx *ring, struct iou_loop_params *lp)
{
	const __u32 sq_mask = config.sq_entries - 1;
	const __u32 cq_mask = config.cq_entries - 1;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	__u32 *cq_head, *cq_tail, *sq_tail;
	__u32 head, tail, sq_idx, want, i;
	__u64 inflight, left;
	void *rings;
	int ret;

	state.steps++;
	sqes = (void *)bpf_io_uring_get_region(ring, IOU_REGION_SQ,
					       config.sq_entries * sizeof(struct io_uring_sqe));
	rings = bpf_io_uring_get_region(ring, IOU_REGION_CQ, config.rings_size);
	if (!sqes || !rings) {
		state.stop_reason = NOP_STOP_NO_REGION;
		return IOU_LOOP_STOP;
	}
	cq_head = rings + config.cq_head_off;
	cq_tail = rings + config.cq_tail_off;
	sq_tail = rings + config.sq_tail_off;
	cqes = rings + config.cqes_off;

	/* Reap. The kernel publishes the CQ tail; we own the CQ head. */
	head = *cq_head;
	tail = URINGC_READ_ONCE(*cq_tail);
	for (i = 0; i < NOP_INFLIGHT_MAX && head != tail; i++, head++) {
		struct io_uring_cqe *cqe = &cqes[head & cq_mask];

		if (cqe->user_data != NOP_INFLIGHT_TOKEN) {
			state.stop_reason = NOP_STOP_BAD_CQE;
			return IOU_LOOP_STOP;
		}
		if (cqe->res < 0)
			state.failed++;
		state.completed++;
	}
	URINGC_WRITE_ONCE(*cq_head, head);

	if (state.completed >= config.total) {
		state.stop_reason = NOP_STOP_DONE;
		return IOU_LOOP_STOP;
	}

	/* Top up to K in flight, never past N. */
	inflight = state.submitted - state.completed;
	left = config.total - state.submitted;
	want = 0;
	if (inflight < config.inflight)
		want = min_u32(config.inflight - inflight, left < NOP_INFLIGHT_MAX ? left : NOP_INFLIGHT_MAX);
	sq_idx = *sq_tail;
	for (i = 0; i < NOP_INFLIGHT_MAX && i < want; i++) {
		struct io_uring_sqe *sqe = &sqes[(sq_idx + i) & sq_mask];

		__builtin_memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = IORING_OP_NOP;
		sqe->user_data = NOP_INFLIGHT_TOKEN;
	}
	if (want) {
		URINGC_WRITE_ONCE(*sq_tail, sq_idx + want);
		ret = bpf_io_uring_submit_sqes(ring, want);
		if (ret != (int)want) {
			state.submit_ret = ret;
			state.stop_reason = NOP_STOP_SUBMIT_FAILED;
			return IOU_LOOP_STOP;
		}
		state.submitted += want;
		inflight += want;
		if (inflight > state.max_inflight)
			state.max_inflight = inflight;
	}

	/* Wake at the next completion, or at once when CQEs are already waiting. */
	lp->cq_wait_idx = URINGC_READ_ONCE(*cq_tail) != head ? head : head + 1;
	return IOU_LOOP_CONTINUE;
}

SEC(".struct_ops.link")
struct io_uring_bpf_ops nop_inflight_ops = {
	.loop_step = (void *)nop_inflight_step,
};
