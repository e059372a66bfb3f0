#!/usr/bin/env python3
"""Codegen benchmark: compiled NOP controllers vs the hand-written C controller.

Reports (1) static BPF instruction counts (llvm-objdump) of examples/nop_chain.uring and
tests/compiled/nop_parallel.uring as the build compiled them, (2) compile time in a fresh process:
`uringc compile` of every example vs `clang -O2 -target bpf` of
tests/controllers/nop_inflight.bpf.c, median of several runs, and with --vm (3) the verifier's
"processed N insns" from the 7.2 and 7.3 guests and (4) the round trip of one NOP at a time:
compiled chain, C controller and user space, in one boot.
The numbers go into docs/codegen.md. Not a unit test: timings on a shared 2-core machine are noisy.

Usage: scripts/bench_codegen.py [--build build] [--runs 21] [--vm]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def static_insns(objdump, obj):
    out = subprocess.run([objdump, "-d", obj], check=True, capture_output=True, text=True).stdout
    return sum(1 for line in out.splitlines() if re.match(r"^\s+\d+:", line))


def median_ms(argv, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, check=len(argv) > 1, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--vm", action="store_true", help="also boot the guests for processed insns")
    parser.add_argument("--objdump", default="llvm-objdump-22")
    parser.add_argument("--clang", default="clang-22")
    args = parser.parse_args()
    tests = os.path.join(args.build, "tests")
    uringc = os.path.join(args.build, "uringc")

    print("## Static BPF instructions (llvm-objdump -d)")
    objects = [
        ("compiled examples/nop_chain.uring -O2 (uringc compile)", "compiled/ex_nop_chain.bpf.o"),
        ("compiled examples/nop_chain.uring -O0 (uringc compile)", "compiled/ex_nop_chain_o0.bpf.o"),
        ("compiled tests/compiled/nop_parallel.uring (8 tasks) -O2", "compiled/t_nop_parallel.bpf.o"),
        ("hand-written nop_inflight.bpf.c, clang -O2", "controllers/nop_inflight.bpf.o"),
    ]
    base = static_insns(args.objdump, os.path.join(tests, "controllers", "nop_inflight.bpf.o"))
    for label, name in objects:
        n = static_insns(args.objdump, os.path.join(tests, name))
        print(f"- {label}: {n} ({n / base:.2f}x)")

    print(f"\n## Compile time, fresh process, median (min) of {args.runs} runs")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.o")
        rows = [
            ("uringc --version (process start; LLVM linked statically)", [uringc, "--version"]),
            ("clang -O2 -g -target bpf nop_inflight.bpf.c",
             [args.clang, "-target", "bpf", "-mcpu=v3", "-O2", "-g",
              "-I" + os.path.join(ROOT, "runtime", "bpf"), "-I/usr/include/x86_64-linux-gnu",
              "-c", os.path.join(ROOT, "tests", "controllers", "nop_inflight.bpf.c"), "-o", out]),
        ]
        for label, argv in rows:
            med, best = median_ms(argv, args.runs)
            print(f"- {label}: {med:.1f} ms ({best:.1f} ms)")

        print(f"\n## uringc compile of every example, fresh process, median (min) of {args.runs} runs")
        examples = sorted(f for f in os.listdir(os.path.join(ROOT, "examples"))
                          if f.endswith(".uring"))
        slowest = (0.0, "")
        for ex in examples:
            for opt in ("-O2", "-O0"):
                argv = [uringc, "compile", opt, os.path.join(ROOT, "examples", ex), "-o", out]
                med, best = median_ms(argv, args.runs)
                n = static_insns(args.objdump, out)
                print(f"- {ex} {opt}: {med:.1f} ms ({best:.1f} ms), {n} insns")
                slowest = max(slowest, (med, f"{ex} {opt}"))
        verdict = "met" if slowest[0] < 50 else "NOT met"
        print(f"- slowest median: {slowest[1]} {slowest[0]:.1f} ms; bar (< 50 ms): {verdict}; "
              f"load average at the end: {os.getloadavg()[0]:.2f}")

    if args.vm:
        print("\n## In the guests: verifier processed insns (log_level 1, n=1000) and round-trip speed")
        manifest = os.path.join(tests, "vm", "vm-tests.json")
        run = subprocess.run(
            [sys.executable, os.path.join(ROOT, "tests", "vm", "run-vm-tests.py"),
             "--manifest", manifest, "--filter", "*ReportsProcessedInsns*:*ReportsRoundTripSpeed*"],
            capture_output=True, text=True)
        for line in run.stdout.splitlines():
            if "[codegen-bench]" in line or "[speed-bench]" in line:
                print("- " + line.strip())
        if run.returncode != 0:
            print("VM run failed:\n" + run.stdout[-3000:], file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
