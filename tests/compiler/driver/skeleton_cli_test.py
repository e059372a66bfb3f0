#!/usr/bin/env python3
"""`uringc compile --emit-skeleton` (issue 15 item 3), as processes: the skeleton header is written
(beside -o by default, or where --emit-skeleton=FILE says); its parameter and output structs have
the width and signedness of every scalar type (and --emit-header's typedefs agree: i16 is __s16);
it compiles as C11 with -pedantic and as C++17, every warning an error; linked with the object of
--target=host and the runtime it runs on the host engine, every extreme value set through
`struct types_params` comes back through `types__read_outputs`; a skeleton of a BPF object opens
on the kernel engine only and says how to get the host engine; wrong usage is exit 2 with a
sentence that says what to change.

usage: skeleton_cli_test.py URINGC SOURCE_ROOT RUNTIME_INCLUDE_DIR LIBURINGC_SO
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

UR, ROOT, INCLUDE, LIBURINGC = sys.argv[1:5]
HERE = os.path.dirname(os.path.abspath(__file__))
TYPES = os.path.join(HERE, "skeleton", "types.uring")
USE_TYPES = os.path.join(HERE, "skeleton", "use_types.c")
COPY = os.path.join(ROOT, "examples", "copy.uring")

# The parameter structs' members and the C types they must have.
PARAMS = {"a": "int8_t", "b": "int16_t", "c": "int32_t", "d": "int64_t", "e": "uint8_t",
          "f": "uint16_t", "g": "uint32_t", "h": "uint64_t", "t": "bool", "x": "int",
          "w": "uint64_t"}
HEADER_TYPES = {"a": "__s8", "b": "__s16", "c": "__s32", "d": "__s64", "e": "__u8",
                "f": "__u16", "g": "__u32", "h": "__u64", "t": "__u8", "x": "__s32",
                "w": "__u64"}


def run(*args, **kw):
    return subprocess.run([*map(str, args)], capture_output=True, text=True, **kw)


class SkeletonCli(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def out(self, name):
        return os.path.join(self.dir, name)

    def compile(self, *args, src=TYPES):
        p = run(UR, "compile", *args, src)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p

    def read(self, name):
        with open(self.out(name)) as f:
            return f.read()

    def test_default_path_is_beside_the_output(self):
        os.mkdir(self.out("sub"))
        self.compile("--emit-skeleton", "-o", self.out("sub/anything.bpf.o"))
        h = self.read("sub/types.skel.h")
        self.assertIn("#ifndef URINGC_SKEL_TYPES_H", h)
        self.assertIn('extern "C"', h)
        self.compile("--emit-skeleton=" + self.out("named.h"), "-o", self.out("t.bpf.o"))
        self.assertTrue(os.path.exists(self.out("named.h")))

    def test_types_and_widths_of_every_scalar(self):
        self.compile("--emit-skeleton", "--emit-header", "-o", self.out("types.bpf.o"))
        h = self.read("types.skel.h")
        params = h[h.index("struct types_params {"):]
        params = params[:params.index("};")]
        outputs = h[h.index("struct types_outputs {"):]
        outputs = outputs[:outputs.index("};")]
        for name, ctype in PARAMS.items():
            self.assertRegex(params, rf"\n\t{ctype} {name};", name)
            self.assertRegex(outputs, rf"\n\t{ctype} r{name};", "r" + name)
            # Signed types are set as signed, so -1 is not refused as out of range.
            setter = "set_int" if ctype.startswith("int") else "set_uint"
            self.assertIn(f'uringc_ctl__{setter}(skel->ctl, "{name}", ', h)
        self.assertRegex(params, r"\t\tvoid \*data;[^\n]*\n\t\tsize_t size; /\* at least 8192 \*/\n"
                                 r"\t\} buf;")
        self.assertIn("sh: shared buffers[1] of 64", params)
        self.assertIn("static inline void *types__shared_sh(struct types *skel", h)
        for fn in ("open", "open_opts", "load", "attach", "detach", "run", "read_outputs",
                   "destroy", "elf_bytes", "mem_min", "program"):
            self.assertRegex(h, rf"static inline [^\n]*\btypes__{fn}\(", fn)
        # The embedded object is the object -o wrote, byte for byte.
        with open(self.out("types.bpf.o"), "rb") as f:
            obj = f.read()
        array = re.search(r"bytes\[(\d+)\] = \{([^}]*)\}", h)
        self.assertEqual(int(array.group(1)), len(obj))
        self.assertEqual(bytes(int(b, 16) for b in re.findall(r"0x([0-9a-f]{2})", array.group(2))),
                         obj)
        # --emit-header's typedefs have the same signedness (issue 15: i16 was __u16).
        header = self.read("types.h")
        for name, utype in HEADER_TYPES.items():
            self.assertIn(f"typedef {utype} uringc_types_param_{name}_t;", header)
            self.assertIn(f"typedef {utype} uringc_types_output_r{name}_t;", header)

    def build_app(self, compiler, std, extra, objects, name):
        shutil.copy(USE_TYPES, self.out(name + (".c" if compiler == "gcc" else ".cpp")))
        src = self.out(name + (".c" if compiler == "gcc" else ".cpp"))
        p = run(compiler, std, "-Wall", "-Wextra", "-Werror", *extra, "-I", self.dir, "-I",
                INCLUDE, src, *objects, LIBURINGC, "-Wl,-rpath," + os.path.dirname(LIBURINGC),
                "-o", self.out(name))
        self.assertEqual(p.returncode, 0, f"{compiler} {std}:\n{p.stderr}")
        return self.out(name)

    def test_compiles_as_c_and_cxx_and_round_trips_every_value_on_the_host_engine(self):
        self.compile("--target=host", "--emit-skeleton", "-o", self.out("types.o"))
        for compiler, std, extra in (("gcc", "-std=c11", ["-pedantic"]),
                                     ("g++", "-std=c++17", [])):
            app = self.build_app(compiler, std, extra, [self.out("types.o")], "app_" + compiler)
            p = run(app, "host", timeout=60)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn("opened on host", p.stdout)
            self.assertIn("buf: allocated, 8192 bytes", p.stdout)
            self.assertIn("ra=-128 rb=-300 rc=-2147483647 rd=-1099511627783", p.stdout)
            self.assertIn("re=255 rf=65000 rg=4294967295 rh=18446744073709551614", p.stdout)
            self.assertIn("rt=1 rx=2 rw=1234567891011 first=77", p.stdout)

    def test_a_bpf_object_skeleton_runs_on_the_kernel_engine_only(self):
        self.compile("--emit-skeleton", "-o", self.out("types.bpf.o"))
        app = self.build_app("gcc", "-std=c11", ["-pedantic"], [], "app_bpf")
        p = run(app, "host", timeout=60)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn(f"elf {os.path.getsize(self.out('types.bpf.o'))} bytes, ELF", p.stdout)
        self.assertRegex(p.stdout, r"open failed: errno \d+: graph `types` was compiled without "
                                   r"host code.*uringc compile --target=host")
        p = run(app, "auto", timeout=60)
        self.assertIn("opened on kernel", p.stdout)

    def test_a_graph_without_parameters_or_outputs(self):
        # Nothing to set or read: the functions still compile without unused variables.
        with open(self.out("g.uring"), "w") as f:
            f.write("graph g(pool: provided buffers[4] of 256) {\n nop()?\n}\n")
        self.compile("--emit-skeleton", "-o", self.out("g.bpf.o"), src=self.out("g.uring"))
        main = ("#include \"g.skel.h\"\nint main(void)\n{\n\tstruct g_outputs out;\n"
                "\tstruct g *skel = g__open(URINGC_ENGINE_AUTO);\n\tint err = g__load(skel, NULL);\n"
                "\terr = err ? err : g__read_outputs(skel, &out);\n\tg__destroy(skel);\n"
                "\treturn err ? 1 : 0;\n}\n")
        for compiler, std, ext, extra in (("gcc", "-std=c11", ".c", ["-pedantic"]),
                                          ("g++", "-std=c++17", ".cpp", [])):
            with open(self.out("main" + ext), "w") as f:
                f.write(main)
            p = run(compiler, std, "-Wall", "-Wextra", "-Werror", *extra, "-I", self.dir, "-I",
                    INCLUDE, "-c", self.out("main" + ext), "-o", self.out("main.o"))
            self.assertEqual(p.returncode, 0, f"{compiler}:\n{p.stderr}")

    def usage_error(self, *args, src=TYPES):
        p = run(UR, "compile", *args, src)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        return p.stderr

    def test_wrong_usage_is_clear(self):
        err = self.usage_error("--emit-skeleton", "--emit=asm", "-o", self.out("t.s"))
        self.assertIn("--emit-skeleton embeds the compiled object, so it cannot go with --emit=asm",
                      err)
        err = self.usage_error("--emit-skeleton=-", "-o", "-")
        self.assertIn("which is also the output (-o)", err)
        err = self.usage_error("--emit-skeleton=" + self.out("t.h"), "--emit-header",
                               "-o", self.out("t.bpf.o"))
        self.assertIn("which is also the header (--emit-header)", err)
        self.assertFalse(os.path.exists(self.out("t.bpf.o")), "nothing is written on a usage error")
        with open(self.out("kw.uring"), "w") as f:
            f.write("graph kw(class: u32) -> (n: u32) {\n nop()?\n n = class\n}\n")
        err = self.usage_error("--emit-skeleton", "-o", self.out("kw.bpf.o"), src=self.out("kw.uring"))
        self.assertIn("parameter `class` is a C++ keyword, so the skeleton cannot name it", err)

    def test_help_names_the_option(self):
        p = run(UR, "compile", "--help")
        self.assertIn("--emit-skeleton[=FILE]", p.stdout)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
