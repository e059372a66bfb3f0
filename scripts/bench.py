#!/usr/bin/python3
"""The benchmark: compiled controllers against the lean C baselines and user space.

Builds what it needs (target uringc_bench_all), counts static instructions, times compiles on
the host (every example vs clang-22 on the lean C NOP baseline, fresh processes; generated
programs of 1k, 3k and 10k lines), boots each kernel ONCE and runs every workload in it for
--rounds interleaved rounds (tests/vm/vmlib.py), takes medians, prints the tables with the
issue's bars (met / NOT met; a missed bar never fails the command), and writes them into
docs/performance.md between its markers, with SVG charts in docs/. A workload that fails (a
count, a copy that is not byte-exact) fails the command.

--smoke: tiny sizes, one round, one kernel, output in a temporary folder (never docs/); CTest
runs it as vm.bench_smoke. It checks that everything runs, never a time.

usage: scripts/bench.py [--build-dir build] [--no-build] [--rounds 5] [--suite sid ...]
                        [--c-ring rewind|tail] [--user-ring rewind|tail]
                        [--compiled-ring runtime|runtime-rewind|rewind|tail]
                        [--liburing DIR] [--smoke] [--out-dir DIR]
"""
import argparse
import datetime
import os
import platform
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_lib import charts, guest, host, report  # noqa: E402
from bench_lib import workloads as wl  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    p.add_argument("--no-build", action="store_true", help="use the build dir as it is")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--nops", type=int, default=1_000_000, help="NOPs per NOP run (K divides it)")
    p.add_argument("--copy-mib", type=int, default=256, help="size of the copied file")
    p.add_argument("--suite", action="append", choices=["sid", "trixie-backports"],
                   help="kernels to boot (default: sid = 7.2 and trixie-backports = 7.3)")
    p.add_argument("--c-ring", choices=["rewind", "tail"], default="rewind",
                   help="the lean C baselines' rings (default: upstream's SQ_REWIND rings)")
    p.add_argument("--user-ring", choices=["rewind", "tail"], default="rewind")
    p.add_argument("--compiled-ring", default="runtime",
                   choices=["runtime", "runtime-rewind", "rewind", "tail"],
                   help="compiled graphs' rings: uringc::Ring::Create (as `uringc run`), asked "
                        "for SQ_REWIND, or hand-mapped")
    p.add_argument("--compile-runs", type=int, default=21)
    p.add_argument("--generated-lines", default="1000,3000,10000")
    p.add_argument("--compile-timeout", type=float, default=120,
                   help="seconds one compile of a generated program may take")
    p.add_argument("--liburing", help="a liburing checkout or bare git dir: count upstream's "
                                      "controllers' static instructions beside ours")
    p.add_argument("--timeout", type=float, default=3600, help="seconds one boot may take")
    p.add_argument("--out-dir", help="where performance.md and the charts go (default docs/)")
    p.add_argument("--smoke", action="store_true")
    p.add_argument("--objdump", default="llvm-objdump-22")
    p.add_argument("--clang", default="clang-22")
    args = p.parse_args()
    if args.smoke:
        args.rounds, args.nops, args.copy_mib, args.compile_runs = 1, 64 * 16, 1, 1
        args.generated_lines, args.timeout = "100,300", 900
        args.suite = args.suite or ["sid"]
    args.suite = args.suite or ["sid", "trixie-backports"]
    if args.nops % 64:
        p.error("--nops must be a multiple of 64 (every K divides it)")
    return args


def build(args):
    if not os.path.exists(os.path.join(args.build_dir, "build.ninja")):
        subprocess.run(["cmake", "-S", ROOT, "-B", args.build_dir, "-G", "Ninja"], check=True)
    subprocess.run(["ninja", "-C", args.build_dir, "-j2", "uringc_bench_all"], check=True)


def machine(args):
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo")
                if ln.startswith("model name")), platform.processor())
    commit = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                            capture_output=True, text=True).stdout.strip()
    return {"date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), "commit": commit,
            "cpu": cpu, "cores": os.cpu_count(), "load": os.getloadavg()[0],
            "host": f"{platform.system()} {platform.release()}"}


def section(args, info, work, static, upstream, kernels, ct, gen):
    argv = " ".join(sys.argv[1:])
    guests = "; ".join(f"{release}, {accel}" for release, accel, _ in kernels)
    rings = (f"lean C on `{args.c_ring}` rings, user space on `{args.user_ring}`, compiled on "
             f"`{args.compiled_ring}`")
    kmed = [(release, med) for release, _, med in kernels]
    parts = [
        report.BEGIN,
        "## Benchmark: compiled controllers, lean C baselines, user space",
        "",
        f"Run on {info['date']} at commit {info['commit']}: `python3 scripts/bench.py"
        f"{' ' + argv if argv else ''}`. Host: {info['cpu']}, {info['cores']} cores, "
        f"{info['host']}, load average {info['load']:.2f} at the start and "
        f"{os.getloadavg()[0]:.2f} at the end. Guests: {guests}. Medians of {args.rounds} "
        f"interleaved round(s) in one boot per kernel; {args.nops:,} NOPs per NOP run, "
        f"{args.copy_mib} MiB per copy (guest tmpfs, output compared byte for byte); rings: "
        f"{rings}. Only ratios within one boot mean anything.",
        "",
        "### NOPs", "", report.nop_table(kmed), "",
        "### Copies", "", report.copy_table(kmed), "",
        "### Engines: the same graphs on the host engine", "",
        "The compiled graphs above (kernel engine) built with `--target=host` and run by the "
        "runtime's host engine in the same guest, beside the hand-written user-space programs. "
        "Bar (issue 13): host engine <= 1.10x user space's time for the NOP chain at K = 1 and 8 "
        "and the copy with depth; the kernel engine's advantage is what a user weighs.", "",
        report.engine_table(kmed), "",
        "### Code size", "",
        "Static: `llvm-objdump-22 -d` lines of the object the build made; processed: the "
        "verifier's count (`bpf_prog_info.verified_insns`) in each guest. Bar: static <= 1.10x "
        "the lean C baseline for the NOP chain, the K-lane NOPs and the 4 KiB copy.", "",
        report.size_table(static, kmed, upstream), "",
        "### Compile time", "",
        f"Fresh processes on the host, median of {args.compile_runs}. Bar: every example in at "
        "most half of clang's time.", "", report.compile_table(ct), "",
        "Generated programs (`scripts/gen_programs.py`), median of "
        f"{1 if args.smoke else 3} (one run when it takes over 10 s; a compile over "
        f"{args.compile_timeout:.0f} s is cut off):", "",
        report.generated_table(gen, args.compile_timeout), "",
        "![NOPs](bench-nops.svg)", "", "![copies](bench-copy.svg)", "",
        "![compile time](bench-compile.svg)", "",
        "### Workloads", "", report.workload_list(work), "",
        report.END,
    ]
    return "\n".join(parts) + "\n"


