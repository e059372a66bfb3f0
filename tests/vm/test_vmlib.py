"""Unit tests for the VM runner's console parsing and verdicts: no VM is booted."""
import unittest

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


if __name__ == "__main__":
    unittest.main()
