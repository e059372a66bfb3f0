/* Shared between the NOP controller (BPF) and the programs that load it (host): the load-time
 * configuration in .rodata and the state the host reads back from .bss. Both are single structs so
 * the host finds every field at a fixed offset without a generated skeleton. */
#ifndef URINGC_TESTS_NOP_INFLIGHT_H
#define URINGC_TESTS_NOP_INFLIGHT_H

#include <linux/types.h>

#define NOP_INFLIGHT_MAX 64     /* most requests kept in flight (also the per-step loop bound) */
#define NOP_INFLIGHT_TOKEN 0x75726e67ULL /* user_data of every NOP: "urng" */

enum nop_inflight_stop {
	NOP_STOP_NONE = 0,
	NOP_STOP_DONE = 1,          /* all requests completed */
	NOP_STOP_NO_REGION = 2,     /* bpf_io_uring_get_region returned NULL */
	NOP_STOP_SUBMIT_FAILED = 3, /* bpf_io_uring_submit_sqes submitted fewer than asked */
	NOP_STOP_BAD_CQE = 4,       /* a CQE this controller did not ask for */
};

struct nop_inflight_config {
	__u32 sq_entries;   /* power of two */
	__u32 cq_entries;   /* power of two */
	__u32 sq_head_off;  /* offsets into the rings region (io_uring_params.sq_off / cq_off) */
	__u32 sq_tail_off;
	__u32 cq_head_off;
	__u32 cq_tail_off;
	__u32 cqes_off;
	__u32 rings_size;   /* bytes of the rings region the controller maps */
	__u32 inflight;     /* K: requests kept in flight */
	__u32 pad;
	__u64 total;        /* N: requests to complete */
};

struct nop_inflight_state {
	__u64 submitted;
	__u64 completed;
	__u64 failed;       /* completions with a negative result */
	__u64 steps;        /* loop_step calls */
	__u32 max_inflight; /* most requests seen in flight at once */
	__u32 stop_reason;  /* enum nop_inflight_stop */
	__s32 submit_ret;   /* last bpf_io_uring_submit_sqes result that fell short */
	__u32 pad;
};

#endif /* URINGC_TESTS_NOP_INFLIGHT_H */
