/* A ublk null target by hand: the route docs/ublk.md describes, checked on the real driver before
 * the language lowers to it. The first step issues UBLK_U_IO_FETCH_REQ for every tag (user space
 * cannot submit once a controller is attached); each FETCH completion with result 0 is a request
 * for its tag: the controller reads the tag's I/O descriptor from the server's read-only mmap of
 * /dev/ublkcN with bpf_copy_from_user, completes it at once (READ and WRITE with all their
 * bytes, everything else with 0) and fetches the next one in the same command,
 * UBLK_U_IO_COMMIT_AND_FETCH_REQ. A completion with UBLK_IO_RES_ABORT (the device stopped) ends
 * its tag; the controller is done when every tag has ended. Tail rings only (it writes the SQ
 * tail). Follows the run-state convention (uringc_status / uringc_error / uringc_steps).
 */
#include "uringc_controller.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define UBLK_NULL_MAX_TAGS 64
#define UBLK_U_IO_FETCH_REQ 0xC0107520u
#define UBLK_U_IO_COMMIT_AND_FETCH_REQ 0xC0107521u
#define UBLK_IO_RES_ABORT (-19)
#define UBLK_IO_OP_READ 0
#define UBLK_IO_OP_WRITE 1

struct ublk_io_desc { /* struct ublksrv_io_desc */
	__u32 op_flags;
	__u32 nr_sectors;
	__u64 start_sector;
	__u64 addr;
};

struct ublk_io_cmd { /* struct ublksrv_io_cmd, the SQE's 16-byte command */
	__u16 q_id;
	__u16 tag;
	__s32 result;
	__u64 addr;
};

const volatile __u32 uringc_sq_entries;
const volatile __u32 uringc_cq_entries;
const volatile __u32 uringc_sq_tail_off;
const volatile __u32 uringc_cq_head_off;
const volatile __u32 uringc_cq_tail_off;
const volatile __u32 uringc_cqes_off;
const volatile __u32 uringc_rings_size;

const volatile uringc_fd ublkc = -1;  /* /dev/ublkcN */
const volatile __u16 queue;           /* the queue this ring serves */
const volatile __u32 depth = 1;       /* its tags, at most UBLK_NULL_MAX_TAGS */
const volatile __u64 descs;           /* user address of the queue's descriptor array */
const volatile __u64 bufs;            /* user address of depth * buf_bytes of request buffers */
const volatile __u32 buf_bytes;

__u64 reads, writes, others; /* requests completed, by kind */
__u64 bytes;                 /* bytes of READ and WRITE requests */
__u64 aborted;               /* tags ended by UBLK_IO_RES_ABORT */
__s64 copy_error;            /* the last failed bpf_copy_from_user, 0 if none */

__u32 uringc_status;
__s32 uringc_error;
__u64 uringc_steps;

__u32 started; /* not static: clang would shrink a static 0/1 flag to one byte, which BTF refuses */
/* SQEs written this step: kept in memory, so every path through the reap loop's body reaches the
 * next turn with the same registers and the verifier prunes them (a count in a register differs
 * per path and multiplies the states). */
static __u32 pushed;

static __always_inline int finish(__u32 status, __s32 error)
{
	uringc_error = error;
	uringc_status = status;
	return IOU_LOOP_STOP;
}

static __always_inline void push_cmd(struct io_uring_sqe *sqes, __u32 idx, __u32 op, __u16 tag,
				     __s32 result)
{
	struct io_uring_sqe *sqe = &sqes[idx & (uringc_sq_entries - 1)];
	struct ublk_io_cmd *cmd = (void *)sqe + 48; /* sqe->cmd */

	__builtin_memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = ublkc;
	sqe->off = op; /* cmd_op, the low half */
	sqe->user_data = tag;
	cmd->q_id = queue;
	cmd->tag = tag;
	cmd->result = result;
	cmd->addr = bufs + (__u64)tag * buf_bytes;
}

SEC("struct_ops.s/ublk_null_step")
int BPF_PROG(ublk_null_step, struct iou_ctx *ring, struct iou_loop_params *lp)
{
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	__u32 *cq_head, *cq_tail, *sq_tail, head, tail, sq_idx, n, i;
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
	sq_idx = *sq_tail;
	URINGC_WRITE_ONCE(pushed, 0);

	if (!started) {
		if (depth > UBLK_NULL_MAX_TAGS || depth > uringc_sq_entries)
			return finish(URINGC_STATUS_FAILED, -22 /* EINVAL */);
		for (i = 0; i < UBLK_NULL_MAX_TAGS && i < depth; i++)
			push_cmd(sqes, sq_idx + i, UBLK_U_IO_FETCH_REQ, i, -1);
		URINGC_WRITE_ONCE(pushed, i);
		started = 1;
	}

	head = *cq_head;
	tail = URINGC_READ_ONCE(*cq_tail);
	for (i = 0; i < UBLK_NULL_MAX_TAGS && head != tail; i++, head++) {
		struct io_uring_cqe *cqe = &cqes[head & (uringc_cq_entries - 1)];
		__u16 tag = cqe->user_data;
		struct ublk_io_desc desc;
		__s32 result = 0;

		n = URINGC_READ_ONCE(pushed);
		if (n >= uringc_sq_entries)
			break; /* the rest next step */
		if (cqe->res == UBLK_IO_RES_ABORT) {
			aborted++;
			continue;
		}
		if (cqe->res < 0 || tag >= depth) {
			URINGC_WRITE_ONCE(*cq_head, head + 1);
			return finish(URINGC_STATUS_FAILED, cqe->res < 0 ? cqe->res : -5 /* EIO */);
		}
		ret = bpf_copy_from_user(&desc, sizeof(desc),
					 (void *)(descs + (__u64)tag * sizeof(desc)));
		if (ret < 0) {
			copy_error = ret;
			result = -5; /* EIO: the block layer sees an I/O error */
		} else if ((desc.op_flags & 0xff) == UBLK_IO_OP_READ) {
			reads++;
			result = desc.nr_sectors << 9;
		} else if ((desc.op_flags & 0xff) == UBLK_IO_OP_WRITE) {
			writes++;
			result = desc.nr_sectors << 9;
		} else {
			others++;
		}
		if (result > 0)
			bytes += result;
		push_cmd(sqes, sq_idx + n, UBLK_U_IO_COMMIT_AND_FETCH_REQ, tag, result);
		URINGC_WRITE_ONCE(pushed, n + 1);
	}
	URINGC_WRITE_ONCE(*cq_head, head);
	n = URINGC_READ_ONCE(pushed);

	if (n) {
		URINGC_WRITE_ONCE(*sq_tail, sq_idx + n);
		ret = bpf_io_uring_submit_sqes(ring, n);
		if (ret != (int)n)
			return finish(URINGC_STATUS_FAILED, ret < 0 ? ret : -5 /* EIO */);
	}
	if (aborted >= depth)
		return finish(URINGC_STATUS_DONE, 0);
	lp->cq_wait_idx = URINGC_READ_ONCE(*cq_tail) != head ? head : head + 1;
	return IOU_LOOP_CONTINUE;
}

SEC(".struct_ops.link")
struct io_uring_bpf_ops ublk_null_ops = {
	.loop_step = (void *)ublk_null_step,
};
