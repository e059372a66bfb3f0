#!/usr/bin/env python3
"""Builds the "if it compiles, it loads" corpus: generates N random programs (gen_programs.py),
compiles each with `uringc compile` (several at a time), and packs sources and objects into one
file the guest test (batch_test.cpp) loads. A program the compiler rejects or crashes on is
packed with an empty object and the compiler's output, so the guest test reports it as a failure
(a generated program is valid by construction: any rejection is a bug somewhere).

With --cc each program is also compiled for the host engine and linked into a shared object
(descriptor `uringc_corpus_program`), so the guest test runs it on both engines and compares.

Pack format: b"URPK2\\n", then per program: u32 name, u32 source, u32 object, u32 message,
u32 shared object lengths (little endian) followed by those bytes.

usage: build_corpus.py --uringc BIN --seed S --count N --out FILE [--dir DIR] [--jobs J]
                       [--target-kernel 7.1] [--cc CC]
"""
import argparse
import concurrent.futures
import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--uringc", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--out", required=True)
    ap.add_argument("--dir", default=None,
                    help="scratch folder for the programs and their objects, emptied of files "
                         "first (default: OUT.d)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--extra", nargs="*", default=[], help="more .uring files (regressions)")
    ap.add_argument("--target-kernel", default=None, help="passed to uringc compile (7.1, 7.2)")
    ap.add_argument("--cc", default=None,
                    help="also build each program for the host engine (--target=host), linked "
                         "by this C compiler into a shared object the test dlopen()s")
    a = ap.parse_args()
    d = a.dir or a.out + ".d"
    os.makedirs(d, exist_ok=True)
    # Only this run's programs: the folder outlives the build step, and a run with a smaller
    # count or another seed after a larger one would pack the older programs beside its own
    # (and keep their objects). The folder is this script's own scratch space.
    for stale in os.listdir(d):
        path = os.path.join(d, stale)
        if os.path.isfile(path):
            os.remove(path)
    subprocess.run([sys.executable, os.path.join(HERE, "gen_programs.py"), "--seed", str(a.seed),
                    "--count", str(a.count), "--out", d], check=True)
    sources = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".uring"))
    sources += a.extra

    def compile_one(src):
        obj = os.path.join(d, os.path.basename(src)[:-6] + ".bpf.o")
        argv = [a.uringc, "compile", src, "-o", obj]
        if a.target_kernel:
            argv.append("--target-kernel=" + a.target_kernel)
        p = subprocess.run(argv, capture_output=True, text=True)
        ok = p.returncode == 0
        msg = "" if ok else f"uringc compile exit {p.returncode}:\n{p.stderr[-4000:]}"
        data = open(obj, "rb").read() if ok else b""
        shared = b""
        if ok and a.cc:
            host = obj[:-len(".bpf.o")] + ".host.o"
            so = obj[:-len(".bpf.o")] + ".so"
            hp = subprocess.run(argv[:3] + ["-o", host, "--target=host", "--symbol=uringc_corpus_program"]
                                + argv[5:], capture_output=True, text=True)
            lp = hp.returncode == 0 and subprocess.run(
                [a.cc, "-shared", "-o", so, host], capture_output=True, text=True)
            if hp.returncode != 0 or lp.returncode != 0:
                why = hp.stderr if hp.returncode != 0 else lp.stderr
                msg = f"the host build failed:\n{why[-4000:]}"
                data = b""
            else:
                shared = open(so, "rb").read()
        return os.path.basename(src)[:-6], open(src, "rb").read(), data, msg.encode(), shared

    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(compile_one, sources))
    bad = [r[0] for r in results if not r[2]]
    # URPK2: per program its name, source, BPF object, compiler message and host shared object
    # (empty without --cc), each preceded by its length.
    with open(a.out, "wb") as f:
        f.write(b"URPK2\n")
        for name, src, obj, msg, shared in results:
            n = name.encode()
            f.write(struct.pack("<IIIII", len(n), len(src), len(obj), len(msg), len(shared)))
            f.write(n + src + obj + msg + shared)
    print(f"build_corpus: {len(results)} programs, {len(bad)} not compiled"
          + (f" ({', '.join(bad[:10])})" if bad else ""))


if __name__ == "__main__":
    main()
