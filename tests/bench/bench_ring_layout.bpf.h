/* The ring layout the lean C baselines (nops.bpf.c, copy_4k.bpf.c) read: load-time constants the
 * runtime's Controller::Load fills in from the ring (uringc::RingConstantNames). With
 * -DBENCH_SQ_TAIL (rings with an SQ tail) also the SQ's size and tail; SQ_REWIND rings have no
 * tail to advance.
 */
#ifndef URINGC_BENCH_RING_LAYOUT_BPF_H
#define URINGC_BENCH_RING_LAYOUT_BPF_H

#include "uringc_controller.bpf.h"

const volatile __u32 uringc_cq_entries, uringc_cq_head_off, uringc_cq_tail_off, uringc_cqes_off;
const volatile __u32 uringc_rings_size, uringc_sqes_size;
#ifdef BENCH_SQ_TAIL
const volatile __u32 uringc_sq_entries, uringc_sq_tail_off;
#endif

#endif /* URINGC_BENCH_RING_LAYOUT_BPF_H */