def main():
    args = parse_args()
    try:  # before a run of many minutes, not after it
        charts.check_matplotlib()
    except ImportError:
        print(f"bench: {sys.executable} has no matplotlib for the charts: install Debian's "
              "python3-matplotlib (scripts/install-deps.sh) and run with /usr/bin/python3",
              file=sys.stderr)
        return 2
    if not args.no_build:
        build(args)
    bench_dir = os.path.join(args.build_dir, "tests", "bench")
    binary = os.path.join(bench_dir, "uringc-bench")
    uringc = os.path.join(args.build_dir, "uringc")
    # The host engine runs on the ring uringc::Ring::Create makes, as `uringc run` does.
    rings = {"c": args.c_ring, "user": args.user_ring, "compiled": args.compiled_ring,
             "host": "runtime"}
    work = wl.all_workloads(rings)
    if args.smoke:  # the smoke run also checks that the kernel times loop_step (bench_ab.py)
        for w in work:
            w.bpf_stats = w.runner in ("c", "compiled") and w.kind == "nops"
    info = machine(args)

    static = {}  # the lean C baselines as built for the C ring mode
    for name in ("nops", "copy_4k"):
        static[name] = host.static_insns(args.objdump,
                                         os.path.join(bench_dir, wl.c_object(name, rings)))
    for g in ("nop_chain", "nops_8", "nops_64", "copy", "copy_depth"):
        static[g] = host.static_insns(args.objdump, os.path.join(bench_dir,
                                                                 f"bench_{g}.uring.bpf.o"))
    static["copy_4k.uring"] = host.static_insns(
        args.objdump, os.path.join(bench_dir, "bench_copy_4k.uring.bpf.o"))
    upstream = host.upstream_insns(args.liburing, args.clang, args.objdump) if args.liburing else {}

    print("compile times on the host ...", flush=True)
    ct = host.compile_times(uringc, args.clang, args.objdump, args.compile_runs)
    sizes = [int(s) for s in args.generated_lines.split(",")]
    gen = host.generated_times(uringc, sizes, 1 if args.smoke else 3, args.compile_timeout)

    kernels, failed = [], []
    for suite in args.suite:
        print(f"[{suite}] booting with {len(work)} workloads x {args.rounds} rounds ...",
              flush=True)
        try:
            release, accel, runs = guest.run_suite(
                suite, binary, bench_dir, work, args.rounds, args.nops,
                args.copy_mib << 20, rings, args.timeout)
        except (guest.BenchError, guest.vmlib.VmError) as e:
            print(f"[{suite}] FAILED: {e}", flush=True)
            failed.append(suite)
            continue
        missing = [w.name for w in work if len(runs.get(w.name, [])) != args.rounds]
        if missing:
            print(f"[{suite}] FAILED: no result from {', '.join(missing)}", flush=True)
            failed.append(suite)
            continue
        untimed = [w.name for w in work if w.bpf_stats and not all(
            r.get("bpf_runs") == r.get("steps") and r.get("bpf_ns", 0) > 0 for r in runs[w.name])]
        if untimed:
            print(f"[{suite}] FAILED: the kernel did not time every loop_step of "
                  f"{', '.join(untimed)} (--bpf-stats)", flush=True)
            failed.append(suite)
            continue
        kernels.append((release, accel, report.medians(runs)))

    text = section(args, info, work, static, upstream, kernels, ct, gen)
    print(text)
    if failed:
        print(f"bench: FAILED on {', '.join(failed)}; docs not written", file=sys.stderr)
        return 1
    out_dir = args.out_dir or (tempfile.mkdtemp(prefix="uringc-bench-out-") if args.smoke
                               else os.path.join(ROOT, "docs"))
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "performance.md")
    source = path if os.path.exists(path) else os.path.join(ROOT, "docs", "performance.md")
    with open(source) as f:
        old = f.read()
    with open(path, "w") as f:
        f.write(report.replace_section(old, text))
    charts.write_charts(out_dir, [(r, m) for r, _, m in kernels], gen)
    print(f"bench: wrote {path} and {', '.join(charts.CHARTS)} in {out_dir}")
    if args.smoke and not args.out_dir:
        shutil.rmtree(out_dir)
        print("bench: smoke run passed (every workload ran, copies byte-exact)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
