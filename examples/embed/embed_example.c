/* Embedding the uringc runtime from C: create a ring, open a controller from memory, set its
 * parameters by name, load, attach, run it to the end, read its outputs, detach, clean up.
 * The controller is tests/controllers/nop_named.bpf.c (K NOPs in flight until N complete),
 * linked into this binary. Exit status: 0 success, 1 failure, 77 kernel without io_uring_bpf_ops.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "uringc/uringc.h"

extern const unsigned char nop_named_bpf_object[];
extern const unsigned char nop_named_bpf_object_end[];

int main(void)
{
	/* nop_named advances the SQ tail itself, so it needs a tail ring (compiled graphs take the default). */
	URINGC_OPTS(uringc_ring_opts, ring_opts, .sq_entries = 64, .mem_region_size = 4096,
		    .ring_mode = URINGC_RING_TAIL);
	URINGC_OPTS(uringc_ctl_open_opts, open_opts, .object_name = "nop_named");
	URINGC_OPTS(uringc_run_opts, run_opts, .return_on_interrupt = false);
	struct uringc_run_result result = { .sz = sizeof(result) };
	struct uringc_ring *ring;
	struct uringc_ctl *ctl;
	int64_t completed = 0;
	unsigned long long mirrored = 0;
	size_t region_size = 0;
	void *region;
	int err, status = 1;

	ring = uringc_ring__create(&ring_opts);
	if (!ring) {
		fprintf(stderr, "ring: %s\n", uringc_last_error());
		return 1;
	}
	ctl = uringc_ctl__open_mem(nop_named_bpf_object,
				   (size_t)(nop_named_bpf_object_end - nop_named_bpf_object), &open_opts);
	if (!ctl) {
		fprintf(stderr, "open: %s\n", uringc_last_error());
		goto out_ring;
	}
	if (uringc_ctl__set_uint(ctl, "inflight", 16) || uringc_ctl__set(ctl, "total", "100000")) {
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
	uringc_ctl__get_int(ctl, "completed", &completed);
	region = uringc_ring__mem_region(ring, &region_size);
	if (region && region_size >= sizeof(mirrored))
		memcpy(&mirrored, region, sizeof(mirrored));
	printf("status=%d completed=%lld region=%llu steps=%llu enters=%llu wall=%.3fs\n",
	       result.status, (long long)completed, mirrored,
	       (unsigned long long)result.steps, (unsigned long long)result.enters,
	       result.wall_seconds);
	if (uringc_ctl__detach(ctl)) {
		fprintf(stderr, "detach: %s\n", uringc_ctl__last_error(ctl));
		goto out;
	}
	status = result.status == URINGC_RUN_DONE && completed == 100000 && mirrored == 100000 ? 0 : 1;
out:
	uringc_ctl__destroy(ctl);
out_ring:
	uringc_ring__destroy(ring);
	return status;
}
