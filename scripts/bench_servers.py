#!/usr/bin/python3
"""The server benchmark: the example servers compiled by uringc against hand-written liburing
servers doing the same work (issue 14, item 6).

Builds what it needs (target uringc_bench_all), boots each kernel ONCE and, in the guest, runs
each server (echo, file, proxy) x runner (compiled under `uringc-run` on the kernel engine, or
tests/bench/servers/ in C) x connections (1, 16, 64) for --rounds interleaved rounds: the load
generator of `uringc-bench server` connects, keeps one request in flight per connection, checks
every reply byte for byte, and reports requests/s and p50/p99 latency of a --seconds window
after a --warmup. Medians go into docs/performance.md between this script's markers. A missed
bar never fails the command; a wrong reply, a server that dies or will not stop does.

--smoke: one round, 16 connections, short windows, one kernel, nothing written (CTest
vm.bench_servers_smoke, in CI).

usage: scripts/bench_servers.py [--build-dir build] [--no-build] [--rounds 5] [--seconds 2]
                                [--suite sid ...] [--bpf-stats] [--smoke] [--out-dir DIR]
"""
import argparse
import datetime
import os
import platform
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_lib import guest, report  # noqa: E402
from bench_lib import servers as sv  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    p.add_argument("--no-build", action="store_true", help="use the build dir as it is")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seconds", type=float, default=2.0, help="measured window of each run")
    p.add_argument("--warmup", type=float, default=0.5, help="seconds of load before it")
    p.add_argument("--suite", action="append", choices=["sid", "trixie-backports"],
                   help="kernels to boot (default: sid = 7.2 and trixie-backports = 7.3)")
    p.add_argument("--timeout", type=float, default=3600, help="seconds one boot may take")
    p.add_argument("--out-dir", help="where performance.md goes (default docs/)")
    p.add_argument("--only", action="append", choices=[s.name for s in sv.SERVERS],
                   help="run only these servers (repeatable; the docs are not written)")
    p.add_argument("--conns", help="connection counts, e.g. 1,16 (the default is 1,16,64; "
                                   "with others the docs are not written)")
    p.add_argument("--bpf-stats", action="store_true",
                   help="also time the compiled servers' loop_step (BPF run-time statistics, "
                        "which cost every call two clock reads)")
    p.add_argument("--smoke", action="store_true")
    args = p.parse_args()
    args.conns = tuple(int(c) for c in args.conns.split(",")) if args.conns else sv.CONNS
    if args.smoke:
        args.rounds, args.seconds, args.warmup, args.conns = 1, 0.3, 0.1, (16,)
        args.timeout = 900
        args.suite = args.suite or ["sid"]
    args.suite = args.suite or ["sid", "trixie-backports"]
    return args


def costs(r):
    """One run's costs per request, for the log."""
    parts = [f"{label} {r[f]:,.1f}" for f, label in (
        ("server_cpu_us", "server us"), ("server_switches", "switches"),
        ("upstream_cpu_us", "upstream us"), ("loadgen_cpu_us", "loadgen us"),
        ("server_per_loadgen", "server/loadgen"), ("bpf_us", "loop_step us")) if f in r]
    if "idle" in r:
        parts.append(f"idle {r['idle']:.0%}")
    return " (" + ", ".join(parts) + ")" if parts else ""


def section(args, kernels, started):
    argv = " ".join(sys.argv[1:])
    commit = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                            capture_output=True, text=True).stdout.strip()
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo")
                if ln.startswith("model name")), platform.processor())
    guests = "; ".join(f"{release}, {accel}" for release, accel, _ in kernels)
    return "\n".join([
        sv.BEGIN,
        "## Benchmark: servers, compiled against liburing",
        "",
        f"Run on {started} at commit {commit}: `python3 scripts/bench_servers.py"
        f"{' ' + argv if argv else ''}`. Host: {cpu}, {os.cpu_count()} cores. Guests: {guests}. "
        f"Medians of {args.rounds} interleaved round(s) in one boot per kernel; each run "
        f"measures a {args.seconds:g} s window after {args.warmup:g} s of load, every reply "
        "checked byte for byte. The load generator, the server (and the proxy's upstream) share "
        "the guest's one vCPU, alike for both runners. Bar: compiled requests/s >= "
        f"{sv.BAR:.1f}x liburing's at 16 and 64 connections.",
        "",
        sv.table([(release, med) for release, _, med in kernels], args.conns),
        "",
        "What a request cost inside the window (medians; CPU time from the processes' "
        "schedstat, so the kernel's work in a process's own context, its `io_uring_enter` and "
        "the controller in it included; the proxy's upstream not included). The guest's speed "
        "drifts from run to run, so the server's CPU is also given in units of the load "
        "generator's CPU per request (the same work in every run): that ratio is steady within "
        "a few percent where requests/s are not:",
        "",
        sv.cost_table([(release, med) for release, _, med in kernels], args.conns),
        "",
        "### Server workloads",
        "",
        sv.workload_list(),
        "",
        sv.END,
    ]) + "\n"


def main():
    args = parse_args()
    started = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    if not args.no_build:
        subprocess.run(["ninja", "-C", args.build_dir, "-j2", "uringc_bench_all"], check=True)
    tests = sv.guest_tests(args.build_dir, args.conns, args.rounds, args.seconds, args.warmup,
                           args.only, args.bpf_stats)
    kernels, failed = [], []
    for suite in args.suite:
        print(f"[{suite}] booting with {len(tests) - 1} server runs ...", flush=True)
        try:
            release, accel, console = guest.boot_suite(suite, tests, args.timeout)
            runs = {name: [sv.add_derived(r) for r in rows]
                    for name, rows in guest.parse_results(console).items()}
            for name, rows in sorted(runs.items()):
                print(f"  {name}: " + "; ".join(
                    f"{r['req_s']:,.0f} req/s, p99 {r['p99_us']:,.0f} us, max {r['max_us']:,.0f} "
                    f"us, ready after {r['ready_ms']:,.0f} ms" + costs(r) for r in rows),
                    flush=True)
        except (guest.BenchError, guest.vmlib.VmError) as e:
            print(f"[{suite}] FAILED: {e}", flush=True)
            failed.append(suite)
            continue
        kernels.append((release, accel, sv.medians(runs)))
    text = section(args, kernels, started)
    print(text)
    if failed:
        print(f"bench_servers: FAILED on {', '.join(failed)}; docs not written", file=sys.stderr)
        return 1
    if (args.smoke or args.only or args.conns != sv.CONNS) and not args.out_dir:
        print("bench_servers: passed (every server answered every request right and stopped "
              "cleanly); docs not written for a smoke or narrowed run")
        return 0
    out_dir = args.out_dir or os.path.join(ROOT, "docs")
    path = os.path.join(out_dir, "performance.md")
    source = path if os.path.exists(path) else os.path.join(ROOT, "docs", "performance.md")
    with open(source) as f:
        old = f.read()
    with open(path, "w") as f:
        f.write(report.replace_section(old, text, sv.BEGIN, sv.END))
    print(f"bench_servers: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
