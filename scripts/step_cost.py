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
  python3 scripts/step_cost.py --annotate nops_8     # the step's x86 instructions that run at
                                                     # least once per 2 NOPs, with their counts

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
    p.add_argument("--annotate", choices=[g for g, _ in GRAPHS],
                   help="print the hot instructions of this graph's step instead")
    return p.parse_args()


def per_instruction(out, graph):
    """{address: [Ir, Dr, Dw]} of uringc_step_<graph> from a --dump-instr=yes profile: the
    callee costs on the line after each `calls=` are left out (they are inclusive)."""
    counts, addr, in_fn, after_call, names = {}, 0, False, False, {}
    for line in open(out):
        line = line.rstrip("\n")
        if line.startswith("cfn="):
            # A callee's name may be defined here first, then used as a bare "fn=(12)".
            m = re.match(r"^cfn=(\(\d+\))\s+(.+)$", line)
            if m:
                names[m.group(1)] = m.group(2)
        if line.startswith("fn="):
            # Callgrind compresses names: "fn=(12) name" the first time, "fn=(12)" after.
            m = re.match(r"^fn=(\(\d+\))?\s*(.*)$", line)
            name = m.group(2) or names.get(m.group(1), "")
            if m.group(1) and m.group(2):
                names[m.group(1)] = m.group(2)
            in_fn = re.search(rf"\buringc_step_{graph}$", name) is not None
            continue
        if not in_fn:
            continue
        if line.startswith("calls="):
            after_call = True
            continue
        m = re.match(r"^(0x[0-9a-f]+|[+-]\d+|\*)\s+\S+(.*)$", line)
        if not m:
            continue
        pos, rest = m.groups()
        if pos.startswith("0x"):
            addr = int(pos, 16)
        elif pos != "*":
            addr += int(pos)
        if after_call:
            after_call = False
            continue
        c = counts.setdefault(addr, [0, 0, 0])
        for i, v in enumerate(rest.split()[:3]):
            c[i] += int(v)
    return counts


def annotate(bench, graph, k, nops, tmp):
    out = os.path.join(tmp, f"callgrind.{graph}.instr")
    callgrind(bench, graph, k, nops, out, "--dump-instr=yes")
    counts = per_instruction(out, graph)
    symbols = subprocess.run(["nm", bench], capture_output=True, text=True, check=True).stdout
    start = next(int(ln.split()[0], 16) for ln in symbols.splitlines()
                 if ln.endswith(f" uringc_step_{graph}"))
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", f"--start-address={start}",
                          f"--stop-address={max(counts) + 1}", bench],
                         capture_output=True, text=True, check=True).stdout
    print(f"uringc_step_{graph}, per NOP: Ir Dr Dw, instructions run at least once per 2 NOPs")
    for line in dis.splitlines():
        m = re.match(r"^\s+([0-9a-f]+):\s+(.*)$", line)
        if m and counts.get(int(m.group(1), 16), [0])[0] >= nops / 2:
            ir, dr, dw = (v / nops for v in counts[int(m.group(1), 16)])
            print(f"{ir:5.2f} {dr:5.2f} {dw:5.2f}  {m.group(1)}: {m.group(2)}")
    total = [sum(c[i] for c in counts.values()) / nops for i in range(3)]
    print(f"all of the step: Ir {total[0]:.1f}, Dr {total[1]:.1f}, Dw {total[2]:.1f} per NOP")


def callgrind(bench, graph, k, nops, out, *options):
    """Runs the graph's NOPs on the host engine under callgrind into `out`; exits if it failed."""
    cmd = ["valgrind", "--tool=callgrind", "--cache-sim=yes", *options,
           f"--callgrind-out-file={out}", bench, "nops", "--name", graph, "--runner", "host",
           "--program", graph, "--k", str(k), "--n", str(nops), "--ring", "runtime"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0 or '"ok":true' not in run.stdout:
        sys.exit(f"step_cost: {' '.join(cmd)} failed:\n{run.stdout}{run.stderr}")


def count(bench, graph, k, nops, tmp):
    """(Ir, Dr, Dw) per NOP of uringc_step_<graph>."""
    out = os.path.join(tmp, f"callgrind.{graph}")
    callgrind(bench, graph, k, nops, out)
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
        if args.annotate:
            path = os.path.join(tmp, "bench")
            subprocess.run(["objcopy", "--strip-debug", args.bench, path], check=True)
            annotate(path, args.annotate, dict(GRAPHS)[args.annotate], args.nops, tmp)
            return
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
