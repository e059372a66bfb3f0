/* Mistake: spins until the CQ head changes, which the verifier sees as a loop whose state never
 * changes (UnboundedLoop). */
#include "bad_common.h"

SEC("struct_ops.s/bad_loop_step")
int BPF_PROG(bad_loop_step, struct iou_ctx *ring, struct iou_loop_params *lp)
{
	__u32 *rings = (void *)bpf_io_uring_get_region(ring, IOU_REGION_CQ, 64);

	if (!rings)
		return IOU_LOOP_STOP;
	while (URINGC_READ_ONCE(rings[0]) != 12345)
		;
	return IOU_LOOP_STOP;
}

BAD_OPS(bad_loop)
