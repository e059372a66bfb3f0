/* Copies one file to another with IORING_OP_READ / IORING_OP_WRITE through a buffer, one request
 * at a time: the runtime's fd parameters (`src`, `dst`: opened from PATH:MODE) and buffer parameter
 * (`buf`: allocated by the runtime, passed as an address) exercised on real files. Follows the
 * run-state convention (uringc_status / uringc_error / uringc_steps).
 */
#include "uringc_controller.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

enum { COPY_READ = 1, COPY_WRITE = 2 };

const volatile __u32 uringc_sq_entries;
const volatile __u32 uringc_cq_entries;
const volatile __u32 uringc_sq_tail_off;
const volatile __u32 uringc_cq_head_off;
const volatile __u32 uringc_cq_tail_off;
const volatile __u32 uringc_cqes_off;
const volatile __u32 uringc_rings_size;

const volatile uringc_fd src = -1;   /* fd to read */
const volatile uringc_fd dst = -1;   /* fd to write */
const volatile __u64 buf;            /* address of the runtime's buffer */
/* Declares `buf` a buffers parameter of 4096 bytes: the runtime refuses shorter memory. */
const volatile __u64 uringc_buffer_bytes_buf = 4096;
const volatile __u32 buf_size = 4096; /* bytes per read, at most uringc_buffer_bytes_buf */

__u64 copied;   /* bytes written */
__u64 requests; /* requests submitted */

__u32 uringc_status;
__s32 uringc_error;
__u64 uringc_steps;

static __u64 offset;
static __u32 pending; /* COPY_READ or COPY_WRITE in flight, 0 before the first step */

static __always_inline int finish(__u32 status, __s32 error)
{
	uringc_error = error;
	uringc_status = status;
	return IOU_LOOP_STOP;
}

static __always_inline int submit(struct iou_ctx *ring, struct io_uring_sqe *sqes, __u32 *sq_tail,
				  __u8 op, __s32 fd, __u32 len)
{
	__u32 idx = *sq_tail;
	struct io_uring_sqe *sqe = &sqes[idx & (uringc_sq_entries - 1)];

	__builtin_memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = op;
	sqe->fd = fd;
	sqe->addr = buf;
	sqe->len = len < uringc_buffer_bytes_buf ? len : uringc_buffer_bytes_buf;
	sqe->off = offset;
	sqe->user_data = op == IORING_OP_READ ? COPY_READ : COPY_WRITE;
	URINGC_WRITE_ONCE(*sq_tail, idx + 1);
	pending = op == IORING_OP_READ ? COPY_READ : COPY_WRITE;
	requests++;
	return bpf_io_uring_submit_sqes(ring, 1);
}

SEC("struct_ops.s/copy_file_step")
int BPF_PROG(copy_file_step, struct iou_ctx *ring, struct iou_loop_params *lp)
{
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes, *cqe;
	__u32 *cq_head, *cq_tail, *sq_tail, head;
	void *rings;
	int ret = 1;

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
	if (pending == 0) {
		ret = submit(ring, sqes, sq_tail, IORING_OP_READ, src, buf_size);
	} else if (head != URINGC_READ_ONCE(*cq_tail)) {
		cqe = &cqes[head & (uringc_cq_entries - 1)];
		URINGC_WRITE_ONCE(*cq_head, head + 1);
		head++;
		if (cqe->res < 0)
			return finish(URINGC_STATUS_FAILED, cqe->res);
		if (cqe->user_data == COPY_READ) {
			if (cqe->res == 0)
				return finish(URINGC_STATUS_DONE, 0);
			ret = submit(ring, sqes, sq_tail, IORING_OP_WRITE, dst, cqe->res);
		} else {
			copied += cqe->res;
			offset += cqe->res;
			ret = submit(ring, sqes, sq_tail, IORING_OP_READ, src, buf_size);
		}
	}
	if (ret != 1)
		return finish(URINGC_STATUS_FAILED, ret < 0 ? ret : -5 /* EIO */);
	lp->cq_wait_idx = head + 1;
	return IOU_LOOP_CONTINUE;
}

SEC(".struct_ops.link")
struct io_uring_bpf_ops copy_file_ops = {
	.loop_step = (void *)copy_file_step,
};
