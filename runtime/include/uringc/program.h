/* SPDX-License-Identifier: (LGPL-2.1 OR MIT) */
/*
 * A graph compiled for both engines (`uringc compile --target=host`): one native object that
 * holds the graph's loop_step as host code, the initial bytes of its state, and the BPF object
 * of the same lowering. An application links the object and hands its `uringc_program_<graph>`
 * to the runtime (uringc_open_program), which runs it on the kernel engine (the BPF object,
 * loaded into the ring) or on the host engine (the native loop_step, called by the runtime's
 * copy of the kernel's loop), with no LLVM at run time.
 *
 * The compiler (compiler/emit/host_module.cpp) writes these structures and the runtime
 * (runtime/src/host_engine.cpp) reads them: this header is the one description of both.
 * docs/architecture.md, "Two engines", explains the contract.
 */
#ifndef URINGC_PROGRAM_H
#define URINGC_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a structure below changes; the runtime refuses other versions. */
#define URINGC_PROGRAM_ABI 1

/* One data section of the BPF object (".rodata", ".bss", ...), as it lies in the host state. */
struct uringc_program_section {
	const char *name;
	uint64_t offset; /* bytes into the state */
	uint64_t size;
};

struct uringc_program {
	uint32_t abi;           /* URINGC_PROGRAM_ABI */
	uint32_t section_count;
	const char *name;       /* the graph's name */
	const void *bpf_object; /* the kernel engine's ELF object, as `uringc compile` writes it */
	uint64_t bpf_object_size;
	/* The host loop_step: `args` as a struct_ops program receives them, args[0] a
	 * struct uringc_host_ctx *, args[1] a struct iou_loop_params * (__u32 cq_wait_idx). */
	int (*loop_step)(uint64_t *args);
	/* The state's initial bytes: every data section of the BPF object at its offset, .bss
	 * zeroed. Each run copies it; the code reaches its globals through uringc_host_ctx.state. */
	const void *image;
	uint64_t image_size;
	const struct uringc_program_section *sections;
};

/* What args[0] of the host loop_step points at. Compiled code reads only `state`; the rest is
 * the runtime's, which the calls below receive back. */
struct uringc_host_ctx {
	void *state;
};

/* The host engine's counterparts of the kfuncs and helpers a controller calls (the runtime
 * defines them):
 * bpf_io_uring_get_region, bpf_io_uring_submit_sqes and bpf_copy_from_user_str, same
 * arguments, same results. */
uint8_t *uringc_host_get_region(struct uringc_host_ctx *ctx, uint32_t region_id, uint64_t size);
int uringc_host_submit_sqes(struct uringc_host_ctx *ctx, uint32_t nr);
int uringc_host_copy_from_user_str(void *dst, uint32_t dst_size, const void *src, uint64_t flags);
/* ... and of the BPF helper bpf_copy_from_user: size bytes, 0 or -EFAULT (dst zeroed). */
long uringc_host_copy_from_user(void *dst, uint32_t size, const void *src);
/* ... and of the BPF helper bpf_ktime_get_ns: CLOCK_MONOTONIC in ns, the clock of io_uring's
 * timeouts. */
uint64_t uringc_host_ktime_get_ns(void);

#ifdef __cplusplus
}
#endif

#endif /* URINGC_PROGRAM_H */
