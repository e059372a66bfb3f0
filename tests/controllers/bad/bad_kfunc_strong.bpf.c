/* Mistake: calls a kfunc no kernel has, declared without __weak: libbpf refuses the object before
 * the verifier sees it (UnknownKfunc, explained from libbpf's message). */
#include "bad_common.h"

extern int bpf_io_uring_frobnicate(struct iou_ctx *ctx) __ksym;

SEC("struct_ops.s/bad_kfunc_strong_step")
int BPF_PROG(bad_kfunc_strong_step, struct iou_ctx *ring, struct iou_loop_params *lp)
{
	bpf_io_uring_frobnicate(ring);
	return IOU_LOOP_STOP;
}

BAD_OPS(bad_kfunc_strong)
