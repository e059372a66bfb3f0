/* The lean C copy baseline of the benchmark (scripts/bench.py): one 4 KiB buffer, read, then
 * write exactly what was read at the same offset, until a read returns 0; one request in flight.
 * The algorithm of liburing's reference controller (test/bpf-progs/cp.bpf.c, which we learn from
 * and do not copy).
 *
 * Built twice (tests/bench/CMakeLists.txt): for SQ_REWIND rings (the SQE is always sqes[0]) and
 * with -DBENCH_SQ_TAIL for ordinary rings (the SQE goes at the SQ tail, which it advances). The
 * fds and the buffer are runtime parameters (an fd type, a buffers parameter of 4 KiB), so the
 * runtime's Controller sets them as it does for compiled graphs.
 */
#include <linux/errno.h>

#include "bench_ring_layout.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

enum { TOKEN_READ = 1, TOKEN_WRITE = 2 };

const volatile uringc_fd src = -1, dst = -1;
const volatile __u64 uringc_buffer_bytes_buf = 4096;

__u64 buf; /* the buffer's user address */
__u64 copied;
__u32 started;
__u64 uringc_steps;
__u32 uringc_status;
__s32 uringc_error;

/* Puts one read or write of `len` bytes at the current offset in the SQ and submits it. */
static __always_inline int submit(struct iou_ctx *ring, struct io_uring_sqe *sqes, void *rings,
				  __u8 opcode, __u32 len)
{
#ifdef BENCH_SQ_TAIL
	__u32 *sq_tail = rings + uringc_sq_tail_off;
	struct io_uring_sqe *sqe = &sqes[*sq_tail & (uringc_sq_entries - 1)];
#else
	struct io_uring_sqe *sqe = sqes;
#endif
	*sqe = (struct io_uring_sqe){};
	sqe->opcode = opcode;
	sqe->fd = opcode == IORING_OP_READ ? src : dst;
	sqe->addr = buf;
	sqe->len = len;
	sqe->off = copied;
	sqe->user_data = opcode == IORING_OP_READ ? TOKEN_READ : TOKEN_WRITE;
#ifdef BENCH_SQ_TAIL
	URINGC_WRITE_ONCE(*sq_tail, *sq_tail + 1);
#endif
	return bpf_io_uring_submit_sqes(ring, 1);
}

SEC("struct_ops.s/copy_4k_step")
int BPF_PROG(copy_4k_step, struct iou_ctx *ring, struct iou_loop_params *lp)
{
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqe;
	__u32 *cq_head, *cq_tail;
	void *rings;
	int ret;

	uringc_steps++;
	sqes = (void *)bpf_io_uring_get_region(ring, IOU_REGION_SQ, uringc_sqes_size);
	rings = bpf_io_uring_get_region(ring, IOU_REGION_CQ, uringc_rings_size);
	if (!sqes || !rings) {
		ret = -EFAULT;
		goto failed;
	}
	cq_head = rings + uringc_cq_head_off;
	cq_tail = rings + uringc_cq_tail_off;

	if (!started) {
		started = 1;
		ret = submit(ring, sqes, rings, IORING_OP_READ, uringc_buffer_bytes_buf);
		if (ret != 1)
			goto submit_failed;
	}
	if (*cq_tail != *cq_head) {
		if (*cq_tail - *cq_head != 1) { /* one request in flight: never two CQEs */
			ret = -ERANGE;
			goto failed;
		}
		cqe = (struct io_uring_cqe *)(rings + uringc_cqes_off) +
		      (*cq_head & (uringc_cq_entries - 1));
		ret = cqe->res;
		if (ret < 0)
			goto failed;
		if (cqe->user_data == TOKEN_READ) {
			if (ret == 0) {
				uringc_status = URINGC_STATUS_DONE;
				return IOU_LOOP_STOP;
			}
			ret = submit(ring, sqes, rings, IORING_OP_WRITE, ret);
		} else {
			copied += ret;
			ret = submit(ring, sqes, rings, IORING_OP_READ, uringc_buffer_bytes_buf);
		}
		if (ret != 1)
			goto submit_failed;
		*cq_head += 1;
	}
	lp->cq_wait_idx = *cq_head + 1;
	return IOU_LOOP_CONTINUE;
submit_failed:
	if (ret >= 0)
		ret = -EAGAIN;
failed:
	uringc_error = ret;
	uringc_status = URINGC_STATUS_FAILED;
	return IOU_LOOP_STOP;
}

SEC(".struct_ops.link")
struct io_uring_bpf_ops copy_4k_ops = {
	.loop_step = (void *)copy_4k_step,
};
