"""The benchmark's workloads: what each runs in the guest, and the command line of uringc-bench
(tests/bench/bench_main.cpp) that runs it once. One table, so the guest script, the report and
docs/performance.md name the same things."""
import dataclasses

GUEST_DIR = "/bench"          # objects, packed into the initramfs
INPUT = "/tmp/bench-in"       # the copy input, on the guest's tmpfs
OUTPUT = "/tmp/bench-out"
NOP_KS = (1, 8, 64)
DEPTH, DEPTH_BLOCK = 16, 32 * 1024  # tests/bench/copy_depth.uring


@dataclasses.dataclass
class Workload:
    name: str
    kind: str       # nops or copy
    runner: str     # user, c, compiled (kernel engine) or host (the same graph, host engine)
    what: str       # one line for the docs
    obj: str = ""   # object file name in the build's tests/bench/ (c, compiled)
    k: int = 1      # NOPs in flight (nops)
    depth: int = 1  # requests in flight: the user copy's depth; every copy's ring size
    block: int = 4096
    source: str = ""  # the program, for the docs
    program: str = ""  # host: the graph's host build linked into uringc-bench
    bpf_stats: bool = False  # c, compiled: also the kernel's time in loop_step (--bpf-stats)

    def argv(self, binary, rings, nops):
        """uringc-bench's command line; rings maps runner -> ring mode."""
        args = [binary, self.kind, "--name", self.name, "--runner", self.runner,
                "--ring", rings[self.runner]]
        if self.obj:
            args += ["--object", f"{GUEST_DIR}/{self.obj}"]
        if self.program:
            args += ["--program", self.program]
        if self.bpf_stats:
            args.append("--bpf-stats")
        if self.kind == "nops":
            args += ["--k", str(self.k), "--n", str(nops)]
        else:
            args += ["--src", INPUT, "--dst", OUTPUT, "--depth", str(self.depth),
                     "--block", str(self.block)]
        return args


def c_object(base, rings):
    """The lean C baseline built for the C ring mode: SQ_REWIND, or with an SQ tail."""
    return f"bench_{base}.bpf.o" if rings["c"] == "rewind" else f"bench_{base}_tail.bpf.o"


def all_workloads(rings):
    nop_graphs = {1: ("nop_chain", "examples/nop_chain.uring"),
                  8: ("nops_8", "tests/bench/nops_8.uring"),
                  64: ("nops_64", "tests/bench/nops_64.uring")}
    out = []
    for k in NOP_KS:
        graph, source = nop_graphs[k]
        out += [
            Workload(f"nops_c_k{k}", "nops", "c", f"lean C, {k} in flight",
                     c_object("nops", rings), k=k, source="tests/bench/nops.bpf.c"),
            Workload(f"nops_compiled_k{k}", "nops", "compiled",
                     f"compiled, {k} lane{'s' if k > 1 else ''}",
                     f"bench_{graph}.uring.bpf.o", k=k, source=source),
            Workload(f"nops_user_k{k}", "nops", "user",
                     f"user space, {k} in flight, submit and wait", k=k,
                     source="tests/bench/user_workloads.cpp"),
            Workload(f"nops_host_k{k}", "nops", "host",
                     f"compiled, {k} lane{'s' if k > 1 else ''}, host engine", k=k,
                     source=source, program=graph),
        ]
    out += [
        Workload("copy_c_4k", "copy", "c", "lean C, 4 KiB one at a time",
                 c_object("copy_4k", rings), source="tests/bench/copy_4k.bpf.c"),
        Workload("copy_compiled_4k", "copy", "compiled", "compiled, 4 KiB one at a time",
                 "bench_copy_4k.uring.bpf.o", source="tests/bench/copy_4k.uring"),
        Workload("copy_compiled_example", "copy", "compiled",
                 "compiled examples/copy.uring (4 lanes x 64 KiB)", "bench_copy.uring.bpf.o",
                 depth=4, source="examples/copy.uring"),
        Workload("copy_user_4k", "copy", "user", "user space, 4 KiB one at a time",
                 source="tests/bench/user_workloads.cpp"),
        Workload("copy_host_4k", "copy", "host", "compiled, 4 KiB one at a time, host engine",
                 source="tests/bench/copy_4k.uring", program="copy_4k"),
        Workload("copy_compiled_depth", "copy", "compiled",
                 f"compiled, {DEPTH} lanes x {DEPTH_BLOCK // 1024} KiB",
                 "bench_copy_depth.uring.bpf.o", depth=DEPTH,
                 source="tests/bench/copy_depth.uring"),
        Workload("copy_host_depth", "copy", "host",
                 f"compiled, {DEPTH} lanes x {DEPTH_BLOCK // 1024} KiB, host engine",
                 depth=DEPTH, source="tests/bench/copy_depth.uring", program="copy_depth"),
        Workload("copy_user_depth", "copy", "user",
                 f"user space, {DEPTH} in flight x {DEPTH_BLOCK // 1024} KiB", depth=DEPTH,
                 block=DEPTH_BLOCK, source="tests/bench/user_workloads.cpp"),
    ]
    return out
