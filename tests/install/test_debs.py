"""The Debian packages (cmake/Package.cmake) install on a fresh Debian 12 with apt resolving their
dependencies, and the installed uringc works: CPack builds the .debs from the build tree, a
minimal Debian 12 root (clean-root.sh: mmdebstrap, cached) is unpacked into a temporary
directory, and in a chroot `apt-get install -t bookworm-backports ./*.deb` installs them (libbpf
1.2+ comes from bookworm-backports on Debian 12), then the installed `uringc` checks, compiles and
runs an installed example on the host engine, pkg-config finds the runtime, and `apt-get purge`
removes everything again. Needs root (chroot, mounts); skipped with the reason otherwise."""
import os
import pathlib
import shutil
import subprocess
import tempfile
import unittest

from installed import BUILD, run

HERE = pathlib.Path(__file__).parent


class Debs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0 or shutil.which("unshare") is None:
            raise unittest.SkipTest("skipped: installing into a clean root needs root and unshare(1)")
        cls.tmp = tempfile.TemporaryDirectory(prefix="uringc-debs-")
        tmp = pathlib.Path(cls.tmp.name)
        proc = run(["cpack", "-G", "DEB", "-B", tmp / "packages"], cwd=BUILD)
        if proc.returncode != 0:
            raise AssertionError("cpack failed:\n" + proc.stdout + proc.stderr)
        cls.debs = sorted((tmp / "packages").glob("*.deb"))
        proc = run([HERE / "clean-root.sh"])
        if proc.returncode != 0:
            raise AssertionError("no clean Debian root:\n" + proc.stderr)
        cls.root = tmp / "root"
        cls.root.mkdir()
        subprocess.run(["tar", "-xf", proc.stdout.strip(), "-C", cls.root], check=True)
        (cls.root / "debs").mkdir()
        for deb in cls.debs:
            shutil.copy(deb, cls.root / "debs")
        shutil.copy("/etc/resolv.conf", cls.root / "etc/resolv.conf")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def chroot(self, script):
        """Runs a shell script in the clean root, with /proc and /dev, in a private mount namespace."""
        r = self.root
        setup = (f"mount -t proc proc '{r}/proc' && mount --rbind /dev '{r}/dev' && "
                 f"exec chroot '{r}' /bin/sh -ec \"$0\"")
        return run(["unshare", "--mount", "--propagation", "private", "sh", "-c", setup, script],
                   env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEBIAN_FRONTEND": "noninteractive",
                        "LC_ALL": "C"})

    def test_packages_install_run_and_purge(self):
        names = sorted(d.name.split("_")[0] for d in self.debs)
        self.assertEqual(names, ["liburingc-dev", "liburingc0", "uringc"])
        proc = self.chroot("apt-get install -y -qq --no-install-recommends -t bookworm-backports "
                           "/debs/*.deb")
        self.assertEqual(proc.returncode, 0, proc.stdout[-3000:] + proc.stderr[-3000:])
        examples = "/usr/share/doc/uringc/examples"
        proc = self.chroot(f"uringc --version && uringc check {examples}/copy.uring && "
                           f"uringc compile {examples}/echo.uring -o /tmp/echo.bpf.o && "
                           f"uringc run --engine=host {examples}/nop_chain.uring --arg n=1000 && "
                           "pkg-config --libs uringc && ls /usr/share/man/man1/uringc.1*")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("uringc 0.", proc.stdout)
        self.assertRegex(proc.stdout, r"done = 1000\b")
        self.assertIn("-luringc", proc.stdout)
        proc = self.chroot("apt-get purge -y -qq uringc liburingc-dev liburingc0 && "
                           "! command -v uringc && test ! -e /usr/share/uringc")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)


if __name__ == "__main__":
    unittest.main()
