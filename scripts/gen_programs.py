#!/usr/bin/env python3
"""Generated .uring programs of a given size, for measuring how compile time grows with program
size (issue 12 part 6; docs/codegen.md, "Compile time of large graphs"). Each shape is one kind
of code repeated until the program has the requested number of lines:

  awaits  sequential `nop()?` with variables live across them and short-lived results between
  fns     a chain of fns, f0 calls f1 ... each awaiting a request first
  arith   straight-line arithmetic on a few variables, no await
  any     one wide `any`, one arm per line (wide graphs hit the task limit, see docs/language.md)

Importable: generate(shape, lines) -> str. CLI: gen_programs.py SHAPE LINES > p.uring, or
gen_programs.py --time [--runs N] [--uringc PATH] [--lines 1000,3000,10000] [SHAPE ...] to
compile each program (`uringc compile -O2`, whole process) and print the median wall and CPU time
per size beside the static BPF instruction count."""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

SHAPES = ("awaits", "fns", "arith", "any")


def _awaits(lines):
    # 4 header/trailer lines; then groups of 3: an await, a result used once, a live update.
    body = []
    i = 0
    while len(body) + 3 + 4 <= lines or not body:
        body += [f"    let r{i} = nop()?",
                 f"    a = a + u64(r{i}) + {i % 7 + 1}",
                 f"    b = b ^ (a >> {i % 5 + 1})"]
        i += 1
    return ("graph awaits(n: u64) -> (out: u64) {\n    var a: u64 = n\n    var b: u64 = n + 1\n"
            + "\n".join(body) + "\n    out = a + b\n}\n")


def _fns(lines):
    # 4 lines per fn, 3 for the last one and the graph.
    count = max(1, (lines - 4) // 4)
    out = []
    for i in range(count):
        out.append(f"fn f{i}(x: u64) -> i32 {{\n    let r = nop()?\n"
                   f"    return f{i + 1}(x + u64(r) + {i % 9 + 1})\n}}\n")
    out.append(f"fn f{count}(x: u64) -> i32 {{ return i32(x & 127) }}\n")
    out.append("graph fns(n: u64) -> (out: u32) { out = f0(n)? }\n")
    return "".join(out)


def _arith(lines):
    body = []
    ops = ["a = a + b * {k}", "b = (b ^ a) + {k}", "c = c + (a >> {s})", "a = a - (c & {k})",
           "b = b + c * {k}", "c = (c | {k}) ^ b"]
    i = 0
    while len(body) + 6 < lines or not body:
        op = ops[i % len(ops)]
        body.append("    " + op.format(k=i % 97 + 1, s=i % 13 + 1))
        i += 1
    return ("graph arith(n: u64) -> (out: u64) {\n    var a: u64 = n\n    var b: u64 = n + 3\n"
            "    var c: u64 = 7\n" + "\n".join(body) + "\n    out = a + b + c\n}\n")


def _any(lines):
    arms = max(1, lines - 5)
    body = "".join(f"        nop() as r => {{ w = u32({i}) + u32(max(r, 0)) }}\n"
                   for i in range(arms))
    return "graph wide(n: u64) -> (w: u32) {\n    any {\n" + body + "    }\n    nop()?\n}\n"


def generate(shape, lines):
    """The program of the given shape with about `lines` lines (at least one repetition)."""
    makers = {"awaits": _awaits, "fns": _fns, "arith": _arith, "any": _any}
    if shape not in makers:
        raise ValueError(f"unknown shape {shape!r}; one of {', '.join(SHAPES)}")
    return makers[shape](int(lines))


def _static_insns(obj):
    out = subprocess.run(["llvm-objdump-22", "-d", obj], capture_output=True, text=True).stdout
    return sum(1 for l in out.splitlines() if l.startswith(" ") and ":\t" in l)


def _compile_once(uringc, src, obj):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run([uringc, "compile", "-O2", src, "-o", obj], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    first_error = next((l for l in p.stderr.splitlines() if "error" in l), p.stderr.strip())
    return wall, cpu, p.returncode, first_error


def time_shapes(uringc, shapes, sizes, runs, out=sys.stdout):
    """Prints one row per (shape, size): median wall and CPU seconds of `runs` fresh compiles,
    the static instruction count, and CPU time per line relative to the smallest size."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'shape':8} {'lines':>6} {'wall s':>8} {'cpu s':>8} {'insns':>8} "
              f"{'cpu us/line':>11}  result", file=out)
        for shape in shapes:
            for lines in sizes:
                src = os.path.join(tmp, f"{shape}{lines}.uring")
                obj = os.path.join(tmp, f"{shape}{lines}.o")
                text = generate(shape, lines)
                with open(src, "w") as f:
                    f.write(text)
                n = text.count("\n")
                walls, cpus, rc, err = [], [], 0, ""
                for _ in range(runs):
                    w, c, rc, err = _compile_once(uringc, src, obj)
                    walls.append(w)
                    cpus.append(c)
                wall, cpu = statistics.median(walls), statistics.median(cpus)
                insns = _static_insns(obj) if rc == 0 else 0
                result = "ok" if rc == 0 else f"exit {rc}: {err[:90]}"
                print(f"{shape:8} {n:6} {wall:8.3f} {cpu:8.3f} {insns:8} "
                      f"{cpu / n * 1e6:11.1f}  {result}", file=out, flush=True)
                rows.append(dict(shape=shape, lines=n, wall=wall, cpu=cpu, insns=insns, rc=rc))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--time", action="store_true", help="compile and time instead of printing")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--uringc", default=os.path.join(os.path.dirname(__file__), "..", "build",
                                                     "uringc"))
    ap.add_argument("--lines", default="1000,3000,10000")
    ap.add_argument("args", nargs="*", help="SHAPE LINES, or with --time the shapes to time")
    a = ap.parse_args()
    if a.time:
        sizes = [int(s) for s in a.lines.split(",")]
        time_shapes(a.uringc, a.args or list(SHAPES), sizes, a.runs)
        return
    if len(a.args) != 2:
        ap.error("expected SHAPE LINES")
    sys.stdout.write(generate(a.args[0], int(a.args[1])))


if __name__ == "__main__":
    main()
