"""`cmake --install` gives a tree a user can move and use on its own: installed into a temporary
prefix, moved to another place, then used with the source and build trees hidden behind empty
tmpfs mounts in a private mount namespace (so nothing can fall back to them):
- `uringc check`/`compile`/`run` find the installed stdlib, `uringc run --vm` the installed VM
  runner, and a graph runs on the host engine;
- every public header compiles on its own against the installed include directory only;
- an application (examples/embed/embed_graph.c with a graph compiled by the installed uringc)
  builds with find_package(uringc) (shared and static) and with pkg-config, and runs;
- the installed examples/embed, a CMake project of its own, builds its skeleton application
  (embed_copy.c, `uringc compile --emit-skeleton` run by the rule through uringc_COMPILER) with
  find_package against the moved prefix, and with pkg-config, and each copies a file exactly.
Hiding the trees needs root (unshare + mount); without it those parts are skipped with the reason."""
import os
import pathlib
import shutil
import tempfile
import unittest

from installed import BUILD, SOURCE, install, run

APP_CMAKE = """cmake_minimum_required(VERSION 3.25)
project(embed_installed C)
find_package(uringc 0.1 REQUIRED)
add_executable(app_shared embed_graph.c nop_chain.o)
target_link_libraries(app_shared PRIVATE uringc::uringc)
add_executable(app_static embed_graph.c nop_chain.o)
target_link_libraries(app_static PRIVATE uringc::uringc_static)
"""


def hidden_trees():
    """The directories to hide: the source tree and, if outside it, the build tree."""
    trees = [SOURCE.resolve()]
    if not str(BUILD.resolve()).startswith(str(SOURCE.resolve()) + "/"):
        trees.append(BUILD.resolve())
    return trees


def run_hidden(argv, **kw):
    """Runs argv in a private mount namespace where the source and build trees are empty, from
    / (the test's own directory is hidden too: a pyenv shim cannot start in it)."""
    mounts = " && ".join(f"mount -t tmpfs uringc-hidden '{t}'" for t in hidden_trees())
    return run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                mounts + ' && cd / && exec "$@"', "sh", *argv], **kw)


