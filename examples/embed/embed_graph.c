/* Embedding a compiled graph on either engine: examples/nop_chain.uring, compiled with
 * `uringc compile --target=host` into an object linked into this binary, which holds both the
 * host engine's native loop_step and the kernel engine's BPF object. No LLVM at run time.
 *
 *   usage: uringc_embed_graph [auto|kernel|host] [N]     (default: auto 100000)
 *
 * auto takes the kernel engine where the running kernel has io_uring_bpf_ops and the process may
 * load it, else the host engine, and prints which and why. Exit status: 0 when the graph
 * completed exactly N NOPs, 1 otherwise, 77 when the kernel engine was asked for and cannot run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nop_chain.h" /* uringc compile --emit-header: uringc_program_nop_chain and the types */
#include "uringc/uringc.h"

int main(int argc, char **argv)
{
	enum uringc_engine engine = URINGC_ENGINE_AUTO;
	uint64_t n = 100000;
	URINGC_OPTS(uringc_ring_opts, ring_opts, .sq_entries = 64,
		    .mem_region_size = URINGC_NOP_CHAIN_MEM_MIN);
	URINGC_OPTS(uringc_run_opts, run_opts, .return_on_interrupt = false);
	struct uringc_run_result result = { .sz = sizeof(result) };
	struct uringc_ring *ring;
	struct uringc_ctl *ctl;
	int64_t done = 0;
	int err, status = 1;

	if (argc > 1 && strcmp(argv[1], "kernel") == 0)
		engine = URINGC_ENGINE_KERNEL;
	else if (argc > 1 && strcmp(argv[1], "host") == 0)
		engine = URINGC_ENGINE_HOST;
	if (argc > 2)
		n = strtoull(argv[2], NULL, 0);

	ring = uringc_ring__create(&ring_opts);
	if (!ring) {
		fprintf(stderr, "ring: %s\n", uringc_last_error());
		return 1;
	}
	ctl = uringc_ctl__open_program(&uringc_program_nop_chain, engine, NULL);
	if (!ctl) {
		fprintf(stderr, "open: %s\n", uringc_last_error());
		goto out_ring;
	}
	printf("engine %s\n", uringc_ctl__engine_reason(ctl));
	if (uringc_ctl__set_uint(ctl, "n", n)) {
		fprintf(stderr, "parameters: %s\n", uringc_ctl__last_error(ctl));
		goto out;
	}
	err = uringc_ctl__load(ctl, ring);
	if (err == -ESRCH) {
		fprintf(stderr, "skipped: %s\n", uringc_ctl__last_error(ctl));
		status = 77;
		goto out;
	}
	if (err || (err = uringc_ctl__attach(ctl))) {
		fprintf(stderr, "%s\n", uringc_ctl__last_error(ctl));
		goto out;
	}
	err = uringc_ctl__run(ctl, &run_opts, &result);
	if (err) {
		fprintf(stderr, "run: %s\n", uringc_ctl__last_error(ctl));
		goto out;
	}
	if (uringc_ctl__get_int(ctl, "done", &done)) {
		fprintf(stderr, "done: %s\n", uringc_ctl__last_error(ctl));
		goto out;
	}
	printf("%s engine: status %d, done = %lld of %llu, %llu loop steps, %.6f s\n",
	       uringc_ctl__engine(ctl), result.status, (long long)done, (unsigned long long)n,
	       (unsigned long long)result.steps, result.wall_seconds);
	status = result.status == URINGC_RUN_DONE && (uint64_t)done == n ? 0 : 1;
out:
	uringc_ctl__destroy(ctl);
out_ring:
	uringc_ring__destroy(ring);
	return status;
}
