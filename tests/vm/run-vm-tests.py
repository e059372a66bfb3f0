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
The manifest is JSON: [{"name": ..., "argv": [binary, args...], "env": {...}}, ...].
"""
import argparse
import json
import os
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
    parser.add_argument("--retries", type=int, default=1,
                        help="boots to retry after a guest crash (not after a test failure)")
    parser.add_argument("--filter", default=None,
                        help="passed to every test as GTEST_FILTER")
    args = parser.parse_args()

    with open(args.manifest) as f:
        tests = [vmlib.GuestTest.from_json(t) for t in json.load(f)]
    if args.filter:
        for t in tests:
            t.env["GTEST_FILTER"] = args.filter

    suites = args.suite or list(vmlib.DEFAULT_SUITES)
    failed = False
    for suite in suites:
        try:
            ok = vmlib.run_suite(suite, tests, timeout=args.timeout, retries=args.retries)
        except vmlib.VmError as e:
            print(f"[{suite}] ERROR: {e}", flush=True)
            ok = False
        failed |= not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
