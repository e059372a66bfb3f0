/* Mistake: calls a kfunc no kernel has, without checking bpf_ksym_exists() (UnknownKfunc). */
#include "bad_common.h"

extern int bpf_io_uring_frobnicate(struct iou_ctx *ctx) __weak __ksym;

SEC("struct_ops.s/bad_kfunc_step")
int BPF_PROG(bad_kfunc_step, struct iou_ctx *ring, struct iou_loop_params *lp)
{
	bpf_io_uring_frobnicate(ring);
	return IOU_LOOP_STOP;
}

BAD_OPS(bad_kfunc)
