/* The uringc runtime's C API, in libbpf's manner: opaque objects, functions named
 * `uringc_<object>__<verb>`, negative errno returns (constructors return NULL and set errno),
 * options structs that begin with `size_t sz` so they can grow (declare them with
 * URINGC_OPTS). The last error's full text (verifier diagnostics included) is available from
 * uringc_ctl__last_error / uringc_last_error. See docs/embedding.md. */
#ifndef URINGC_URINGC_H
#define URINGC_URINGC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uringc/program.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Declares an options struct with sz filled in: URINGC_OPTS(uringc_ring_opts, o, .sq_entries = 64); */
/* Fields left out are zero by the language's rules; the pragmas keep -Wextra quiet about it. */
#define URINGC_OPTS(TYPE, NAME, ...)                                               \
	_Pragma("GCC diagnostic push")                                             \
	_Pragma("GCC diagnostic ignored \"-Wmissing-field-initializers\"")         \
	struct TYPE NAME = { .sz = sizeof(struct TYPE), __VA_ARGS__ };             \
	_Pragma("GCC diagnostic pop")

struct uringc_ring;
struct uringc_ctl;

/* How the SQ works (uringc::RingMode). AUTO: REWIND where the kernel has it (Linux 7.0+, so
 * every kernel with io_uring_bpf_ops), else TAIL. REWIND: NO_SQARRAY|SQ_REWIND, every submission
 * takes sqes[0..n) (compiled controllers handle it). TAIL: an SQ tail the controller advances,
 * which hand-written controllers that read uringc_sq_tail_off need. */
enum uringc_ring_mode {
	URINGC_RING_AUTO = 0,
	URINGC_RING_REWIND = 1,
	URINGC_RING_TAIL = 2,
};

struct uringc_ring_opts {
	size_t sz;
	uint32_t sq_entries;      /* 0: 64 */
	uint32_t cq_entries;      /* 0: kernel default */
	uint32_t extra_flags;     /* added to SINGLE_ISSUER|DEFER_TASKRUN */
	size_t mem_region_size;   /* parameter region bytes, 0 for none */
	uint32_t ring_mode;       /* enum uringc_ring_mode; 0: AUTO */
};

/* Creates a ring a controller can drive. NULL and errno on failure (uringc_last_error()). */
struct uringc_ring *uringc_ring__create(const struct uringc_ring_opts *opts);
int uringc_ring__fd(const struct uringc_ring *ring);
/* The parameter region (IOU_REGION_MEM) and its size, or NULL. */
void *uringc_ring__mem_region(const struct uringc_ring *ring, size_t *size);
void uringc_ring__destroy(struct uringc_ring *ring);

struct uringc_ctl_open_opts {
	size_t sz;
	const char *object_name;       /* default: from the file name */
	const char *ops_map;           /* default: the only io_uring_bpf_ops map */
	size_t log_size;               /* verifier log tail kept; 0: 1 MiB */
	const char *verifier_log_path; /* write the verifier log here on a failed load */
};

struct uringc_ctl *uringc_ctl__open_file(const char *path, const struct uringc_ctl_open_opts *opts);
struct uringc_ctl *uringc_ctl__open_mem(const void *buf, size_t size,
					const struct uringc_ctl_open_opts *opts);

/* Where a program's loop_step runs. KERNEL: its BPF object, loaded into the ring
 * (io_uring_bpf_ops, Linux 7.1+, BPF privileges). HOST: its native code, in this process, on any
 * kernel with io_uring, no privileges. AUTO: KERNEL where the running kernel has the feature and
 * the process may load it, else HOST; uringc_ctl__engine_reason says which and why. */
enum uringc_engine {
	URINGC_ENGINE_AUTO = 0,
	URINGC_ENGINE_KERNEL = 1,
	URINGC_ENGINE_HOST = 2,
};

/* Opens a graph compiled with `uringc compile --target=host` and linked into the application
 * (`extern const struct uringc_program uringc_program_<graph>;`, uringc/program.h) on `engine`.
 * Everything after (set, load, attach, run, get) is the same on both engines. */
struct uringc_ctl *uringc_ctl__open_program(const struct uringc_program *program,
					    enum uringc_engine engine,
					    const struct uringc_ctl_open_opts *opts);
/* "kernel" or "host". */
const char *uringc_ctl__engine(const struct uringc_ctl *ctl);
/* One line: the engine and why ("host: this kernel (6.18) has no io_uring_bpf_ops..."). */
const char *uringc_ctl__engine_reason(const struct uringc_ctl *ctl);
/* After uringc_ctl__load on the kernel engine: NULL, or a known defect of the running kernel
 * that concerns controllers (7.1.0-7.1.4: CVE-2026-72112), for the application to show. */
const char *uringc_ctl__kernel_warning(const struct uringc_ctl *ctl);

/* Globals by name (`x` or `config.x`), type-checked against the object's BTF. Integers given as
 * text are decimal, 0x hex, 0o octal or 0b binary, with `-` only for signed types (no leading
 * zeros, no whitespace), range-checked. */
int uringc_ctl__set(struct uringc_ctl *ctl, const char *name, const char *value);
int uringc_ctl__set_int(struct uringc_ctl *ctl, const char *name, int64_t value);
int uringc_ctl__set_uint(struct uringc_ctl *ctl, const char *name, uint64_t value);
int uringc_ctl__set_bytes(struct uringc_ctl *ctl, const char *name, const void *data, size_t size);
int uringc_ctl__get_int(struct uringc_ctl *ctl, const char *name, int64_t *value);
int uringc_ctl__get_bytes(struct uringc_ctl *ctl, const char *name, void *data, size_t size);

