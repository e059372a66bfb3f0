/* Mistake: a long loop with a data-dependent branch in every iteration; the verifier must follow
 * both sides each time and gives up (TooComplex). */
#include "bad_common.h"

__u64 bad_value;

SEC("struct_ops.s/bad_complex_step")
int BPF_PROG(bad_complex_step, struct iou_ctx *ring, struct iou_loop_params *lp)
{
	__u32 *rings = (void *)bpf_io_uring_get_region(ring, IOU_REGION_CQ, 64);
	__u64 sum = 0;
	__u32 i;

	if (!rings)
		return IOU_LOOP_STOP;
	for (i = 0; i < 100000; i++) {
		if (URINGC_READ_ONCE(rings[i & 7]) > 5)
			sum += i;
		else
			sum ^= i;
	}
	bad_value = sum;
	return IOU_LOOP_STOP;
}

BAD_OPS(bad_complex)
