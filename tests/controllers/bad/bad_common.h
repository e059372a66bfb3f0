/* Shared by the deliberately bad controllers: each file holds one mistake the verifier rejects,
 * and the runtime must point at the line and give the matching hint (tests/kernel/verifier_test.cpp).
 * BAD_CONTROLLER(name, section) declares the program and its ops map. */
#ifndef URINGC_TESTS_BAD_COMMON_H
#define URINGC_TESTS_BAD_COMMON_H

#include "uringc_controller.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define BAD_OPS(name)                                  \
	SEC(".struct_ops.link")                        \
	struct io_uring_bpf_ops name##_ops = {         \
		.loop_step = (void *)name##_step,      \
	};

#endif
