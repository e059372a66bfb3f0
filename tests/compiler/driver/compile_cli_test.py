#!/usr/bin/env python3
"""`uringc compile` and `uringc run` on the host (no kernel needed): every example compiles at -O0
and -O2 to a BPF object, to BPF assembly and to LLVM IR; the same input gives byte-identical
output across processes; --emit-header describes parameters, buffers and outputs; the 7.1 ABI
names `io_ring_ctx`; bad flags and files with several graphs are usage errors (exit 2); a source
error is exit 1 with the diagnostic, and so is a fatal error inside LLVM (--test-llvm-fatal, a
switch only the tests' `uringc-test` takes: the product `uringc` refuses it). Issue 11: every
subcommand has its own --help, an option's value may follow a space, a usage error is one line
plus where the help is, --dump-after shows the back end's LLVM IR, `run --diagnostics-format=json`.
Issue 10: i8/i16 are signed in the header and the BTF; only regular files of bounded size are
read (no hang on a FIFO, no endless read of /dev/zero), for sources, imports, objects and --arg
files; control bytes never reach the terminal raw and the number of diagnostics is bounded.
Issue 13: --target=host writes an x86-64 object holding the descriptor and the BPF object (and
--symbol renames it), `run --engine=host` runs a graph here and `auto` says which engine it took.
Issue 15: `-` for standard input and `-e PROGRAM` in check, graph, compile and run. `-D NAME=VALUE`
gives a top-level constant its value in compile and run.

usage: compile_cli_test.py URINGC SOURCE_ROOT URINGC_TEST
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

UR, ROOT, UR_TEST = sys.argv[1], sys.argv[2], sys.argv[3]
EXAMPLES = sorted(os.path.join(ROOT, "examples", f)
                  for f in os.listdir(os.path.join(ROOT, "examples")) if f.endswith(".uring"))


def run(*args, timeout=None, binary=None):
    return subprocess.run([binary or UR, *args], capture_output=True, timeout=timeout)


class CompileCli(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def out(self, name):
        return os.path.join(self.dir, name)

    def test_every_example_compiles_at_both_levels_and_is_deterministic(self):
        for ex in EXAMPLES:
            for opt in ("-O0", "-O2"):
                a, b = self.out("a.o"), self.out("b.o")
                for o in (a, b):
                    p = run("compile", opt, ex, "-o", o)
                    self.assertEqual(p.returncode, 0, (ex, opt, p.stderr.decode()))
                with open(a, "rb") as fa, open(b, "rb") as fb:
                    da, db = fa.read(), fb.read()
                self.assertEqual(da[:4], b"\x7fELF", ex)
                self.assertEqual(da, db, f"{ex} {opt}: two compilations differ")

    def test_emit_asm_and_llvm(self):
        ex = os.path.join(ROOT, "examples", "nop_chain.uring")
        p = run("compile", "--emit=asm", ex, "-o", "-")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(b"struct_ops.s/nop_chain", p.stdout)
        p = run("compile", "--emit=llvm", ex, "-o", "-")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(b"define", p.stdout)
        self.assertIn(b"nop_chain.uring", p.stdout)

    def source(self, text, name="g.uring"):
        """Writes `text` to a .uring file in the test's folder; returns its path."""
        path = self.out(name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def compile_llvm(self, source):
        src = self.source(source)
        p = run("compile", "--emit=llvm", src, "-o", "-")
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        return p.stdout.decode()

    def test_a_variable_gets_a_slot_word_only_when_it_crosses_an_await(self):
        # Slot = state word + 9 control words + variable words (docs/codegen.md).
        local = self.compile_llvm(
            "graph lv() -> (o: u64) {\n let r = nop()\n if r < 0 { fail EIO }\n o = 1\n}\n")
        # (The attributes before `global` depend on the pass pipeline; the type is the point.)
        self.assertRegex(local, r"@uringc_lv_task0 = [a-z_ ]*global \[1 x \[10 x i64\]\]")
        crossing = self.compile_llvm(
            "graph lv() -> (o: u64) {\n let r = nop()\n nop()?\n o = u64(r + 1)\n}\n")
        self.assertRegex(crossing, r"@uringc_lv_task0 = [a-z_ ]*global \[1 x \[11 x i64\]\]")

    def test_one_task_graphs_have_no_ready_queue_and_drain_only_with_timeouts(self):
        chain = self.compile_llvm("graph c(n: u64) {\n repeat n { nop()? }\n}\n")
        for name in ("ready", "inflight", "ending", "seq"):
            self.assertNotIn(f"@uringc_c_{name} =", chain)
        timed = self.compile_llvm("graph c(n: u64) {\n repeat n { nop() within 1 s else fail }\n}\n")
        self.assertIn("@uringc_c_inflight =", timed)
        self.assertNotIn("@uringc_c_ready =", timed)
        forked = self.compile_llvm("graph c() {\n all { nop()?; nop()? }\n}\n")
        self.assertIn("@uringc_c_ready =", forked)
        self.assertIn("@uringc_c_inflight =", forked)

    def test_a_buffers_parameter_declares_its_byte_size(self):
        # The runtime refuses host memory shorter than this (docs/embedding.md).
        ll = self.compile_llvm("graph b(f: fd, buf: buffers[3] of 1 KiB) {\n read(f, buf[0], 0)?\n}\n")
        self.assertRegex(ll, r"@uringc_buffer_bytes_buf = [a-z_ ]*constant i64 3072, section \"\.rodata\"")

    def example_header(self, name):
        """The C header `compile --emit-header` writes for examples/NAME.uring."""
        ex = os.path.join(ROOT, "examples", name + ".uring")
        p = run("compile", "--emit-header", ex, "-o", self.out(name + ".bpf.o"))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.out(name + ".h")) as f:
            return f.read()

    def test_header(self):
        h = self.example_header("copy")
        for want in ("#define URINGC_COPY_PARAM_BUF_COUNT 4u", "#define URINGC_COPY_PARAM_BUF_SIZE 65536ull",
                     "#define URINGC_COPY_PARAM_BUF_BYTES 262144ull",
                     '#define URINGC_COPY_PARAM_BUF_BYTES_GLOBAL "uringc_buffer_bytes_buf"',
                     "uringc_copy_param_src_t", "uringc_copy_output_copied_t",
                     "#define URINGC_COPY_MEM_MIN"):
            self.assertIn(want, h)

    def test_a_shared_buffers_parameter_declares_where_it_is_and_gets_no_address(self):
        # In the parameter region: the runtime finds it by these (Controller::SharedBuffer).
        ll = self.compile_llvm("graph b(s: shared buffers[3] of 1 KiB) -> (o: u8) {\n o = get_u8(s[0], 0)\n}\n")
        self.assertRegex(ll, r"@uringc_shared_off_s = [a-z_ ]*constant i64 \d+, section \"\.rodata\"")
        self.assertRegex(ll, r"@uringc_shared_bytes_s = [a-z_ ]*constant i64 3072, section \"\.rodata\"")
        self.assertNotIn("@uringc_buffer_bytes_s", ll)
        self.assertNotRegex(ll, r"@s = ")

    def test_header_of_shared_buffers(self):
        h = self.example_header("fileserver")
        for want in ("#define URINGC_FILESERVER_PARAM_INBOX_COUNT 64u",
                     "#define URINGC_FILESERVER_PARAM_INBOX_BYTES 65536ull",
                     "#define URINGC_FILESERVER_PARAM_INBOX_OFFSET "):
            self.assertIn(want, h)
        self.assertNotIn("uringc_buffer_bytes_inbox", h)
        self.assertNotIn("uringc_fileserver_param_inbox_t", h)

    def test_target_kernel(self):
        ex = os.path.join(ROOT, "examples", "nop_chain.uring")
        for k, ctx in (("7.1", b"io_ring_ctx"), ("7.2", b"iou_ctx"), ("7.3", b"iou_ctx")):
            o = self.out(k + ".o")
            p = run("compile", "--target-kernel=" + k, ex, "-o", o)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(o, "rb") as f:
                self.assertIn(ctx, f.read())
        p = run("compile", "--target-kernel=6.9", ex, "-o", self.out("x.o"))
        self.assertEqual(p.returncode, 2)

    def test_target_kernel_takes_its_value_after_a_space_too(self):
        ex = os.path.join(ROOT, "examples", "nop_chain.uring")
        o = self.out("71.o")
        p = run("compile", "--target-kernel", "7.1", ex, "-o", o)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(o, "rb") as f:
            self.assertIn(b"io_ring_ctx", f.read())
        p = run("compile", "--target-kernel", "6.9", ex, "-o", o)
        self.assertEqual(p.returncode, 2)
        self.assertIn(b"`6.9` is not 7.1, 7.2, 7.3 or auto", p.stderr)

    def test_each_subcommand_has_its_own_help(self):
        p = run("--help")
        self.assertEqual(p.returncode, 0, p.stderr)
        for sub in (b"check", b"graph", b"compile", b"run"):
            self.assertIn(sub, p.stdout)
        p = run("compile", "--help")
        self.assertEqual(p.returncode, 0, p.stderr)
        help_text = p.stdout.decode()
        self.assertIn("uringc compile", help_text)
        for want in ("--target-kernel", "--emit-header[=FILE]", "--graph", "-O", "--dump-after",
                     "passes (for --dump-after):", "bounds", "lower", "optimize", "codegen"):
            self.assertIn(want, help_text)
        self.assertNotIn("Subcommands:", help_text)
        self.assertNotIn("--test-llvm-fatal", help_text)
        p = run("check", "--help")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(b"--dump-after", p.stdout)
        self.assertIn(b"bounds", p.stdout)
        self.assertNotIn(b"--target-kernel", p.stdout)
        self.assertNotIn(b"optimize", p.stdout)  # check runs the front end only
        p = run("run", "--help")
        self.assertEqual(p.returncode, 0, p.stderr)
        for want in (b"--arg", b"--vm", b"--target-kernel", b"--diagnostics-format"):
            self.assertIn(want, p.stdout)
        self.assertIn(b"--test-llvm-fatal", run("compile", "--help", binary=UR_TEST).stdout)

    def test_a_usage_error_is_one_line_and_where_the_help_is(self):
        ex = os.path.join(ROOT, "examples", "nop_chain.uring")
        for args, sub in ((["compile", "--emit=bin", ex], "compile"),
                          (["check", "--dump-after=nope", ex], "check"),
                          (["compile", ex, ex], "compile"),
                          (["frobnicate", ex], None)):
            p = run(*args)
            self.assertEqual(p.returncode, 2, args)
            lines = p.stderr.decode().splitlines()
            self.assertEqual(len(lines), 2, p.stderr)
            self.assertTrue(lines[0].startswith("uringc: error: "), lines)
            self.assertEqual(lines[1], "see `uringc" + (" " + sub if sub else "") + " --help`")

    def test_dump_after_a_back_end_row_prints_the_llvm_ir(self):
        ex = os.path.join(ROOT, "examples", "nop_chain.uring")
        o = self.out("dumped.o")
        p = run("compile", "--dump-after=lower", ex, "-o", o)
        self.assertEqual(p.returncode, 0, p.stderr)
        ir = p.stdout.decode()
        self.assertRegex(ir, r'define [^\n]*@nop_chain\([^\n]*section "struct_ops.s/nop_chain"')
        self.assertFalse(os.path.exists(o), "the pipeline stops after the dumped row")
        p = run("compile", "--dump-after", "optimize", "-O0", ex)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(b"define", p.stdout)
        self.assertEqual(run("compile", "--dump-after=codegen", ex).returncode, 2)
        p = run("compile", "--dump-after=types", ex)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(b"Repeat", p.stdout)

    def test_ublk_add_checks_its_command_line_and_target_before_the_driver(self):
        null = os.path.join(ROOT, "examples", "ublk", "null.uring")
        for args in (["--size", "1000"], ["--size", "1G", "--depth", "0"], ["--size", "1G",
                     "--queues", "5000"], []):
            p = run("ublk", "add", null, *args)
            self.assertEqual(p.returncode, 2, (args, p.stderr))
        # A target without `const DEPTH`: --depth has nothing to set (located in <define>).
        p = run("ublk", "add", os.path.join(ROOT, "examples", "nop_chain.uring"), "--size", "1M")
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"<define>:1:7: error:", p.stderr)
        self.assertIn(b"[UndefinedName]", p.stderr)
        self.assertEqual(run("ublk", "del", "-1").returncode, 2)
        if not os.path.exists("/dev/ublk-control"):  # here: the driver's absence, in words
            for argv in (["add", null, "--size", "1M", "--engine", "host"], ["del", "0"]):
                p = run("ublk", *argv)
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertIn(b"modprobe ublk_drv", p.stderr)
                self.assertIn(b"[UblkUnavailable]", p.stderr)

    def test_usage_and_source_errors(self):
        two = self.source("graph a() { nop() }\ngraph b() { nop() }\n", "two.uring")
        p = run("compile", two, "-o", self.out("x.o"))
        self.assertEqual(p.returncode, 2)
        self.assertIn(b"--graph", p.stderr)
        p = run("compile", "--graph=b", two, "-o", self.out("b.o"))
        self.assertEqual(p.returncode, 0, p.stderr)
        bad = self.source("graph g() { nop(1) }\n", "bad.uring")
        p = run("compile", bad, "-o", self.out("x.o"))
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"bad.uring:1:", p.stderr)
        p = run("compile", "--emit=ast", bad)
        self.assertEqual(p.returncode, 2)

    def test_a_write_that_fails_at_the_close_is_an_error(self):
        # The object fits in the stream's buffer, so /dev/full fails only when it is flushed.
        ex = os.path.join(ROOT, "examples", "nop_chain.uring")
        for args in (["-o", "/dev/full"], ["-o", self.out("n.o"), "--emit-header=/dev/full"]):
            p = run("compile", ex, *args)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn(b"cannot write `/dev/full`", p.stderr, args)

    def test_llvm_fatal_error_is_a_diagnostic(self):
        # --test-llvm-fatal adds an instruction the BPF backend cannot select: LLVM's fatal
        # error must come out as a diagnostic at the graph with exit 1, not as an abort.
        ex = os.path.join(ROOT, "examples", "nop_chain.uring")
        for emit in ("obj", "asm"):
            o = self.out("fatal." + emit)
            p = run("compile", "--test-llvm-fatal", "--emit=" + emit, ex, "-o", o, binary=UR_TEST)
            err = p.stderr.decode()
            self.assertEqual(p.returncode, 1, err)
            self.assertIn("nop_chain.uring:3:1: error: LLVM failed", err)
            self.assertIn("Cannot select", err)
            self.assertIn("bug in uringc", err)
            self.assertIn("[BackendError]", err)
            self.assertNotIn("LLVM ERROR", err)
            self.assertNotIn("Stack dump", err)
            self.assertFalse(os.path.exists(o))
        p = run("compile", "--test-llvm-fatal", "--diagnostics-format=json", ex,
                "-o", self.out("x.o"), binary=UR_TEST)
        self.assertEqual(p.returncode, 1)
        self.assertIn(b'"BackendError"', p.stderr)

    def test_the_product_refuses_the_test_switches(self):
        ex = os.path.join(ROOT, "examples", "nop_chain.uring")
        for switch in ("--test-llvm-fatal", "--test-break-null-check"):
            p = run("compile", switch, ex, "-o", self.out("x.o"))
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(b"`compile` does not take `" + switch.encode() + b"`", p.stderr)
            self.assertFalse(os.path.exists(self.out("x.o")))

    # Generated deep and wide programs (issue 10): each finishes within a generous bound with
    # a diagnostic or success, never a signal, and `check` says what `compile` says.
    def run_bounded(self, source, *args, timeout=120):
        src = self.source(source, "deep.uring")
        p = subprocess.run([UR, *args, src] + (["-o", self.out("deep.o")] if args[0] == "compile"
                                                else []),
                           capture_output=True, timeout=timeout)
        self.assertGreaterEqual(p.returncode, 0, f"{args}: killed by signal {-p.returncode}")
        return p

    def test_a_chain_of_8000_constants_checks(self):
        src = "".join(f"const C{i}: u64 = C{i + 1} + 1\n" for i in range(8000))
        src += "const C8000: u64 = 1\ngraph g() -> (o: u64) { o = C0 }\n"
        p = self.run_bounded(src, "check")
        self.assertEqual(p.returncode, 0, p.stderr.decode()[-2000:])

    def test_a_chain_of_5000_fns_is_a_diagnostic_in_check_and_compile(self):
        src = "".join(f"fn f{i}() -> i32 {{ return f{i + 1}() }}\n" for i in range(5000))
        src += "fn f5000() -> i32 { return nop() }\ngraph g() { f0()? }\n"
        for args in (("check",), ("check", "--emit=rgir"), ("compile",)):
            p = self.run_bounded(src, *args)
            self.assertEqual(p.returncode, 1, args)
            self.assertIn(b"[NestingTooDeep]", p.stderr, args)
        # A chain of 300 is fine.
        src = "".join(f"fn f{i}() -> i32 {{ return f{i + 1}() }}\n" for i in range(300))
        src += "fn f300() -> i32 { return nop() }\ngraph g() { f0()? }\n"
        self.assertEqual(self.run_bounded(src, "check").returncode, 0)

    def test_check_and_compile_agree_on_nested_parallel(self):
        src = ("graph g() {\n parallel i in 0..4096 {\n  parallel j in 0..4096 {\n"
               "   nop()?\n  }\n }\n}\n")
        for args in (("check",), ("compile",)):
            p = self.run_bounded(src, *args)
            self.assertEqual(p.returncode, 1, args)
            err = p.stderr.decode()
            self.assertIn("[TooManyTasks]", err)
            self.assertIn("16777216 task instances", err)
        # Six levels (4096^6 overflows 64 bits): still the first construct past the limit.
        src = ("graph g() {\n" + "".join(f" parallel i{k} in 0..4096 {{\n" for k in range(6)) +
               "  nop()?\n" + " }\n" * 6 + "}\n")
        p = self.run_bounded(src, "check")
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"[TooManyTasks]", p.stderr)
        self.assertIn(b"needs 16777216 task instances", p.stderr)

    def instructions(self, src):
        """BPF instructions of `src` compiled -O2 (lines of --emit=asm that are instructions)."""
        path = self.source(src, "size.uring")
        p = run("compile", "--emit=asm", path, "-o", self.out("size.s"), timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr.decode()[-2000:])
        with open(self.out("size.s")) as f:
            return sum(1 for line in f if line.startswith("\t") and not line.startswith("\t."))

    def test_code_grows_linearly_with_arms_branches_awaits_and_fn_depth(self):
        # Issue 10: `any`/`all` emitted every child's cancellation of all its siblings (n x n),
        # and a node reached from several resume points was emitted once per point.
        shapes = {
            "any arms": lambda n: "graph g() -> (w: u32) {\n any {\n" + "".join(
                f"  nop() => {{ w = {i} }}\n" for i in range(n)) + " }\n}\n",
            "all branches": lambda n: "graph g() {\n all {\n" + "  nop()?\n" * n + " }\n}\n",
            "awaits": lambda n: "graph g() {\n" + " nop()?\n" * n + "}\n",
            "ifs around awaits": lambda n: "graph g(c: bool) {\n" + " if c { nop()? }\n" * n + "}\n",
            "awaiting fn chain": lambda n: "".join(
                f"fn f{i}() -> i32 {{\n nop()?\n return f{i + 1}()\n}}\n" for i in range(n)) +
                f"fn f{n}() -> i32 {{ return nop() }}\ngraph g() {{ f0()? }}\n",
        }
        for name, make in shapes.items():
            n = 24 if "arms" in name or "branches" in name else 100
            small, large = self.instructions(make(n)), self.instructions(make(4 * n))
            # Linear: 4x the constructs, about 4x the code (fixed costs make it a little less).
            self.assertLess(large, 4.6 * small, f"{name}: {small} -> {large} instructions")

    def test_a_graph_past_the_code_budget_is_graph_too_large_in_check_and_compile(self):
        src = ("graph g() -> (w: u32) {\n any {\n" +
               "".join(f"  nop() => {{ w = {i} }}\n" for i in range(6000)) + " }\n}\n")
        for args in (("check",), ("compile",)):
            p = self.run_bounded(src, *args)
            self.assertEqual(p.returncode, 1, args)
            err = p.stderr.decode()
            self.assertIn("[GraphTooLarge]", err, args)
            self.assertIn("BPF instructions", err, args)
            self.assertIn("note: the largest part: about", err, args)

    def test_run_prints_the_compilers_diagnostics_as_json(self):
        bad = self.source("graph g() { nop(1) }\n", "bad.uring")
        p = run("run", "--diagnostics-format", "json", bad)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(json.loads(p.stderr)[0]["kind"], "BadArguments")
        p = run("run", "--diagnostics-format=xml", bad)
        self.assertEqual(p.returncode, 2, p.stderr)

    def test_run_on_the_kernel_engine_reports_a_missing_kernel_feature_or_runs(self):
        # On a host without io_uring_bpf_ops this explains what is missing; either way it must
        # not crash and must compile in memory first.
        ex = os.path.join(ROOT, "examples", "nop_chain.uring")
        p = run("run", "--engine=kernel", ex, "--arg", "n=10")
        self.assertIn(p.returncode, (0, 1), p.stderr)
        if p.returncode == 1:
            self.assertIn(b"io_uring_bpf_ops", p.stderr)

    def test_run_on_the_host_engine_and_auto_says_which_it_chose(self):
        ex = os.path.join(ROOT, "examples", "nop_chain.uring")
        p = run("run", "--engine=host", ex, "--arg", "n=1000")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(b"host engine", p.stdout)
        self.assertIn(b"done = 1000", p.stdout)
        self.assertIn(b"steps = 1001", p.stdout)
        p = run("run", ex, "--arg", "n=10")
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = [l for l in p.stderr.decode().splitlines() if "engine" in l]
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertRegex(lines[0], r"^uringc run: engine (kernel|host): ")
        # A .bpf.o has no host code: a usage error that says what to run instead.
        obj = self.out("n.bpf.o")
        self.assertEqual(run("compile", ex, "-o", obj).returncode, 0)
        p = run("run", "--engine=host", obj)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(b"holds no host code", p.stderr)
        self.assertEqual(run("run", "--engine=gpu", ex).returncode, 2)

    def test_define_gives_a_constant_its_value_in_compile_and_run(self):
        # -D NAME=VALUE (as clang's): the compiled program uses VALUE for `const NAME`.
        src = self.source("const DEPTH = 8\ngraph g() -> (x: u64) {\n"
                          "    repeat DEPTH {\n        nop()?\n        x += 1\n    }\n}\n")
        p = run("run", "--engine=host", src, "-D", "DEPTH=3 * 4", timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(b"x = 12", p.stdout)
        p = run("compile", "--define=DEPTH=64", src, "-o", self.out("d.bpf.o"))
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run("compile", "-D", "WIDTH=64", src, "-o", self.out("w.bpf.o"))
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(b"<define>:1:7: error: `-D WIDTH=64`", p.stderr)
        self.assertIn(b"[UndefinedName]", p.stderr)
        p = run("run", "--engine=host", src, "-D", "DEPTH=(", timeout=120)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(b"[SyntaxError]", p.stderr)
        for cmd in ("compile", "run"):
            p = run(cmd, src, "-D", "DEPTH")
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(b"`DEPTH` is not NAME=VALUE", p.stderr)

    def test_target_host_writes_an_x86_64_object_with_the_descriptor(self):
        for ex in EXAMPLES:
            graph = os.path.basename(ex)[:-len(".uring")]
            o = self.out(graph + ".o")
            p = run("compile", "--target=host", "--emit-header", ex, "-o", o)
            self.assertEqual(p.returncode, 0, (ex, p.stderr.decode()))
            with open(o, "rb") as f:
                data = f.read()
            self.assertEqual(data[:4], b"\x7fELF", ex)
            self.assertEqual(int.from_bytes(data[18:20], "little"), 62, ex)  # EM_X86_64
            self.assertIn(("uringc_program_" + graph).encode(), data, ex)
            self.assertIn(b"\x7fELF\x02\x01\x01", data[64:], ex)  # the BPF object inside
            with open(self.out(graph + ".h")) as f:
                self.assertIn("extern const struct uringc_program uringc_program_" + graph + ";",
                              f.read())
        # The same input gives the same object; the default name is <graph>.o.
        ex = os.path.join(ROOT, "examples", "nop_chain.uring")
        a, b = self.out("a.o"), self.out("b.o")
        for o in (a, b):
            self.assertEqual(run("compile", "--target=host", ex, "-o", o).returncode, 0)
        with open(a, "rb") as fa, open(b, "rb") as fb:
            self.assertEqual(fa.read(), fb.read())
        p = subprocess.run([UR, "compile", "--target=host", ex], cwd=self.dir, capture_output=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(os.path.exists(self.out("nop_chain.o")))

    def test_target_host_takes_a_symbol_and_refuses_a_bad_one(self):
        ex = os.path.join(ROOT, "examples", "nop_chain.uring")
        o = self.out("n.o")
        p = run("compile", "--target=host", "--symbol=my_chain", "--emit-header", ex, "-o", o)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(o, "rb") as f:
            data = f.read()
        self.assertIn(b"my_chain", data)
        self.assertNotIn(b"uringc_program_nop_chain", data)
        with open(self.out("n.h")) as f:
            self.assertIn("extern const struct uringc_program my_chain;", f.read())
        for bad in ("1x", "a-b", ""):
            p = run("compile", "--target=host", "--symbol=" + bad, ex, "-o", o)
            self.assertEqual(p.returncode, 2, (bad, p.stderr))
        self.assertEqual(run("compile", "--target=gpu", ex, "-o", o).returncode, 2)

    def test_dump_after_host_prints_the_host_ir(self):
        ex = os.path.join(ROOT, "examples", "nop_chain.uring")
        p = run("compile", "--target=host", "--dump-after=host", ex)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(b'target triple = "x86_64-unknown-linux-gnu"', p.stdout)
        self.assertIn(b"@uringc_program_nop_chain", p.stdout)
        self.assertIn(b"call ptr @uringc_host_get_region", p.stdout)

    def write(self, name, text):
        path = self.out(name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w" if isinstance(text, str) else "wb") as f:
            f.write(text)
        return path

    def test_small_signed_integers_are_signed_in_the_header_and_the_btf(self):
        src = self.write("s.uring", "graph s(a: i8, b: i16, c: u8) -> (x: i8, y: i16, z: u16) {\n"
                                    " nop()?\n x = a\n y = b\n z = u16(c)\n}\n")
        p = run("compile", "--emit-header", src, "-o", self.out("s.bpf.o"))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.out("s.h")) as f:
            h = f.read()
        for want in ("typedef __s8 uringc_s_param_a_t;", "typedef __s16 uringc_s_param_b_t;",
                     "typedef __u8 uringc_s_param_c_t;", "typedef __s8 uringc_s_output_x_t;",
                     "typedef __s16 uringc_s_output_y_t;", "typedef __u16 uringc_s_output_z_t;"):
            self.assertIn(want, h)
        ll = run("compile", "--emit=llvm", src, "-o", "-").stdout.decode()
        self.assertRegex(ll, r'name: "signed char", size: 8, encoding: DW_ATE_signed_char')
        self.assertRegex(ll, r'name: "short", size: 16, encoding: DW_ATE_signed\b')

    def test_only_fd_parameters_take_a_path(self):
        # An `fd` parameter's BTF type is `uringc_fd`; `uringc run` opens a file only for that
        # type, so a path given to an integer parameter (even an i32) is refused before loading.
        src = self.write("p.uring", "graph p(f: fd, n: i32) -> (r: fd) {\n nop()?\n r = f\n}\n")
        ll = run("compile", "--emit=llvm", src, "-o", "-").stdout.decode()
        self.assertRegex(ll, r'DW_TAG_typedef, name: "uringc_fd", [^\n]*baseType: ![0-9]+')
        p = run("run", src, "--arg", "n=/etc/hostname:r")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(b"`n` is __s32, not an fd parameter, so no file is opened for it", p.stderr)
        p = run("run", src, "--arg", "f=/etc/hostname:r")
        self.assertIn(p.returncode, (0, 1), p.stderr)
        self.assertNotIn(b"not an fd parameter", p.stderr)

    def test_only_regular_files_of_bounded_size_are_read(self):
        # Each of these used to block forever (FIFO) or read until bad_alloc (/dev/zero).
        fifo = self.out("fifo.uring")
        os.mkfifo(fifo)
        for cmd in (["check", "/dev/zero"], ["check", fifo], ["compile", fifo, "-o", self.out("x.o")],
                    ["check", self.dir]):
            p = run(*cmd, timeout=20)
            self.assertEqual(p.returncode, 2, (cmd, p.stderr))
            self.assertIn(b"not a regular file", p.stderr, cmd)
        self.assertIn(b"`/dev/zero` is a character device", run("check", "/dev/zero").stderr)
        self.assertIn(b"is a FIFO", run("check", fifo, timeout=20).stderr)
        # An import that is a FIFO is a diagnostic at the import.
        main = self.write("m/main.uring", "import lib.f\ngraph g() { nop()? }\n")
        os.makedirs(self.out("m/lib"))
        os.mkfifo(self.out("m/lib/f.uring"))
        p = run("check", main, timeout=20)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(b"[ImportNotFound]", p.stderr)
        self.assertIn(b"is a FIFO, not a regular file", p.stderr)
        # Past 4 MiB a file is refused from its size alone (a sparse file: nothing is read).
        mib4 = 4 * 1024 * 1024
        big = self.out("big.uring")
        with open(big, "wb") as f:
            f.truncate(mib4 + 1)
        p = run("check", big, timeout=20)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(b"is larger than 4 MiB, the limit for a source file", p.stderr)
        head = "graph g() { nop()? }\n"
        exact = self.write("exact.uring", head + " " * (mib4 - len(head)))
        self.assertEqual(os.path.getsize(exact), mib4)
        p = run("check", exact, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        # A program's files together stay within 16 MiB: the fifth 4 MiB import is refused.
        imports = "".join(f"import part{i}\n" for i in range(5))
        main = self.write("p/main.uring", imports + head)
        for i in range(5):
            text = f"const C{i} = {i}\n"
            self.write(f"p/part{i}.uring", text + " " * (mib4 - 64 - len(text)))
        p = run("check", main, timeout=120)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(b"main.uring:5:8: error: module `part4` would bring the program's sources "
                      b"past 16 MiB [ImportNotFound]", p.stderr)
        # The runtime: an object that is a FIFO or a device.
        ofifo = self.out("o.bpf.o")
        os.mkfifo(ofifo)
        for obj in (ofifo, "/dev/zero"):
            p = run("run", obj, timeout=20)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn(b"not a regular file", p.stderr)
        # --arg PATH:r on a FIFO no writer opened: the open does not wait (it used to hang before
        # the controller was even loaded); the run then goes on (or stops for a missing feature).
        src = self.write("f.uring", "graph f(f: fd) -> (r: fd) {\n nop()?\n r = f\n}\n")
        p = run("run", src, "--arg", "f=" + fifo + ":r", timeout=60)
        self.assertIn(p.returncode, (0, 1), p.stderr)
        self.assertNotIn(b"cannot open", p.stderr)

    def test_standard_input_and_inline_programs(self):
        # Issue 15: `-` reads the program from standard input, -e takes its text (as bpftrace
        # does), for check, graph, compile and run; diagnostics name <stdin> / <command-line>.
        good = b"graph g() -> (x: u64) {\n    x = 7\n}\n"
        for cmd in (["check", "-"], ["compile", "-", "-o", self.out("s.o")],
                    ["graph", "-", "-o", self.out("s.svg")]):
            p = subprocess.run([UR, *cmd], input=good, capture_output=True, timeout=60)
            self.assertEqual(p.returncode, 0, (cmd, p.stderr))
        with open(self.out("s.o"), "rb") as f:
            self.assertEqual(f.read(4), b"\x7fELF")
        p = subprocess.run([UR, "check", "-"], input=b"graph g() -> (x: u64) {\n  x = y\n}\n",
                           capture_output=True, timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(b"<stdin>:2:7: error: no variable or constant named `y` [UndefinedName]",
                      p.stderr)
        p = run("check", "-e", "graph g() -> (x: u64) { x = 1 +}")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(b"<command-line>:1:32: error: unexpected `}` [SyntaxError]", p.stderr)
        # compile -e without -o names the object after the graph, in the current folder.
        p = subprocess.run([UR, "compile", "-e", good.decode()], cwd=self.dir,
                           capture_output=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(os.path.exists(self.out("g.bpf.o")))
        # run on the host engine: from -e, and from standard input.
        p = run("run", "--engine=host", "-e", "graph g(n: u64) -> (x: u64) {\n"
                "    repeat n {\n        nop()?\n        x += 1\n    }\n}", "--arg", "n=5",
                timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(b"x = 5", p.stdout)
        p = subprocess.run([UR, "run", "--engine=host", "-"], input=good, capture_output=True,
                           timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(b"x = 7", p.stdout)
        # Imports beside a program from standard input are looked for in the current folder.
        self.write("lib.uring", "const K = 3\n")
        p = subprocess.run([UR, "check", "-"], input=b"import lib\ngraph g() -> (x: u64) {\n"
                           b"    x = K\n}\n", cwd=self.dir, capture_output=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        # The input named twice, or not at all: usage errors.
        for cmd, message in ((["check"], b"no input"), (["compile"], b"no input"),
                             (["check", "-e", "x", self.out("s.svg")], b"not both"),
                             (["check", "-", "-"], b"only once"), (["run"], b"no input")):
            p = subprocess.run([UR, *cmd], input=good, capture_output=True, timeout=60)
            self.assertEqual(p.returncode, 2, (cmd, p.stderr))
            self.assertIn(message, p.stderr, cmd)
        # Standard input is bounded like a file: past 4 MiB it is refused.
        p = subprocess.run([UR, "check", "-"], input=b" " * (4 * 1024 * 1024 + 1),
                           capture_output=True, timeout=60)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(b"standard input holds more than 4 MiB", p.stderr)

    def test_control_bytes_never_reach_the_terminal(self):
        src = self.write("esc.uring", b"graph g() {\n    let x\x1b[2J\x07 = 1\n}\n")
        p = run("check", src)
        self.assertEqual(p.returncode, 1)
        for raw in (b"\x1b", b"\x07"):
            self.assertNotIn(raw, p.stderr)
        self.assertIn(b"<U+001B>", p.stderr)
        p = run("check", "--diagnostics-format=json", src)
        self.assertNotIn(b"\x1b", p.stderr)
        diags = json.loads(p.stderr.decode("utf-8"))
        self.assertTrue(diags and all(d["file"] == src for d in diags))
        bad = self.write("bad.uring", b"graph g() { \xff\xfe }\n")
        p = run("check", "--diagnostics-format=json", bad)
        json.loads(p.stderr.decode("utf-8"))  # valid UTF-8 and valid JSON

    def test_the_number_of_diagnostics_is_bounded(self):
        # 2,000 sema errors: 50 are shown, then TooManyErrors; the summary counts all.
        body = "".join(f" let v{i}: u8 = 300 + undefined{i}\n" for i in range(2000))
        src = self.write("many.uring", "graph g() {\n" + body + "}\n")
        p = run("check", src)
        err = p.stderr.decode()
        self.assertEqual(p.returncode, 1)
        self.assertEqual(err.count(": error: "), 51, err[-500:])
        self.assertIn("[TooManyErrors]", err)
        self.assertIn("--error-limit=50", err)
        self.assertRegex(err, r"\b[0-9]{4} errors")
        self.assertLess(len(err), 20000)
        p = run("check", "--error-limit=3", src)
        self.assertEqual(p.stderr.decode().count(": error: "), 4)
        p = run("check", "--error-limit=0", src)
        self.assertGreaterEqual(p.stderr.decode().count(": error: "), 2000)
        p = run("check", "--diagnostics-format=json", "--error-limit=3", src)
        kinds = [d["kind"] for d in json.loads(p.stderr)]
        self.assertEqual(kinds.count("UndefinedName"), 3)
        self.assertIn("TooManyErrors", kinds)
        p = run("check", "--error-limit=many", src)
        self.assertEqual(p.returncode, 2)
        p = run("compile", "--error-limit=2", src, "-o", self.out("x.o"))
        self.assertEqual(p.stderr.decode().count(": error: "), 3)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
