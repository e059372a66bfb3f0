/* Mistake: uses the region pointer without checking it for NULL (MissingNullCheck). */
#include "bad_common.h"

__u64 bad_value;

SEC("struct_ops.s/bad_null_step")
int BPF_PROG(bad_null_step, struct iou_ctx *ring, struct iou_loop_params *lp)
{
	__u64 *sqes = (void *)bpf_io_uring_get_region(ring, IOU_REGION_SQ, 64);

	bad_value = sqes[1];
	return IOU_LOOP_STOP;
}

BAD_OPS(bad_null)
