#!/usr/bin/python3
"""What one completion costs the compiled step, counted rather than timed: instructions, data
reads and data writes per NOP of `uringc_step_<graph>` on the host engine (the same lowering,
built for x86-64), from valgrind's callgrind with its cache simulation. Timing in the emulated
guests cannot resolve a few percent (scripts/bench_ab.py: the same object against itself moves
by up to 8% at K = 1 and 25% at K = 64 over 15 rounds), while these counts are exact and repeat,
so a lowering change is judged here first. Memory accesses count separately because under
emulation (and in the JIT) each costs several times an ALU instruction.

  python3 scripts/step_cost.py                      # this build's uringc-bench
  python3 scripts/step_cost.py --other OLD/uringc-bench   # and an older build's, side by side

The binaries are stripped of their debug info into a temporary folder first: valgrind 3.19
cannot read LLVM 22's DWARF.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRAPHS = [("nop_chain", 1), ("nops_8", 8), ("nops_64", 64)]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bench", default=os.path.join(ROOT, "build/tests/bench/uringc-bench"),
                   help="the uringc-bench to count (default: this build's)")
    p.add_argument("--other", help="a second uringc-bench (an older build's) to count beside it")
    p.add_argument("--nops", type=int, default=100000)
    return p.parse_args()


def count(bench, graph, k, nops, tmp):
    """(Ir, Dr, Dw) per NOP of uringc_step_<graph>."""
    out = os.path.join(tmp, f"callgrind.{graph}")
    cmd = ["valgrind", "--tool=callgrind", "--cache-sim=yes", f"--callgrind-out-file={out}",
           bench, "nops", "--name", graph, "--runner", "host", "--program", graph,
           "--k", str(k), "--n", str(nops), "--ring", "runtime"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0 or '"ok":true' not in run.stdout:
        sys.exit(f"step_cost: {' '.join(cmd)} failed:\n{run.stdout}{run.stderr}")
    report = subprocess.run(["callgrind_annotate", "--inclusive=no", "--show=Ir,Dr,Dw", out],
                            capture_output=True, text=True, check=True).stdout
    for line in report.splitlines():
        if re.search(rf"\buringc_step_{graph}\b", line):
            numbers = re.findall(r"([\d,]+) \(", line)
            ir, dr, dw = (int(n.replace(",", "")) / nops for n in numbers[:3])
            return ir, dr, dw
    sys.exit(f"step_cost: no uringc_step_{graph} in the profile of {bench}")


def main():
    args = parse_args()
    for tool in ("valgrind", "callgrind_annotate", "objcopy"):
        if shutil.which(tool) is None:
            sys.exit(f"step_cost: needs {tool} (apt-get install valgrind binutils)")
    benches = [args.bench] + ([args.other] if args.other else [])
    with tempfile.TemporaryDirectory(prefix="uringc-step-cost-") as tmp:
        stripped = []
        for i, bench in enumerate(benches):
            path = os.path.join(tmp, f"bench{i}")
            subprocess.run(["objcopy", "--strip-debug", bench, path], check=True)
            stripped.append(path)
        print(f"per NOP, uringc_step_<graph> on the host engine ({args.nops:,} NOPs)")
        print(f"{'graph':<10} {'K':>3}  " + "  ".join(
            f"{'build ' + str(i) + ': Ir':>14} {'Dr':>6} {'Dw':>6}" for i in range(len(benches))))
        for graph, k in GRAPHS:
            cells = []
            for path in stripped:
                ir, dr, dw = count(path, graph, k, args.nops, tmp)
                cells.append(f"{ir:14.1f} {dr:6.1f} {dw:6.1f}")
            print(f"{graph:<10} {k:>3}  " + "  ".join(cells))
        for i, bench in enumerate(benches):
            print(f"build {i}: {bench}")


if __name__ == "__main__":
    main()
