/* The lean C NOP baseline of the benchmark (scripts/bench.py): keeps K NOPs in flight until n
 * have completed, with the algorithm of liburing's reference controller (test/bpf-progs/
 * nops.bpf.c, which we learn from and do not copy): each loop_step refills to K with ONE
 * bpf_io_uring_submit_sqes, reaps every CQE, and asks to be woken at the next completion.
 *
 * Built twice (tests/bench/CMakeLists.txt): for SQ_REWIND rings (the SQEs are sqes[0..n), there
 * is no SQ tail, as upstream's rings have) and with -DBENCH_SQ_TAIL for ordinary rings, where the
 * SQEs go at the SQ tail and the program advances it. K is a load-time constant, so the verifier
 * knows every loop bound. Finishes with the runtime's run-state convention (uringc_status).
 */
#include "bench_ring_layout.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define NOP_TOKEN 0x6e6f7073

/* K, set by the loader; the SQ must hold at least K entries. */
const volatile __u32 inflight_target = 1;

__u32 nops_left; /* n, set by the loader: NOPs not yet completed */
__u32 inflight;
__u64 uringc_steps;
__u32 uringc_status;

SEC("struct_ops.s/nops_step")
int BPF_PROG(nops_step, struct iou_ctx *ring, struct iou_loop_params *lp)
{
	const __u32 k = inflight_target;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	__u32 *cq_head, *cq_tail, to_submit = 0, ready, i;
	void *rings;

	uringc_steps++;
	sqes = (void *)bpf_io_uring_get_region(ring, IOU_REGION_SQ, uringc_sqes_size);
	rings = bpf_io_uring_get_region(ring, IOU_REGION_CQ, uringc_rings_size);
	if (!sqes || !rings)
		goto failed;
	cq_head = rings + uringc_cq_head_off;
	cq_tail = rings + uringc_cq_tail_off;
	cqes = rings + uringc_cqes_off;

	if (inflight < k) {
		to_submit = k - inflight;
		if (to_submit > nops_left - inflight)
			to_submit = nops_left - inflight;
	}
	if (to_submit) {
#ifdef BENCH_SQ_TAIL
		__u32 *sq_tail = rings + uringc_sq_tail_off;
		const __u32 tail = *sq_tail;
#else
		const __u32 tail = 0;
#endif
		for (i = 0; i < to_submit; i++) {
#ifdef BENCH_SQ_TAIL
			struct io_uring_sqe *sqe = &sqes[(tail + i) & (uringc_sq_entries - 1)];
#else
			struct io_uring_sqe *sqe = &sqes[tail + i];
#endif
			*sqe = (struct io_uring_sqe){};
			sqe->opcode = IORING_OP_NOP;
			sqe->user_data = NOP_TOKEN;
		}
#ifdef BENCH_SQ_TAIL
		URINGC_WRITE_ONCE(*sq_tail, tail + to_submit);
#endif
		if (bpf_io_uring_submit_sqes(ring, to_submit) != (int)to_submit)
			goto failed;
		inflight += to_submit;
	}

	ready = *cq_tail - *cq_head;
	if (ready > k)
		ready = k;
	for (i = 0; i < ready; i++) {
		if (cqes[*cq_head & (uringc_cq_entries - 1)].user_data != NOP_TOKEN)
			goto failed;
		*cq_head += 1;
	}
	inflight -= ready;
	nops_left -= ready;
	if (!nops_left && !inflight) {
		uringc_status = URINGC_STATUS_DONE;
		return IOU_LOOP_STOP;
	}
	/* Sleep until every request in flight has completed, unless CQEs are waiting already. */
	lp->cq_wait_idx = *cq_head + (*cq_tail != *cq_head ? 0 : inflight);
	return IOU_LOOP_CONTINUE;
failed:
	uringc_status = URINGC_STATUS_FAILED;
	return IOU_LOOP_STOP;
}

SEC(".struct_ops.link")
struct io_uring_bpf_ops nops_ops = {
	.loop_step = (void *)nops_step,
};
