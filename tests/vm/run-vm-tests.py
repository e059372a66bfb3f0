#!/usr/bin/env python3
"""Boots a Debian kernel that has io_uring_bpf_ops under qemu and runs test binaries inside it.

The host kernel lacks the feature, so every test that loads a controller runs here instead. For each
kernel of the matrix the runner fetches the kernel (fetch-kernel.sh, apt only, cached), packs the
test binaries with the shared libraries they need and busybox into an initramfs, boots it, and reads
the results back from the serial console. Every result line names the kernel. A guest that crashes,
stays silent or overruns the time limit is reported as such, never as a test result.

Usage: run-vm-tests.py --manifest FILE [--suite sid --suite trixie-backports] [--timeout S]
Without --suite it boots sid and trixie-backports; a pinned series (trixie-backports-7.1) only
when named, as it runs a manifest of its own.
The manifest is JSON: [{"name": ..., "argv": [binary, args...], "env": {...}}, ...]; strings
may carry file names that are not UTF-8 as surrogate escapes (\udc80-\udcff, one per byte).
SIGINT and SIGTERM stop the guest and remove the runner's temporary files; the exit status is
then 130.
"""
import argparse
import json
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmlib  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifest", required=True, help="JSON list of guest tests")
    parser.add_argument("--suite", action="append", choices=sorted(vmlib.SUITES),
                        help="kernel suite to boot (repeatable; default: "
                             + " and ".join(vmlib.DEFAULT_SUITES) + ")")
    parser.add_argument("--timeout", type=float, default=600,
                        help="seconds one boot may take, tests included")
    parser.add_argument("--boot-timeout", type=float, default=vmlib.BOOT_TIMEOUT,
                        help="seconds the guest's kernel may take to reach /init")
    parser.add_argument("--retries", type=int, default=1,
                        help="boots to retry after a guest crash (not after a test failure)")
    parser.add_argument("--filter", default=None,
                        help="passed to every test as GTEST_FILTER")
    parser.add_argument("--exit-status", action="store_true",
                        help="a manifest of one test (`uringc run --vm`): exit with its own exit "
                             "status (0, 2 usage, 130 interrupted, else 1), the first nonzero "
                             "one of the suites")
    args = parser.parse_args()

    with open(args.manifest, "rb") as f:
        manifest = f.read().decode("utf-8", "surrogateescape")
    try:
        tests = [vmlib.GuestTest.from_json(t) for t in json.loads(manifest)]
    except (ValueError, KeyError, TypeError) as e:
        print(f"run-vm-tests: {args.manifest} is not a test manifest: {e}", file=sys.stderr)
        return 2
    if args.filter:
        for t in tests:
            t.env["GTEST_FILTER"] = args.filter

    suites = args.suite or list(vmlib.DEFAULT_SUITES)
    failed = False
    codes = []  # --exit-status: the one test's exit code in each guest
    for suite in suites:
        consoles = []
        try:
            ok = vmlib.run_suite(suite, tests, timeout=args.timeout, retries=args.retries,
                                 boot_timeout=args.boot_timeout, consoles=consoles)
        except vmlib.VmError as e:
            print(f"[{suite}] ERROR: {e}", flush=True)
            ok = False
        failed |= not ok
        results = consoles[0].results if consoles and not consoles[0].crash else []
        codes.append(results[0].exit_code if len(results) == 1 else None)
    if args.exit_status and len(tests) == 1:
        if None in codes:
            return 1  # a guest that did not run the test: the runner's own failure
        code = next((c for c in codes if c != 0), 0)
        return code if code in (0, 2, 130) else 1
    return 1 if failed else 0


class Interrupted(BaseException):
    """SIGINT or SIGTERM: unwinds through every `finally` (qemu killed, temporary files gone)."""


def on_signal(signum, frame):
    # Once is enough: a second signal (the terminal's and a forwarded one) must not cut the
    # clean-up short.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise Interrupted(signal.Signals(signum).name)


if __name__ == "__main__":
    # File names may hold any bytes; print them escaped rather than fail on them.
    sys.stdout.reconfigure(errors="backslashreplace")
    sys.stderr.reconfigure(errors="backslashreplace")
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        sys.exit(main())
    except Interrupted as e:
        print(f"run-vm-tests: interrupted ({e}); the guest was stopped", file=sys.stderr, flush=True)
        sys.exit(130)
