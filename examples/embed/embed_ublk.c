/* An application that serves a ublk block device with a compiled target through the C API:
 * examples/ublk/null.uring compiled by `uringc compile --target=host --emit-header` into
 * ublk_null.o (linked in: both engines' code). uringc_ublk__start creates the device and serves
 * its queue with the graph; this program then writes and reads 1 MiB through /dev/ublkbN itself,
 * stops the device and prints the target's outputs.
 *
 *   usage: uringc_embed_ublk [kernel|host]
 *
 * Exit status: 0 when the I/O went through and the target counted it, 1 otherwise, 2 for a usage
 * error, 77 when there is no ublk driver (or, for kernel, no io_uring_bpf_ops) here.
 */
#define _GNU_SOURCE /* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "null.h" /* uringc compile --emit-header: uringc_program_null */
#include "uringc/uringc.h"

static struct uringc_ctl *open_queue(uint16_t queue, void *arg)
{
	(void)queue;
	return uringc_ctl__open_program(&uringc_program_null, *(enum uringc_engine *)arg, NULL);
}

/* 1 MiB written and read back with O_DIRECT; 0 or -1. */
static int block_io(const char *path)
{
	void *data = NULL;
	int fd = open(path, O_RDWR | O_DIRECT | O_CLOEXEC), ok = -1;

	if (fd < 0 || posix_memalign(&data, 4096, 1 << 20) != 0) {
		perror(path);
		goto out;
	}
	memset(data, 0x5a, 1 << 20);
	if (pwrite(fd, data, 1 << 20, 0) != 1 << 20 || pread(fd, data, 1 << 20, 0) != 1 << 20) {
		perror(path);
		goto out;
	}
	ok = 0;
out:
	free(data);
	if (fd >= 0)
		close(fd);
	return ok;
}

int main(int argc, char **argv)
{
	enum uringc_engine engine = URINGC_ENGINE_KERNEL;
	URINGC_OPTS(uringc_ublk_opts, opts, .size_bytes = 64 << 20, .depth = 8,
		    .open = open_queue, .arg = &engine);
	struct uringc_ublk *ublk;
	struct uringc_ctl *ctl;
	int64_t reads = 0, writes = 0;
	char path[32];
	int io, err;

	if (argc != 2 || (strcmp(argv[1], "kernel") && strcmp(argv[1], "host"))) {
		fprintf(stderr, "usage: %s kernel|host\n", argv[0]);
		return 2;
	}
	if (strcmp(argv[1], "host") == 0)
		engine = URINGC_ENGINE_HOST;
	ublk = uringc_ublk__start(&opts);
	if (!ublk) {
		const int skip = strcmp(uringc_last_error_kind(), "UblkUnavailable") == 0 ||
				 errno == ESRCH;
		fprintf(stderr, "%s%s [%s]\n", skip ? "skipped: " : "start: ", uringc_last_error(),
			uringc_last_error_kind());
		return skip ? 77 : 1;
	}
	snprintf(path, sizeof(path), "/dev/ublkb%d", uringc_ublk__dev_id(ublk));
	printf("%s\n", path);
	io = block_io(path);
	err = uringc_ublk__stop(ublk);
	if (err)
		fprintf(stderr, "stop: %s\n", uringc_ublk__last_error(ublk));
	ctl = uringc_ublk__ctl(ublk, 0);
	if (ctl) {
		uringc_ctl__get_int(ctl, "reads", &reads);
		uringc_ctl__get_int(ctl, "writes", &writes);
	}
	printf("%s engine: %lld reads, %lld writes\n", argv[1], (long long)reads, (long long)writes);
	uringc_ublk__destroy(ublk);
	return io == 0 && err == 0 && reads >= 1 && writes >= 1 ? 0 : 1;
}
