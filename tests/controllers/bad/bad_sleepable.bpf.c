/* Mistake: calls the sleepable kfunc bpf_io_uring_submit_sqes from a program in
 * SEC("struct_ops/...") instead of SEC("struct_ops.s/...") (SleepableKfunc). */
#include "bad_common.h"

SEC("struct_ops/bad_sleepable_step")
int BPF_PROG(bad_sleepable_step, struct iou_ctx *ring, struct iou_loop_params *lp)
{
	bpf_io_uring_submit_sqes(ring, 0);
	return IOU_LOOP_STOP;
}

BAD_OPS(bad_sleepable)
