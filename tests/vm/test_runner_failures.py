"""The VM runner's failure paths, end to end: each must end quickly with a clear message and a
non-zero exit, never a hang or a pass. Boots real guests (label `vm`).

Damaged kernel caches are copies of the real one in temporary folders (URINGC_CACHE_DIR): the
shared cache is only read, never changed."""
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "run-vm-tests.py")
FETCH = os.path.join(HERE, "fetch-kernel.sh")
UNREACHABLE = "http://127.0.0.1:9/debian"


def run_runner(manifest, *args, env=None, timeout=120, prefix=()):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(manifest, f)
    try:
        proc = subprocess.run([*prefix, "/usr/bin/python3", RUNNER, "--manifest", f.name, *args],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env={**os.environ, **(env or {})}, timeout=timeout)
    finally:
        os.unlink(f.name)
    print(proc.stdout)
    return proc.returncode, proc.stdout


SLEEPER = [{"name": "sleeper", "argv": ["/bin/sleep", "600"], "env": {}}]
TRUE = [{"name": "true", "argv": ["/bin/busybox", "true"], "env": {}}]


def cache_copy(tmp):
    """A copy of the sid kernel's cache entry (fetched first if needed) in tmp, with checksums;
    returns the copy's kernel folder."""
    proc = subprocess.run([FETCH, "sid"], stdout=subprocess.PIPE, text=True, check=True)
    dest = os.path.join(tmp, "kernels", "sid")
    shutil.copytree(proc.stdout.strip(), dest)  # keeps the times: the copy is as fresh
    subprocess.run([FETCH, "sid"], env={**os.environ, "URINGC_CACHE_DIR": tmp,
                                        "URINGC_DEBIAN_MIRROR": UNREACHABLE},
                   stdout=subprocess.DEVNULL, check=True)
    assert os.path.exists(os.path.join(dest, "sha256sums"))
    return dest


def flip_bytes(path):
    with open(path, "r+b") as f:
        f.seek(os.path.getsize(path) // 2)
        data = f.read(4096)
        f.seek(-len(data), os.SEEK_CUR)
        f.write(bytes(b ^ 0xFF for b in data))


def read_only(folder):
    """A command prefix that runs the rest with folder read-only: a private read-only bind mount
    (even root cannot write there), or plain permissions for other users."""
    if os.geteuid() != 0:
        for root, dirs, files in os.walk(folder):
            for name in dirs + files + ["."]:
                os.chmod(os.path.join(root, name), 0o555)
        return []
    script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" "$0" && exec "$@"'
    return ["unshare", "--map-root-user", "--mount", "sh", "-c", script, folder]


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

    def test_exit_status_passes_the_guest_tests_own_status_on(self):
        # `uringc run --vm` asks for it: 0, 2 (usage) and 130 (interrupted) pass through, any
        # other failure is 1; without --exit-status every failure is 1.
        for code, want in ((2, 2), (130, 130), (7, 1)):  # 0: every passing run
            test = [{"name": "exits", "argv": ["/bin/busybox", "sh", "-c", f"exit {code}"],
                     "env": {}}]
            rc, _ = run_runner(test, "--suite", "sid", "--exit-status")
            self.assertEqual(rc, want, code)
        rc, _ = run_runner([{"name": "exits", "argv": ["/bin/busybox", "sh", "-c", "exit 2"],
                             "env": {}}], "--suite", "sid")
        self.assertEqual(rc, 1)

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


class DamagedCacheTest(unittest.TestCase):
    """A kernel cache damaged after its fetch is noticed before a boot (checksums), fetched again,
    and named when it cannot be; a kernel that does not boot is stopped at the boot limit."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="uringc-cache-")
        self.kernel = cache_copy(self.tmp)
        self.env = {"URINGC_CACHE_DIR": self.tmp, "URINGC_DEBIAN_MIRROR": UNREACHABLE}

    def tearDown(self):
        subprocess.run(["chmod", "-R", "u+w", self.tmp])
        shutil.rmtree(self.tmp)

    def assert_named_as_damaged(self, what):
        start = time.monotonic()
        rc, out = run_runner(TRUE, "--suite", "sid", env=self.env)
        self.assertEqual(rc, 1)
        self.assertIn(f"the kernel cached in {self.kernel} is damaged", out)
        self.assertIn(what, out)
        self.assertIn("fetching it again", out)
        self.assertIn("cannot reach Debian's mirror", out)
        self.assertNotIn("PASS", out)
        self.assertNotIn("guest", out)  # never booted
        self.assertLess(time.monotonic() - start, 60)

    def test_truncated_kernel(self):
        os.truncate(os.path.join(self.kernel, "vmlinuz"), 1 << 20)
        self.assert_named_as_damaged("vmlinuz: FAILED")

    def test_kernel_with_flipped_bytes(self):
        flip_bytes(os.path.join(self.kernel, "vmlinuz"))
        self.assert_named_as_damaged("vmlinuz: FAILED")

    def test_empty_abi(self):
        open(os.path.join(self.kernel, "abi"), "w").close()
        self.assert_named_as_damaged("abi holds '', not 7.1 or 7.2")

    def test_empty_abi_in_a_cache_from_before_checksums(self):
        os.unlink(os.path.join(self.kernel, "sha256sums"))
        open(os.path.join(self.kernel, "abi"), "w").close()
        self.assert_named_as_damaged("abi holds '', not 7.1 or 7.2")

    def test_kernel_that_does_not_boot_is_stopped_at_the_boot_limit(self):
        # Damaged before its checksums were taken (say, a bad download): only booting shows it.
        vmlinuz = os.path.join(self.kernel, "vmlinuz")
        flip_bytes(vmlinuz)
        sums = os.path.join(self.kernel, "sha256sums")
        with open(sums) as f:
            lines = f.read().splitlines()
        with open(vmlinuz, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        with open(sums, "w") as f:
            f.write("".join((f"{digest}  vmlinuz" if line.endswith(" vmlinuz") else line) + "\n"
                            for line in lines))
        start = time.monotonic()
        rc, out = run_runner(TRUE, "--suite", "sid", "--boot-timeout", "15", env=self.env)
        self.assertEqual(rc, 1)
        self.assertIn("the guest's kernel did not reach /init within 15 s", out)
        self.assertIn(f"{vmlinuz} does not boot and may be damaged (delete {self.kernel}", out)
        self.assertNotIn("\x1b", out)  # the firmware's terminal codes are escaped
        self.assertLess(time.monotonic() - start, 100)

    def test_read_only_cache_is_used(self):
        rc, out = run_runner(TRUE, "--suite", "sid", env=self.env, prefix=read_only(self.tmp))
        self.assertEqual(rc, 0, out)
        self.assertIn("PASS true", out)

    def test_read_only_damaged_cache_is_named(self):
        os.truncate(os.path.join(self.kernel, "vmlinuz"), 1 << 20)
        rc, out = run_runner(TRUE, "--suite", "sid", env=self.env, prefix=read_only(self.tmp))
        self.assertEqual(rc, 1)
        self.assertIn(f"the kernel cached in {self.kernel} is damaged", out)
        self.assertIn("is read-only, so it cannot be fetched again", out)


if __name__ == "__main__":
    unittest.main()
