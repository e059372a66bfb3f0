"""Unit tests for the VM runner's console parsing and verdicts, and for how it takes a kernel from
the cache: no VM is booted and no network is used."""
import os
import subprocess
import tempfile
import unittest
from unittest import mock

import vmlib


def console(*lines):
    return vmlib.parse_console(list(lines))


class ParseConsoleTest(unittest.TestCase):
    def test_gtest_cases_become_verdicts(self):
        c = console("@@URINGC KERNEL 7.2.13", "@@URINGC BEGIN kt", "[ RUN      ] A.B",
                    "[       OK ] A.B (3 ms)", "[  SKIPPED ] A.C (0 ms)", "@@URINGC END kt 0",
                    "@@URINGC DONE 0")
        self.assertEqual(c.done_status, 0)
        self.assertIsNone(c.crash)
        self.assertEqual(vmlib.verdicts(c.results[0]), [("PASS", "kt: A.B"), ("SKIP", "kt: A.C")])

    def test_nonzero_exit_with_passing_cases_fails(self):
        c = console("@@URINGC BEGIN kt", "[       OK ] A.B (3 ms)", "@@URINGC END kt 139",
                    "@@URINGC DONE 1")
        self.assertIn(("FAIL", "kt: exited with status 139"), vmlib.verdicts(c.results[0]))

    def test_plain_program_uses_exit_code(self):
        c = console("@@URINGC BEGIN p", "hello", "@@URINGC END p 2", "@@URINGC DONE 1")
        self.assertEqual(vmlib.verdicts(c.results[0]), [("FAIL", "p")])
        self.assertEqual(c.results[0].output, ["hello"])

    def test_test_cut_short_by_a_crash(self):
        c = console("@@URINGC BEGIN p", "[   12.1] Oops: general protection fault",
                    "[   12.2] Kernel panic - not syncing: Fatal exception")
        self.assertIsNone(c.done_status)
        self.assertIn("Oops", c.crash)
        self.assertEqual(vmlib.verdicts(c.results[0]), [("FAIL", "p: did not finish")])

    def test_marker_after_console_noise_on_the_same_line(self):
        c = console("[    3.0] random: crng init done@@URINGC BEGIN p", "@@URINGC END p 0",
                    "@@URINGC DONE 0")
        self.assertEqual(vmlib.verdicts(c.results[0]), [("PASS", "p")])

    def test_guest_time_of_each_test(self):
        c = console("@@URINGC BEGIN p 3.50", "@@URINGC END p 0 15.75", "@@URINGC BEGIN q",
                    "@@URINGC END q 0", "@@URINGC DONE 0")
        self.assertAlmostEqual(c.results[0].seconds, 12.25)
        self.assertIsNone(c.results[1].seconds)  # an older guest's lines carry no time

    def test_init_script_quotes_arguments(self):
        script = vmlib.init_script([vmlib.GuestTest("t", ["/tests/x", "a b", "it's"], {"K": "v"})],
                                   60)
        self.assertIn("env K='v' timeout -s KILL 60 '/tests/x' 'a b' 'it'\\''s'", script)
        self.assertTrue(script.rstrip().endswith("poweroff -f"))


