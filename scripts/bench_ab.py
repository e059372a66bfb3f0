#!/usr/bin/python3
"""A/B of two compilers on the NOP graphs, in one boot per kernel: did a lowering change make the
kernel engine faster? `scripts/bench.py` compares uringc with C and user space; this compares
uringc with itself, the objects of an older build (`--old-uringc`, e.g. a `git worktree` of the
commit before, `ninja -C build uringc`) beside this build's, with the lean C baseline as a
yardstick, for K = 1, 8 and 64. The guest runs come from bench.py's own machinery
(bench_lib/guest.py: rounds interleaved, every run checked); the report is the median over
rounds of each round's ratio, which cancels the drift of a shared machine better than a ratio of
medians (both are printed).

  python3 scripts/bench_ab.py --old-uringc /tmp/old/build/uringc --rounds 15 --suite sid

With `--copy-mib N` the two compilers' objects of tests/bench/copy_depth.uring (16 lanes x 32
KiB) also copy an N MiB file in each round (MB/s, and new/old speed). With `--bpf-stats` the
kernel also times each loop_step call (BPF run-time statistics, two clock reads per call): the
report adds the nanoseconds per step spent in the controllers, which tells a slower controller
from a slower trip around io_uring's wait loop.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_lib import guest  # noqa: E402
from bench_lib import workloads as wl  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRAPHS = {1: "examples/nop_chain.uring", 8: "tests/bench/nops_8.uring",
          64: "tests/bench/nops_64.uring"}
RINGS = {"c": "rewind", "compiled": "runtime"}
COPY_GRAPH = "tests/bench/copy_depth.uring"


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--old-uringc", required=True, help="the other build's uringc")
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--nops", type=int, default=1000000)
    p.add_argument("--suite", action="append", choices=["sid", "trixie-backports"])
    p.add_argument("--timeout", type=int, default=3000, help="seconds one boot may take")
    p.add_argument("--copy-mib", type=int, default=0,
                   help="also A/B the copy with depth on a file of this size (0: not)")
    p.add_argument("--bpf-stats", action="store_true",
                   help="also report the kernel's time per loop_step in each controller")
    return p.parse_args()


def compile_both(args, objects_dir, source, suffix):
    """(who, object name) for the old and the new compiler's -O2 objects of `source`."""
    out = []
    for who, uringc in (("old", args.old_uringc),
                        ("new", os.path.join(args.build_dir, "uringc"))):
        obj = f"{who}_{suffix}.o"
        subprocess.run([uringc, "compile", "-O2", os.path.join(ROOT, source), "-o",
                        os.path.join(objects_dir, obj)], check=True)
        out.append((who, obj))
    return out


def workloads(args, objects_dir):
    """old, new and C for each K; the two compilers' objects compiled into objects_dir."""
    bench = os.path.join(args.build_dir, "tests", "bench")
    shutil.copy(os.path.join(bench, wl.c_object("nops", RINGS)), objects_dir)
    work = []
    for k, source in GRAPHS.items():
        for who, obj in compile_both(args, objects_dir, source, f"k{k}"):
            work.append(wl.Workload(f"{who}_k{k}", "nops", "compiled", source, obj, k=k,
                                    bpf_stats=args.bpf_stats))
        work.append(wl.Workload(f"c_k{k}", "nops", "c", "lean C", wl.c_object("nops", RINGS),
                                k=k, bpf_stats=args.bpf_stats))
    if args.copy_mib:
        for who, obj in compile_both(args, objects_dir, COPY_GRAPH, "depth"):
            work.append(wl.Workload(f"{who}_depth", "copy", "compiled", COPY_GRAPH, obj,
                                    depth=wl.DEPTH))
    return work


def report(release, runs):
    """runs: {workload: [BENCH dicts]}, one per round in round order."""
    print(f"[{release}] ns/NOP medians; ratios: median of the rounds' ratios (ratio of medians)")
    for k in GRAPHS:
        ns = {w: [r["ns_per_op"] for r in runs[f"{w}_k{k}"]] for w in ("old", "new", "c")}
        med = {w: statistics.median(v) for w, v in ns.items()}
        text = "  ".join(
            f"{a}/{b} {statistics.median(x / y for x, y in zip(ns[a], ns[b])):.3f} "
            f"({med[a] / med[b]:.3f})" for a, b in (("new", "old"), ("old", "c"), ("new", "c")))
        print(f"  K={k:<2} rounds {len(ns['c'])}: C {med['c']:.0f}, old {med['old']:.0f}, "
              f"new {med['new']:.0f}; {text}")
        if "bpf_ns_per_step" in runs[f"c_k{k}"][0]:
            def medians(key):
                return {w: statistics.median(r[key] for r in runs[f"{w}_k{k}"])
                        for w in ("c", "old", "new")}
            per, steps, enters = medians("bpf_ns_per_step"), medians("steps_per_op"), medians("enters")
            print("       in loop_step, ns per step (per NOP); steps per NOP; io_uring_enter "
                  "calls: " + ", ".join(f"{w} {per[w]:.0f} ({per[w] * steps[w]:.0f}); "
                                        f"{steps[w]:.4f}; {enters[w]:.0f}"
                                        for w in ("c", "old", "new")))
    if "new_depth" in runs:
        mb = {w: [r["mb_s"] for r in runs[f"{w}_depth"]] for w in ("old", "new")}
        ratio = statistics.median(n / o for o, n in zip(mb["old"], mb["new"]))
        print(f"  copy_depth rounds {len(mb['new'])}: MB/s old {statistics.median(mb['old']):.0f}"
              f", new {statistics.median(mb['new']):.0f}; new/old speed {ratio:.3f} "
              f"({statistics.median(mb['new']) / statistics.median(mb['old']):.3f})")


def main():
    args = parse_args()
    binary = os.path.join(args.build_dir, "tests", "bench", "uringc-bench")
    with tempfile.TemporaryDirectory(prefix="uringc-ab-") as objects_dir:
        work = workloads(args, objects_dir)
        for suite in args.suite or ["sid", "trixie-backports"]:  # one guest at a time: less noise
            try:
                release, _, runs = guest.run_suite(suite, binary, objects_dir, work, args.rounds,
                                                   args.nops, max(4096, args.copy_mib << 20),
                                                   RINGS, args.timeout)
            except (guest.BenchError, guest.vmlib.VmError) as e:
                print(f"bench_ab: [{suite}] {e}", file=sys.stderr)
                return 1
            report(release, runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
