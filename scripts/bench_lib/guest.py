"""Runs the workloads in one boot per kernel: a guest script (through tests/vm/vmlib.py) that
makes the copy input, then runs every workload once per round, rounds interleaved (each round
starts one workload later, so no workload always runs first), and the BENCH lines read back."""
import json
import os
import sys
import tempfile
import time

from . import workloads as wl

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "vm"))
import vmlib  # noqa: E402


class BenchError(Exception):
    """A workload did not run or did not do what it must (the run fails)."""


def guest_tests(binary, objects_dir, work, rounds, nops, copy_bytes, rings):
    files = sorted({(os.path.join(objects_dir, w.obj), f"{wl.GUEST_DIR}/{w.obj}")
                    for w in work if w.obj})
    tests = [vmlib.GuestTest("make-input", [binary, "make-file", wl.INPUT, str(copy_bytes)], {},
                             files)]
    for r in range(rounds):
        for i in range(len(work)):
            w = work[(i + r) % len(work)]
            tests.append(vmlib.GuestTest(f"r{r}.{w.name}", w.argv(binary, rings, nops), {}))
    return tests


def parse_results(console):
    """{workload: [BENCH dicts, one per round]}; raises BenchError for any failed run."""
    results, errors = {}, []
    for res in console.results:
        lines = [ln[ln.index("BENCH ") + 6:] for ln in res.output if "BENCH {" in ln]
        if res.exit_code != 0 or (res.name != "make-input" and not lines):
            errors.append(f"{res.name}: exit status {res.exit_code}: "
                          + " | ".join(res.output[-5:]))
            continue
        for line in lines:
            m = json.loads(line)
            results.setdefault(m["workload"], []).append(m)
    if errors:
        raise BenchError("\n".join(errors))
    return results


def boot_suite(suite, tests, timeout):
    """Boots `suite` once with `tests`; returns (kernel release, accelerator, console), or raises
    BenchError when the guest crashed twice, stopped early or skipped a test."""
    qemu = vmlib.find_qemu()
    kernel_dir, release = vmlib.fetch_kernel(suite)
    with tempfile.TemporaryDirectory(prefix="uringc-bench-") as tmp:
        initrd = os.path.join(tmp, "initrd.gz")
        vmlib.build_initramfs(tests, initrd, guest_timeout=max(60, timeout - 60))
        for attempt in range(2):
            vmlib.verify_cache(kernel_dir)
            start = time.monotonic()
            lines = vmlib.boot_with_fallback(qemu, os.path.join(kernel_dir, "vmlinuz"), initrd,
                                             timeout, release)
            console = vmlib.parse_console(lines)
            if console.crash is None:
                break
            print(f"[{release}] guest kernel crashed ({console.crash}); booting again",
                  flush=True)
    if console.crash:
        raise BenchError(f"[{release}] the guest kernel crashed twice: {console.crash}")
    if console.done_status is None:
        raise BenchError(f"[{release}] the guest stopped before it finished:\n"
                         + "\n".join(lines[-20:]))
    missing = {t.name for t in tests} - {r.name for r in console.results}
    if missing:
        raise BenchError(f"[{release}] never ran: {', '.join(sorted(missing))}")
    accel = "KVM" if vmlib.use_kvm() else "software emulation (TCG), 1 vCPU"
    print(f"[{release}] {len(tests)} runs in {time.monotonic() - start:.0f} s ({accel})",
          flush=True)
    return release, accel, console


def run_suite(suite, binary, objects_dir, work, rounds, nops, copy_bytes, rings, timeout):
    """Boots `suite` once; returns (kernel release, accelerator, {workload: [BENCH dicts]})."""
    tests = guest_tests(binary, objects_dir, work, rounds, nops, copy_bytes, rings)
    release, accel, console = boot_suite(suite, tests, timeout)
    try:
        return release, accel, parse_results(console)
    except BenchError as e:
        raise BenchError(f"[{release}] {e}") from None
