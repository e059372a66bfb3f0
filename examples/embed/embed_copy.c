/* An application that copies a file with a compiled graph, through its skeleton:
 * examples/copy.uring compiled by `uringc compile --target=host --emit-skeleton` into copy.o
 * (linked in: both engines' code) and copy.skel.h (included: typed parameters and outputs and
 * copy__open/load/attach/run/destroy). Nothing but this binary is needed at run time.
 *
 *   usage: uringc_embed_copy [auto|kernel|host] SRC DST
 *
 * Exit status: 0 when the graph copied all of SRC (its output `copied` is SRC's size), 1
 * otherwise, 2 for a usage error, 77 when the kernel engine was asked for and this kernel has
 * no io_uring_bpf_ops.
 */
#define _POSIX_C_SOURCE 200809L /* open, fstat, O_CLOEXEC under -std=c11 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copy.skel.h"

static int parse_engine(const char *text, enum uringc_engine *engine)
{
	if (strcmp(text, "auto") == 0)
		*engine = URINGC_ENGINE_AUTO;
	else if (strcmp(text, "kernel") == 0)
		*engine = URINGC_ENGINE_KERNEL;
	else if (strcmp(text, "host") == 0)
		*engine = URINGC_ENGINE_HOST;
	else
		return -1;
	return 0;
}

/* Runs the graph over open files; the exit status. */
static int copy_file(enum uringc_engine engine, int src, int dst, uint64_t size)
{
	URINGC_OPTS(uringc_ring_opts, ring_opts, .sq_entries = 64,
		    .mem_region_size = copy__mem_min());
	struct uringc_run_result result = { .sz = sizeof(result) };
	struct copy_outputs out;
	struct uringc_ring *ring;
	struct copy *skel;
	int err, status = 1;

	ring = uringc_ring__create(&ring_opts);
	if (!ring) {
		fprintf(stderr, "ring: %s\n", uringc_last_error());
		return 1;
	}
	skel = copy__open(engine);
	if (!skel) {
		fprintf(stderr, "open: %s\n", uringc_last_error());
		goto out_ring;
	}
	printf("engine %s\n", uringc_ctl__engine_reason(skel->ctl));
	skel->params.src = src;
	skel->params.dst = dst;
	skel->params.size = size;
	/* skel->params.buf stays NULL: copy__load allocates its 4 x 64 KiB. */
	err = copy__load(skel, ring);
	if (err == -ESRCH) {
		fprintf(stderr, "skipped: %s\n", uringc_ctl__last_error(skel->ctl));
		status = 77;
		goto out;
	}
	if (err || (err = copy__attach(skel)) || (err = copy__run(skel, NULL, &result)) ||
	    (err = copy__read_outputs(skel, &out))) {
		fprintf(stderr, "%s\n", uringc_ctl__last_error(skel->ctl));
		goto out;
	}
	printf("%s engine: status %d, copied %llu of %llu bytes, %llu loop steps, %.6f s\n",
	       uringc_ctl__engine(skel->ctl), result.status, (unsigned long long)out.copied,
	       (unsigned long long)size, (unsigned long long)result.steps, result.wall_seconds);
	if (result.status != URINGC_RUN_DONE)
		fprintf(stderr, "the graph failed: error %d\n", (int)result.controller_error);
	status = result.status == URINGC_RUN_DONE && out.copied == size ? 0 : 1;
out:
	copy__destroy(skel);
out_ring:
	uringc_ring__destroy(ring);
	return status;
}

int main(int argc, char **argv)
{
	enum uringc_engine engine;
	struct stat st;
	int src, dst, status;

	if (argc != 4 || parse_engine(argv[1], &engine)) {
		fprintf(stderr, "usage: %s auto|kernel|host SRC DST\n", argv[0]);
		return 2;
	}
	src = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (src < 0 || fstat(src, &st)) {
		fprintf(stderr, "%s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	dst = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (dst < 0) {
		fprintf(stderr, "%s: %s\n", argv[3], strerror(errno));
		close(src);
		return 1;
	}
	status = copy_file(engine, src, dst, (uint64_t)st.st_size);
	close(dst);
	close(src);
	return status;
}
