/* Mistake: reads 8 bytes at offset 64 of a region mapped as 64 bytes (RegionOutOfBounds). */
#include "bad_common.h"

__u64 bad_value;

SEC("struct_ops.s/bad_oob_step")
int BPF_PROG(bad_oob_step, struct iou_ctx *ring, struct iou_loop_params *lp)
{
	__u64 *sqes = (void *)bpf_io_uring_get_region(ring, IOU_REGION_SQ, 64);

	if (!sqes)
		return IOU_LOOP_STOP;
	bad_value = sqes[8];
	return IOU_LOOP_STOP;
}

BAD_OPS(bad_oob)