class Install(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="uringc-install-")
        cls.root = pathlib.Path(cls.tmp.name)
        staged = cls.root / "staged"
        install(staged)
        cls.prefix = cls.root / "moved" / "opt" / "uringc"
        cls.prefix.parent.mkdir(parents=True)
        os.rename(staged, cls.prefix)  # relocated: nothing may remember the staging prefix
        cls.work = cls.root / "work"
        cls.work.mkdir()
        shutil.copy(SOURCE / "examples" / "embed" / "embed_graph.c", cls.work)
        cls.uringc = cls.prefix / "bin" / "uringc"

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def can_hide(self):
        if os.geteuid() != 0 or shutil.which("unshare") is None:
            self.skipTest("skipped: hiding the source tree needs root and unshare(1)")

    def test_layout(self):
        p = self.prefix
        libdirs = [d.parent for d in p.glob("lib*/**/liburingc.so.0")]
        self.assertEqual(len(libdirs), 1, "liburingc.so.0 under lib*/")
        lib = libdirs[0]
        for rel in ["bin/uringc", "bin/uringc-run", "include/uringc/uringc.h",
                    "include/uringc/diag/kinds.def", "include/uringc/bpf/uringc_controller.bpf.h",
                    "share/uringc/stdlib", "libexec/uringc/run-vm-tests.py",
                    "libexec/uringc/vmlib.py", "libexec/uringc/fetch-kernel.sh",
                    "libexec/uringc/debian-mirror.sh", "share/man/man1/uringc.1",
                    "share/man/man1/uringc-run.1", "share/bash-completion/completions/uringc",
                    "share/doc/uringc/README.md", "share/doc/uringc/examples/nop_chain.uring",
                    "share/uringc/editors/uring.tmLanguage.json",
                    "share/uringc/editors/uring.tmLanguage",
                    *[f"share/{root}/{kind}/uring.vim" for root in ("vim/vimfiles", "nvim/site")
                      for kind in ("syntax", "ftdetect", "ftplugin", "indent")],
                    "share/doc/uringc/examples/embed/CMakeLists.txt",
                    "share/doc/uringc/examples/embed/embed_copy.c"]:
            self.assertTrue((p / rel).exists(), rel)
        for rel in ["liburingc.so", "liburingc.a", "pkgconfig/uringc.pc",
                    "cmake/uringc/uringcConfig.cmake", "cmake/uringc/uringcTargets.cmake"]:
            self.assertTrue((lib / rel).exists(), rel)
        self.assertTrue(any(p.glob("share/uringc/stdlib/**/*.uring")))
        self.assertTrue(any(p.glob("share/uringc/editors/uring-*.vsix")))
        # Nothing installed names the build or source tree.
        for f in [*lib.glob("cmake/uringc/*.cmake"), lib / "pkgconfig/uringc.pc"]:
            for tree in hidden_trees():
                self.assertNotIn(str(tree), f.read_text(), f)

    def test_commands_work_without_the_source_tree(self):
        self.can_hide()
        examples = self.prefix / "share/doc/uringc/examples"
        # copy.uring imports the stdlib: found beside the binary, not in the (hidden) source.
        proc = run_hidden([self.uringc, "check", examples / "copy.uring"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        obj = self.work / "copy.bpf.o"
        proc = run_hidden([self.uringc, "compile", examples / "copy.uring", "-o", obj])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(obj.stat().st_size > 0)
        proc = run_hidden([self.uringc, "run", "--engine=host", examples / "nop_chain.uring",
                           "--arg", "n=1000"])
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertRegex(proc.stdout, r"done = 1000\b")
        # The VM runner is the installed one: it answers an unknown kernel suite itself.
        proc = run_hidden([self.prefix / "libexec/uringc/run-vm-tests.py", "--help"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        proc = run_hidden([self.uringc, "run", "--vm", "--suite", "no-such-suite",
                           examples / "nop_chain.uring", "--arg", "n=10"])
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("no-such-suite", proc.stderr)
        self.assertNotIn("cannot find", proc.stderr)
        self.assertNotIn("No such file", proc.stderr)

    def test_public_headers_compile_alone(self):
        self.can_hide()
        include = self.prefix / "include"
        headers = sorted(h.relative_to(include) for h in include.glob("uringc/**/*.h")
                         if not h.name.endswith(".bpf.h"))
        self.assertGreater(len(headers), 10)
        for h in headers:
            src = self.work / "one_header.cpp"
            src.write_text(f'#include "{h}"\n#include "{h}"\n')
            proc = run_hidden(["g++", "-std=c++20", "-fsyntax-only", "-Wall", "-Werror",
                               "-I", include, src])
            self.assertEqual(proc.returncode, 0, f"{h}:\n{proc.stderr}")
        for h in ("uringc/uringc.h", "uringc/program.h"):
            src = self.work / "one_header.c"
            src.write_text(f'#include "{h}"\n')
            proc = run_hidden(["gcc", "-std=c11", "-fsyntax-only", "-Wall", "-Werror",
                               "-I", include, src])
            self.assertEqual(proc.returncode, 0, f"{h} as C:\n{proc.stderr}")

    def compile_graph(self):
        """nop_chain.o and nop_chain.h, from the installed uringc and its installed example."""
        example = self.prefix / "share/doc/uringc/examples/nop_chain.uring"
        proc = run_hidden([self.uringc, "compile", "--target=host", "--emit-header", example,
                           "-o", self.work / "nop_chain.o"])
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_application_with_find_package(self):
        self.can_hide()
        self.compile_graph()
        (self.work / "CMakeLists.txt").write_text(APP_CMAKE)
        build = self.work / "build-cmake"
        proc = run_hidden(["cmake", "-S", self.work, "-B", build, "-G", "Ninja",
                           f"-DCMAKE_PREFIX_PATH={self.prefix}"])
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        proc = run_hidden(["ninja", "-C", build])
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        for app in ("app_shared", "app_static"):
            proc = run_hidden([build / app, "host", "2000"])
            self.assertEqual(proc.returncode, 0, app + proc.stdout + proc.stderr)
            self.assertIn("done = 2000 of 2000", proc.stdout, app)
        needed = run(["readelf", "-d", build / "app_static"]).stdout
        self.assertNotIn("liburingc", needed, "app_static must not need liburingc.so")

    def build_with_pkg_config(self, gcc_args, app):
        """Builds `app` with gcc, the installed uringc.pc's flags and `gcc_args` (a shell
        fragment); returns the environment that runs it (the library's directory)."""
        pc_dir = next(self.prefix.glob("lib*/**/pkgconfig"))
        env = dict(os.environ, PKG_CONFIG_PATH=str(pc_dir))
        flags = run_hidden(["pkg-config", "--cflags", "--libs", "uringc"], env=env)
        self.assertEqual(flags.returncode, 0, flags.stderr)
        proc = run_hidden(["sh", "-c", f'gcc {gcc_args} {flags.stdout.strip()} -o "{app}"'],
                          env=env)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        lib_dir = run(["pkg-config", "--variable=libdir", "uringc"], env=env).stdout.strip()
        return dict(env, LD_LIBRARY_PATH=lib_dir)

    def test_application_with_pkg_config(self):
        self.can_hide()
        self.compile_graph()
        app = self.work / "app_pc"
        env = self.build_with_pkg_config(f'-std=c11 -Wall -I"{self.work}" '
                                         f'"{self.work}/embed_graph.c" "{self.work}/nop_chain.o"',
                                         app)
        proc = run_hidden([app, "host", "2000"], env=env)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("done = 2000 of 2000", proc.stdout)

    def check_copy(self, app, env=None):
        """Runs the skeleton application on the host engine over a file of odd size."""
        src, dst = self.work / "copy.in", self.work / "copy.out"
        src.write_bytes(os.urandom(200003))
        proc = run_hidden([app, "host", src, dst], env=env)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("host engine: status 0, copied 200003 of 200003 bytes", proc.stdout)
        self.assertEqual(src.read_bytes(), dst.read_bytes(), "the copy differs")

    def test_embed_example_project_with_find_package(self):
        self.can_hide()
        project = self.prefix / "share/doc/uringc/examples/embed"
        build = self.work / "build-embed"
        proc = run_hidden(["cmake", "-S", project, "-B", build, "-G", "Ninja",
                           f"-DCMAKE_PREFIX_PATH={self.prefix}"])
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        cache = (build / "CMakeCache.txt").read_text()
        self.assertIn(f"uringc_COMPILER:FILEPATH={self.prefix}/bin/uringc", cache)
        proc = run_hidden(["ninja", "-C", build])
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("copy__open", (build / "copy.skel.h").read_text())
        self.check_copy(build / "uringc_embed_copy")

    def test_embed_example_with_pkg_config(self):
        self.can_hide()
        examples = self.prefix / "share/doc/uringc/examples"
        proc = run_hidden([self.uringc, "compile", "--target=host", "--emit-skeleton",
                           examples / "copy.uring", "-o", self.work / "copy.o"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        app = self.work / "app_copy_pc"
        env = self.build_with_pkg_config(f'-std=c11 -Wall -Wextra -Werror -pedantic -I"{self.work}" '
                                         f'"{examples}/embed/embed_copy.c" "{self.work}/copy.o"', app)
        self.check_copy(app, env=env)


if __name__ == "__main__":
    unittest.main()
