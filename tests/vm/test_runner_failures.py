"""The VM runner's failure paths, end to end: each must end quickly with a clear message and a
non-zero exit, never a hang or a pass. Boots real guests (label `vm`)."""
import json
import os
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "run-vm-tests.py")


def run_runner(manifest, *args, env=None, timeout=120):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(manifest, f)
    try:
        proc = subprocess.run(["/usr/bin/python3", RUNNER, "--manifest", f.name, *args],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env={**os.environ, **(env or {})}, timeout=timeout)
    finally:
        os.unlink(f.name)
    print(proc.stdout)
    return proc.returncode, proc.stdout


SLEEPER = [{"name": "sleeper", "argv": ["/bin/sleep", "600"], "env": {}}]


class RunnerFailureTest(unittest.TestCase):
    def test_missing_qemu_is_named(self):
        with tempfile.TemporaryDirectory() as empty:
            rc, out = run_runner(SLEEPER, "--suite", "sid", env={"PATH": empty})
        self.assertEqual(rc, 1)
        self.assertIn("qemu-system-x86_64 is not installed", out)

    def test_unreachable_mirror_without_cache(self):
        with tempfile.TemporaryDirectory() as cache:
            rc, out = run_runner(SLEEPER, "--suite", "sid", env={
                "URINGC_CACHE_DIR": cache, "URINGC_DEBIAN_MIRROR": "http://127.0.0.1:9/debian"})
        self.assertEqual(rc, 1)
        self.assertIn("cannot fetch a kernel from sid", out)
        self.assertIn("no kernel is cached", out)

    def test_guest_over_time_limit(self):
        rc, out = run_runner(SLEEPER, "--suite", "sid", "--timeout", "12")
        self.assertEqual(rc, 1)
        self.assertIn("the guest did not finish within 12 s", out)
        self.assertNotIn("PASS", out)

    def test_guest_kernel_crash(self):
        crash = [{"name": "panic", "argv": ["/bin/sh", "-c", "echo c > /proc/sysrq-trigger"],
                  "env": {}}]
        rc, out = run_runner(crash, "--suite", "sid", "--retries", "0")
        self.assertEqual(rc, 1)
        self.assertIn("the guest kernel crashed", out)
        self.assertIn("FAIL panic: did not finish", out)


if __name__ == "__main__":
    unittest.main()
