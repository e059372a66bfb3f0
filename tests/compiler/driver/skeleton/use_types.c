/* Uses every part rf the skeleton rf types.uring (skeleton_cli_test.py): compiled as C11 and as
 * C++17 with every warning an error, then run on the host engine with extreme values, printing
 * each output for the test to compare with what it set.
 *   usage: use_types [host|kernel|auto]   (exit 0 when every output came back, 1 otherwise) */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "types.skel.h"

int main(int argc, char **argv)
{
	enum uringc_engine engine = URINGC_ENGINE_HOST;
	struct uringc_ring_opts ring_opts;
	struct uringc_run_result result;
	struct types_outputs out;
	struct uringc_ring *ring;
	struct types *skel;
	unsigned char *shared;
	size_t shared_size = 0, elf_size = 0;
	const unsigned char *elf = (const unsigned char *)types__elf_bytes(&elf_size);
	int err, status = 1;

	memset(&ring_opts, 0, sizeof(ring_opts));
	ring_opts.sz = sizeof(ring_opts);
	ring_opts.mem_region_size = types__mem_min();
	memset(&result, 0, sizeof(result));
	result.sz = sizeof(result);
	if (argc > 1 && strcmp(argv[1], "kernel") == 0)
		engine = URINGC_ENGINE_KERNEL;
	else if (argc > 1 && strcmp(argv[1], "auto") == 0)
		engine = URINGC_ENGINE_AUTO;
	printf("elf %zu bytes, %s\n", elf_size, memcmp(elf, "\177ELF", 4) == 0 ? "ELF" : "not ELF");
	skel = types__open(engine);
	if (!skel) {
		printf("open failed: errno %d: %s\n", errno, uringc_last_error());
		return 1;
	}
	printf("opened on %s; x starts at %d\n", uringc_ctl__engine(skel->ctl), skel->params.x);
	skel->params.a = INT8_MIN;
	skel->params.b = -300;
	skel->params.c = INT32_MIN + 1;
	skel->params.d = -((int64_t)1 << 40) - 7;
	skel->params.e = UINT8_MAX;
	skel->params.f = 65000;
	skel->params.g = UINT32_MAX;
	skel->params.h = UINT64_MAX - 1;
	skel->params.t = true;
	skel->params.x = 2;
	skel->params.w = 1234567891011ull;
	ring = uringc_ring__create(&ring_opts);
	if (!ring) {
		printf("ring failed: %s\n", uringc_last_error());
		goto out;
	}
	err = types__load(skel, ring);
	if (err) {
		printf("load failed: %d: %s\n", err, uringc_ctl__last_error(skel->ctl));
		goto out;
	}
	printf("buf: %s, %zu bytes\n", skel->params.buf.data ? "allocated" : "NULL",
	       skel->params.buf.size);
	shared = (unsigned char *)types__shared_sh(skel, &shared_size);
	if (!shared || shared_size != 64) {
		printf("shared buffer: %zu bytes\n", shared_size);
		goto out;
	}
	shared[0] = 77;
	if ((err = types__attach(skel)) || (err = types__run(skel, NULL, &result)) ||
	    (err = types__read_outputs(skel, &out))) {
		printf("failed: %d: %s\n", err, uringc_ctl__last_error(skel->ctl));
		goto out;
	}
	printf("status %d\n", result.status);
	printf("ra=%d rb=%d rc=%" PRId32 " rd=%" PRId64 "\n", out.ra, out.rb, out.rc, out.rd);
	printf("re=%u rf=%u rg=%" PRIu32 " rh=%" PRIu64 "\n", out.re, out.rf, out.rg, out.rh);
	printf("rt=%d rx=%d rw=%" PRIu64 " first=%u\n", out.rt ? 1 : 0, out.rx, out.rw, out.first);
	status = result.status == URINGC_RUN_DONE ? 0 : 1;
out:
	types__destroy(skel);
	uringc_ring__destroy(ring);
	return status;
}
