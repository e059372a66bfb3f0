#!/usr/bin/env python3
"""`uringc compile` and `uringc run` on the host (no kernel needed): every example compiles at -O0
and -O2 to a BPF object, to BPF assembly and to LLVM IR; the same input gives byte-identical
output across processes; --emit-header describes parameters, buffers and outputs; the 7.1 ABI
names `io_ring_ctx`; bad flags and files with several graphs are usage errors (exit 2); a source
error is exit 1 with the diagnostic, and so is a fatal error inside LLVM (--test-llvm-fatal).

usage: compile_cli_test.py URINGC SOURCE_ROOT
"""
import os
import subprocess
import sys
import tempfile
import unittest

UR, ROOT = sys.argv[1], sys.argv[2]
EXAMPLES = sorted(os.path.join(ROOT, "examples", f)
                  for f in os.listdir(os.path.join(ROOT, "examples")) if f.endswith(".uring"))


def run(*args):
    return subprocess.run([UR, *args], capture_output=True)


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

    def compile_llvm(self, source):
        src = self.out("g.uring")
        with open(src, "w") as f:
            f.write(source)
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

    def test_header(self):
        ex = os.path.join(ROOT, "examples", "copy.uring")
        o = self.out("copy.bpf.o")
        p = run("compile", "--emit-header", ex, "-o", o)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.out("copy.h")) as f:
            h = f.read()
        for want in ("#define URINGC_COPY_PARAM_BUF_COUNT 4u", "#define URINGC_COPY_PARAM_BUF_SIZE 65536ull",
                     "uringc_copy_param_src_t", "uringc_copy_output_copied_t",
                     "#define URINGC_COPY_MEM_MIN"):
            self.assertIn(want, h)

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

    def test_usage_and_source_errors(self):
        two = self.out("two.uring")
        with open(two, "w") as f:
            f.write("graph a() { nop() }\ngraph b() { nop() }\n")
        p = run("compile", two, "-o", self.out("x.o"))
        self.assertEqual(p.returncode, 2)
        self.assertIn(b"--graph", p.stderr)
        p = run("compile", "--graph=b", two, "-o", self.out("b.o"))
        self.assertEqual(p.returncode, 0, p.stderr)
        bad = self.out("bad.uring")
        with open(bad, "w") as f:
            f.write("graph g() { nop(1) }\n")
        p = run("compile", bad, "-o", self.out("x.o"))
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"bad.uring:1:", p.stderr)
        p = run("compile", "--emit=ast", bad)
        self.assertEqual(p.returncode, 2)

    def test_llvm_fatal_error_is_a_diagnostic(self):
        # --test-llvm-fatal adds an instruction the BPF backend cannot select: LLVM's fatal
        # error must come out as a diagnostic at the graph with exit 1, not as an abort.
        ex = os.path.join(ROOT, "examples", "nop_chain.uring")
        for emit in ("obj", "asm"):
            o = self.out("fatal." + emit)
            p = run("compile", "--test-llvm-fatal", "--emit=" + emit, ex, "-o", o)
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
                "-o", self.out("x.o"))
        self.assertEqual(p.returncode, 1)
        self.assertIn(b'"BackendError"', p.stderr)

    # Generated deep and wide programs (issue 10): each finishes within a generous bound with
    # a diagnostic or success, never a signal, and `check` says what `compile` says.
    def run_bounded(self, source, *args, timeout=120):
        src = self.out("deep.uring")
        with open(src, "w") as f:
            f.write(source)
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

    def test_run_reports_a_missing_kernel_feature_or_runs(self):
        # On a host without io_uring_bpf_ops this explains what is missing; either way it must
        # not crash and must compile in memory first.
        ex = os.path.join(ROOT, "examples", "nop_chain.uring")
        p = run("run", ex, "--arg", "n=10")
        self.assertIn(p.returncode, (0, 1), p.stderr)
        if p.returncode == 1:
            self.assertIn(b"io_uring_bpf_ops", p.stderr)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
