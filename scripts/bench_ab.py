#!/usr/bin/python3
"""A/B of two compilers on the NOP graphs, in one boot per kernel: did a lowering change make the
kernel engine faster? `scripts/bench.py` compares uringc with C and user space; this compares
uringc with itself, the objects of an older build (`--old-uringc`, e.g. a `git worktree` of the
commit before, `ninja -C build uringc`) beside this build's, with the lean C baseline as a
yardstick. Each round runs old, new and C back to back (in a rotating order) for K = 1, 8, 64;
the report is the median over rounds of each round's ratio, which cancels the drift of a shared
machine better than a ratio of medians (both are printed).

  python3 scripts/bench_ab.py --old-uringc /tmp/old/build/uringc --rounds 15 --suite sid
"""
import argparse
import collections
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRAPHS = {1: "examples/nop_chain.uring", 8: "tests/bench/nops_8.uring",
          64: "tests/bench/nops_64.uring"}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--old-uringc", required=True, help="the other build's uringc")
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--nops", type=int, default=1000000)
    p.add_argument("--suite", action="append", choices=["sid", "trixie-backports"])
    return p.parse_args()


def manifest(args, tmp):
    bench = os.path.join(args.build_dir, "tests", "bench")
    files = [[os.path.join(bench, "bench_nops.bpf.o"), "/data/c.o"]]
    for k, source in GRAPHS.items():
        for who, uringc in (("old", args.old_uringc), ("new", os.path.join(args.build_dir, "uringc"))):
            obj = os.path.join(tmp, f"{who}_k{k}.o")
            subprocess.run([uringc, "compile", "-O2", os.path.join(ROOT, source), "-o", obj],
                           check=True)
            files.append([obj, f"/data/{who}_k{k}.o"])
    tests = []
    for r in range(args.rounds):
        for k in GRAPHS:
            runs = [("old", f"/data/old_k{k}.o", "compiled", "runtime"),
                    ("new", f"/data/new_k{k}.o", "compiled", "runtime"),
                    ("c", "/data/c.o", "c", "rewind")]
            runs = runs[r % 3:] + runs[:r % 3]
            for who, obj, runner, ring in runs:
                tests.append({"name": f"r{r}.{who}.k{k}", "env": {},
                              "files": files if not tests else [],
                              "argv": [os.path.join(bench, "uringc-bench"), "nops", "--name",
                                       f"{who}_k{k}", "--runner", runner, "--ring", ring,
                                       "--object", obj, "--k", str(k), "--n", str(args.nops)]})
    path = os.path.join(tmp, "ab.json")
    with open(path, "w") as f:
        json.dump(tests, f)
    return path


def report(suite, output):
    """The runner prints each test's output in manifest order: three BENCH lines per K a round."""
    per = collections.defaultdict(list)  # k -> [{who: ns/NOP}] per round
    filling = {}
    for m in re.finditer(r"BENCH (\{.*\})", output):
        j = json.loads(m.group(1))
        who, k = j["workload"].split("_k")
        filling.setdefault(int(k), {})[who] = j["ns_per_op"]
        if len(filling[int(k)]) == 3:
            per[int(k)].append(filling.pop(int(k)))
    print(f"[{suite}] ns/NOP medians; ratios: median of the rounds' ratios (ratio of medians)")
    for k in GRAPHS:
        rounds = per.get(k, [])
        if not rounds:
            print(f"  K={k}: no complete round")
            continue
        med = {w: statistics.median(r[w] for r in rounds) for w in ("old", "new", "c")}
        text = "  ".join(
            f"{a}/{b} {statistics.median(r[a] / r[b] for r in rounds):.3f} "
            f"({med[a] / med[b]:.3f})" for a, b in (("new", "old"), ("old", "c"), ("new", "c")))
        print(f"  K={k:<2} rounds {len(rounds)}: C {med['c']:.0f}, old {med['old']:.0f}, "
              f"new {med['new']:.0f}; {text}")


def main():
    args = parse_args()
    with tempfile.TemporaryDirectory(prefix="uringc-ab-") as tmp:
        path = manifest(args, tmp)
        for suite in args.suite or ["sid", "trixie-backports"]:  # one guest at a time: less noise
            proc = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "vm",
                                                                "run-vm-tests.py"),
                                   "--manifest", path, "--suite", suite, "--timeout", "3000"],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if proc.returncode != 0:
                print(proc.stdout[-4000:])
                print(f"bench_ab: the {suite} guest failed", file=sys.stderr)
                return 1
            report(suite, proc.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
