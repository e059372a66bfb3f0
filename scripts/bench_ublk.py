#!/usr/bin/python3
"""The ublk benchmark (issue 16, docs/ublk.md "Numbers"): fio 4 KiB random reads through a ublk
device served by examples/ublk/null.uring, one queue, at depth 1 and 64, on the kernel engine
and on the host engine, and the hand-written C controller (tests/controllers/ublk_null.bpf.c) as
the reference for compiled code, in one boot per kernel.

It runs the test UblkBench.NullTargetRandomReadIops (tests/kernel/ublk_cli_test.cpp) of the
built uringc_ublk_cli_tests in the VM with URINGC_UBLK_BENCH_SECONDS=--seconds, --rounds times
(gtest's repeat, same boot), and prints the median IOPS and the kernel/host ratio as a Markdown
table. CI runs the same test as a 1-second smoke run inside the VM suites.

usage: scripts/bench_ublk.py [--build-dir build] [--seconds 10] [--rounds 3] [--suite sid ...]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINE = re.compile(r"ublk-bench null randread 4k depth=(\d+) seconds=\S+ kernel_iops=(\d+) "
                  r"host_iops=(\d+) c_iops=(\d+)")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    p.add_argument("--seconds", type=int, default=10)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--suite", action="append", choices=["sid", "trixie-backports"])
    args = p.parse_args()
    manifest = json.load(open(os.path.join(args.build_dir, "tests/vm/vm-tests.json")))
    entry = next(e for e in manifest if e["name"] == "uringc_ublk_cli_tests")
    entry["env"].update({"GTEST_FILTER": "UblkBench.*", "GTEST_REPEAT": str(args.rounds),
                         "URINGC_UBLK_BENCH_SECONDS": str(args.seconds)})
    kvm = os.access("/dev/kvm", os.R_OK | os.W_OK)
    print(f"fio 4 KiB randread, null target, 1 queue, {args.seconds} s runs, median of "
          f"{args.rounds}; {'KVM' if kvm else 'no KVM: software emulation (TCG), one CPU'}")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "manifest.json")
        json.dump([entry], open(path, "w"))
        for suite in args.suite or ["sid"]:
            timeout = 120 + args.rounds * args.seconds * 8
            proc = subprocess.run([sys.executable, os.path.join(ROOT, "tests/vm/run-vm-tests.py"),
                                   "--manifest", path, "--suite", suite, "--timeout",
                                   str(timeout)], stdout=subprocess.PIPE, text=True)
            runs = {}
            for m in LINE.finditer(proc.stdout):
                runs.setdefault(int(m.group(1)), []).append(
                    (int(m.group(2)), int(m.group(3)), int(m.group(4))))
            if proc.returncode != 0 or not runs:
                sys.stdout.write(proc.stdout[-4000:])
                sys.exit(f"{suite}: the benchmark failed")
            kernel = re.search(r"\[(\S+)\]", proc.stdout).group(1)
            print(f"\n{kernel}\n")
            print("| depth | kernel engine IOPS | host engine IOPS | kernel / host | ratio per "
                  "round | hand-written C controller IOPS |")
            print("|---|---|---|---|---|---|")
            for depth in sorted(runs):
                k, h, c = (statistics.median(r[i] for r in runs[depth]) for i in range(3))
                each = " ".join(f"{r[0] / r[1]:.2f}" for r in runs[depth])
                print(f"| {depth} | {k:,.0f} | {h:,.0f} | {k / h:.2f}x | {each} | {c:,.0f} |")


if __name__ == "__main__":
    main()