/* Buffers parameters (`buffers[N] of SIZE` in a .uring graph) take host memory, never a number:
 * the setters above refuse them. set_buffer points `name` at `size` bytes at `data`, which must
 * stay mapped while the controller is loaded: -ENOBUFS when size is less than the N * SIZE bytes
 * the object declares, -EINVAL when data is NULL or name is no buffers parameter, -ENOENT for an
 * unknown name. Load fails with -EINVAL while a buffers parameter has no memory. */
int uringc_ctl__set_buffer(struct uringc_ctl *ctl, const char *name, void *data, size_t size);
/* The bytes buffers parameter `name` needs (N * SIZE), in *size. */
int uringc_ctl__buffer_size(struct uringc_ctl *ctl, const char *name, uint64_t *size);
/* Shared buffers parameters (`shared buffers[N] of SIZE`) live in the ring's parameter region:
 * nothing is set for them. Once the controller is loaded, *data and *size are their N * SIZE
 * bytes there, which the host may read and write between runs (valid while the ring lives);
 * -EINVAL before load or when name is no shared buffers parameter. */
int uringc_ctl__shared_buffer(struct uringc_ctl *ctl, const char *name, void **data, size_t *size);

int uringc_ctl__load(struct uringc_ctl *ctl, struct uringc_ring *ring);
int uringc_ctl__attach(struct uringc_ctl *ctl);
int uringc_ctl__detach(struct uringc_ctl *ctl);

enum uringc_run_status {
	URINGC_RUN_DONE = 0,
	URINGC_RUN_FAILED = 1,      /* the controller set uringc_status = failed */
	URINGC_RUN_INTERRUPTED = 2, /* a signal, and return_on_interrupt was set */
};

struct uringc_run_opts {
	size_t sz;
	bool return_on_interrupt;
	uint64_t max_enters; /* 0: no limit */
};

struct uringc_run_result {
	size_t sz;
	int status;               /* enum uringc_run_status */
	int32_t controller_error; /* uringc_error */
	uint64_t enters;
	uint64_t interrupts;
	bool steps_known;
	uint64_t steps;
	double wall_seconds;
};

/* Enters the ring until the controller finishes. 0 with *result filled, or -errno. */
int uringc_ctl__run(struct uringc_ctl *ctl, const struct uringc_run_opts *opts,
		    struct uringc_run_result *result);

/* The text of the last failure on ctl ("" if none); valid until the next call on ctl. */
const char *uringc_ctl__last_error(const struct uringc_ctl *ctl);
/* The text of the last failed constructor on this thread. */
const char *uringc_last_error(void);
/* The stable kind of the last failure ("RingBusy", "RegionOutOfBounds"...; docs/diagnostics.md),
 * "" if none: what a program matches instead of the text. Valid as long as the library is. */
const char *uringc_ctl__last_error_kind(const struct uringc_ctl *ctl);
const char *uringc_last_error_kind(void);
void uringc_ctl__destroy(struct uringc_ctl *ctl);

/* A ublk block device served by one controller per queue (uringc/ublk_server.h, docs/ublk.md;
 * Linux 6.0+ with ublk_drv, root). The server sets each target's standard parameters (ublkc,
 * queue, descs, and buf: `buffers[DEPTH] of SIZE`, whose SIZE is then the largest request). */
struct uringc_ublk;
/* Opens queue `queue`'s controller, not loaded (uringc_ctl__open_*): the server takes it over
 * (uringc_ublk__ctl gives it back to read outputs). NULL fails the start. */
typedef struct uringc_ctl *(*uringc_ublk_open_fn)(uint16_t queue, void *arg);
/* Sets the target's own parameters (after the standard ones): 0 or -errno. */
typedef int (*uringc_ublk_configure_fn)(struct uringc_ctl *ctl, uint16_t queue, void *arg);
struct uringc_ublk_opts {
	size_t sz;
	uint64_t size_bytes;       /* the device's size, a multiple of 512 */
	uint16_t queues;           /* 0: 1; the driver gives one per CPU at most */
	uint16_t depth;            /* tags per queue; 0: 64 */
	uint32_t max_io_bytes;     /* 0: 512 KiB; a target's `buf` decides it */
	uringc_ublk_open_fn open;  /* required */
	uringc_ublk_configure_fn configure; /* may be NULL */
	void *arg;                 /* passed to both */
};
/* Adds the device, serves each queue on its own thread, starts it: /dev/ublkb<dev_id> exists
 * when this returns. NULL with errno and uringc_last_error() on failure (no device is left). */
struct uringc_ublk *uringc_ublk__start(const struct uringc_ublk_opts *opts);
int uringc_ublk__dev_id(const struct uringc_ublk *ublk);
uint16_t uringc_ublk__queues(const struct uringc_ublk *ublk);
/* STOP_DEV, waits for every queue's run to end, DEL_DEV: 0 or -errno (uringc_ublk__last_error). */
int uringc_ublk__stop(struct uringc_ublk *ublk);
/* Queue `queue`'s controller, to read outputs after the stop; NULL when its run ended while the
 * device was live (its requests then failed). */
struct uringc_ctl *uringc_ublk__ctl(struct uringc_ublk *ublk, uint16_t queue);
const char *uringc_ublk__last_error(const struct uringc_ublk *ublk);
/* Stops the device first when that was not done. */
void uringc_ublk__destroy(struct uringc_ublk *ublk);
/* Stops (when live) and deletes device dev_id, one a killed server left: 0 or -errno. */
int uringc_ublk__delete(int dev_id);

#ifdef __cplusplus
}
#endif

#endif /* URINGC_URINGC_H */