class GuestFilesTest(unittest.TestCase):
    def test_manifest_files_are_read(self):
        t = vmlib.GuestTest.from_json({"name": "r", "argv": ["/bin/true"],
                                       "files": [["/etc/hostname", "/data/h"]]})
        self.assertEqual(t.files, [("/etc/hostname", "/data/h")])
        self.assertEqual(vmlib.GuestTest.from_json({"name": "r", "argv": ["x"]}).files, [])

    def test_files_are_copied_to_their_guest_paths(self):
        import os
        import tempfile
        with tempfile.TemporaryDirectory() as root, tempfile.NamedTemporaryFile("w") as f:
            f.write("hello")
            f.flush()
            vmlib.copy_files(root, [(f.name, "/data/in.txt")])
            with open(os.path.join(root, "data/in.txt")) as g:
                self.assertEqual(g.read(), "hello")
            with self.assertRaises(vmlib.VmError):
                vmlib.copy_files(root, [(f.name, "/data/../../etc/x")])
            with self.assertRaises(vmlib.VmError):
                vmlib.copy_files(root, [("/nonexistent", "/data/x")])

    def test_an_executable_brings_its_libraries(self):
        import os
        import tempfile
        with tempfile.TemporaryDirectory() as root:
            vmlib.copy_files(root, [("/usr/bin/python3", "/bin/tool")])
            self.assertTrue(os.access(os.path.join(root, "bin/tool"), os.X_OK))
            libs = vmlib.shared_libraries("/usr/bin/python3")
            self.assertTrue(libs)
            for lib in libs:
                self.assertTrue(os.path.isfile(os.path.join(root, lib.lstrip("/"))), lib)

    def test_names_that_are_not_utf8_keep_their_bytes(self):
        # `uringc run --vm` writes a byte that is not UTF-8 as the surrogate escape \udcXX.
        import json
        import os
        import tempfile
        with tempfile.TemporaryDirectory() as root, tempfile.TemporaryDirectory() as src:
            host = os.path.join(os.fsencode(src), b"in\xff.txt")
            with open(host, "wb") as f:
                f.write(b"bytes")
            manifest = json.dumps({"name": "r", "argv": ["/tests/x", "/data/in\udcff.txt"],
                                   "files": [[os.fsdecode(host), "/data/in\udcff.txt"]]})
            t = vmlib.GuestTest.from_json(json.loads(manifest))
            vmlib.copy_files(root, t.files)
            with open(os.path.join(os.fsencode(root), b"data/in\xff.txt"), "rb") as g:
                self.assertEqual(g.read(), b"bytes")
            script = vmlib.init_script([t], 60).encode("utf-8", "surrogateescape")
            self.assertIn(b"'/tests/x' '/data/in\xff.txt'", script)

    def test_verify_cache_names_a_damaged_file(self):
        import os
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            for name, text in (("vmlinuz", "kernel"), ("release", "7.2.13\n")):
                with open(os.path.join(d, name), "w") as f:
                    f.write(text)
            subprocess.run(f"cd {d} && sha256sum vmlinuz release > sha256sums", shell=True,
                           check=True)
            vmlib.verify_cache(d)
            with open(os.path.join(d, "vmlinuz"), "a") as f:
                f.write("!")
            with self.assertRaisesRegex(vmlib.VmError, f"the kernel cache {d} is damaged "
                                        r"\(vmlinuz does not match"):
                vmlib.verify_cache(d)


class KernelCacheTest(unittest.TestCase):
    """fetch_kernel on a fresh cache entry, so fetch-kernel.sh answers without apt."""

    def fetch(self, suite, abi):
        with tempfile.TemporaryDirectory() as cache:
            folder = os.path.join(cache, "kernels", suite)
            os.makedirs(folder)
            for name, text in (("vmlinuz", "x"), ("release", "7.1.13+deb13-cloud-amd64\n"),
                               ("abi", abi + "\n"), ("no-ublk", "a test's entry\n")):
                with open(os.path.join(folder, name), "w") as f:
                    f.write(text)
            with mock.patch.dict(os.environ, {"URINGC_CACHE_DIR": cache}):
                return vmlib.fetch_kernel(suite)

    def test_a_pinned_series_is_cached_under_its_own_name(self):
        folder, release = self.fetch("trixie-backports-7.1", "7.1")
        self.assertTrue(folder.endswith("/kernels/trixie-backports-7.1"))
        self.assertEqual(release, "7.1.13+deb13-cloud-amd64")

    def test_a_kernel_with_another_abi_than_its_suite_is_refused(self):
        with self.assertRaisesRegex(vmlib.VmError, "has the 7.2 kernel ABI, but suite "
                                    "trixie-backports-7.1 stands for 7.1"):
            self.fetch("trixie-backports-7.1", "7.2")

    def test_unknown_suites_are_usage_errors(self):
        for suite in ("bookworm", "sid-7", "trixie-backports-x.1"):
            proc = subprocess.run([os.path.join(vmlib.HERE, "fetch-kernel.sh"), suite],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.assertEqual(proc.returncode, 2, suite)
            self.assertIn("unknown suite", proc.stderr)


if __name__ == "__main__":
    unittest.main()
