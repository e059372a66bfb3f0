"""The host side of the benchmark: static instruction counts (llvm-objdump), compile time of
every example against clang on the lean C NOP baseline (fresh processes, medians), compile time
of generated programs of growing size, and optionally upstream liburing's controllers counted the
same way (built from a liburing checkout or bare git directory in a temporary folder)."""
import os
import re
import statistics
import subprocess
import tempfile
import time

import gen_programs  # scripts/gen_programs.py, next to bench.py

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLANG_FLAGS = ["-O2", "-g", "-target", "bpf", "-mcpu=v4"]
# Generated program shapes: (name for the docs, scripts/gen_programs.py shape).
GENERATED = [("sequential awaits", "awaits"), ("fn chain", "fns"), ("arithmetic", "arith"),
             ("wide any", "any")]


def static_insns(objdump, obj):
    """Instructions of every program in obj (one `N:` line each in llvm-objdump -d)."""
    out = subprocess.run([objdump, "-d", obj], check=True, capture_output=True, text=True).stdout
    return sum(1 for line in out.splitlines() if re.match(r"^\s+\d+:", line))


def timed_ms(argv, timeout):
    """(milliseconds of one fresh process or None past timeout, "" or the diagnostic kind of
    its first error)."""
    start = time.perf_counter()
    try:
        proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, ""
    ms = (time.perf_counter() - start) * 1000
    if proc.returncode == 0:
        return ms, ""
    kind = re.search(r"error: .*\[(\w+)\]", proc.stderr)
    return ms, kind.group(1) if kind else f"exit status {proc.returncode}"


def median_ms(argv, runs, timeout=120, may_fail=False, enough_ms=10_000):
    """(median of `runs` fresh processes or None when one overran timeout, "" or the kind of the
    error it stopped with). A run longer than enough_ms is not repeated. Unless may_fail, an
    error raises."""
    times = []
    for _ in range(runs):
        t, error = timed_ms(argv, timeout)
        if error and not may_fail:
            raise RuntimeError(f"{' '.join(argv)} failed: {error}")
        if t is None:
            return None, error
        times.append(t)
        if t > enough_ms:
            break
    return statistics.median(times), error


def clang_argv(clang, source, out, extra=()):
    return ([clang] + CLANG_FLAGS + ["-I" + os.path.join(ROOT, "runtime", "bpf"),
                                     "-I/usr/include/x86_64-linux-gnu"]
            + list(extra) + ["-c", source, "-o", out])


def compile_times(uringc, clang, objdump, runs):
    """{'examples': [(name, ms, insns)], 'clang': ms, 'clang_insns': n} for every example."""
    examples = sorted(f for f in os.listdir(os.path.join(ROOT, "examples"))
                      if f.endswith(".uring"))
    out = {"examples": []}
    with tempfile.TemporaryDirectory() as tmp:
        obj = os.path.join(tmp, "out.o")
        nops = os.path.join(ROOT, "tests", "bench", "nops.bpf.c")
        out["clang"] = median_ms(clang_argv(clang, nops, obj), runs)[0]
        out["clang_insns"] = static_insns(objdump, obj)
        for ex in examples:
            ms = median_ms([uringc, "compile", "-O2", os.path.join(ROOT, "examples", ex),
                            "-o", obj], runs)[0]
            out["examples"].append((ex, ms, static_insns(objdump, obj)))
    return out


def generated_times(uringc, sizes, runs, timeout):
    """[(kind name, lines, ms or None, "" or the kind of the error the compiler stopped with)]
    for generated programs of about `sizes` lines (a size limit may refuse the larger ones)."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        src, obj = os.path.join(tmp, "g.uring"), os.path.join(tmp, "g.o")
        for name, kind in GENERATED:
            slow = False
            for size in sizes:
                text = gen_programs.generate(kind, size)
                with open(src, "w") as f:
                    f.write(text)
                lines = text.count("\n")
                # A size after one that overran is not tried: it would overrun too.
                ms, error = (None, "") if slow else median_ms(
                    [uringc, "compile", "-O2", src, "-o", obj], runs, timeout, may_fail=True)
                slow = ms is None
                rows.append((name, lines, ms, error))
    return rows


def upstream_insns(liburing, clang, objdump):
    """{'nops': n, 'cp': n} of liburing's test/bpf-progs, from a checkout or a bare git dir."""
    files = ["test/bpf-progs/nops.bpf.c", "test/bpf-progs/cp.bpf.c", "test/bpf_defs.h",
             "src/include/liburing/io_uring.h"]
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            dest = os.path.join(tmp, f)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            if os.path.isfile(os.path.join(liburing, f)):
                with open(os.path.join(liburing, f), "rb") as s, open(dest, "wb") as d:
                    d.write(s.read())
            else:
                with open(dest, "wb") as d:
                    subprocess.run(["git", "--git-dir", liburing, "show", "HEAD:" + f],
                                   stdout=d, check=True)
        for prog in ("nops", "cp"):
            obj = os.path.join(tmp, prog + ".o")
            subprocess.run([clang] + CLANG_FLAGS + ["-I" + os.path.join(tmp, "src", "include"),
                                                    "-I/usr/include/x86_64-linux-gnu", "-c",
                                                    os.path.join(tmp, "test", "bpf-progs",
                                                                 prog + ".bpf.c"), "-o", obj],
                           check=True, capture_output=True)
            out[prog] = static_insns(objdump, obj)
    return out
