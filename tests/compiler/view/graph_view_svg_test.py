#!/usr/bin/env python3
"""Graphviz accepts every picture `uringc graph` draws: the request view and the IR view of every
example, and of every file-driven test program and lowering regression that compiles, through
`dot -Tsvg`, without errors or warnings; and `--format=svg` writes an SVG.
Exits 77 (skipped) when `dot` is not installed (Debian package graphviz; scripts/install-deps.sh
installs it).

usage: graph_view_svg_test.py URINGC SOURCE_ROOT
"""
import os
import shutil
import subprocess
import sys
import tempfile

UR, ROOT = sys.argv[1], sys.argv[2]


def main():
    if shutil.which("dot") is None:
        print("skipped: `dot` is not installed (Debian package graphviz)")
        return 77
    failed = 0
    for folder, must_compile in (("examples", True), ("tests/compiler/files", False),
                                 ("tests/lowering_fuzz/regressions", True)):
        names = os.listdir(os.path.join(ROOT, folder))
        for name in sorted(f for f in names if f.endswith(".uring")):
            src = os.path.join(ROOT, folder, name)
            for view in ("requests", "ir"):
                p = subprocess.run([UR, "graph", "--format=dot", "--view=" + view, src],
                                   capture_output=True, timeout=60)
                if p.returncode == 1 and not must_compile:
                    break  # a test of diagnostics: no picture
                svg = subprocess.run(["dot", "-Tsvg"], input=p.stdout, capture_output=True,
                                     timeout=120)
                ok = (p.returncode == 0 and svg.returncode == 0 and not svg.stderr
                      and b"<svg" in svg.stdout)
                why = svg.stderr if ok else p.stderr + svg.stderr
                print(("ok  " if ok else "FAIL"), folder + "/" + name, view, why.decode().strip())
                failed += not ok
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "hedge.svg")
        p = subprocess.run([UR, "graph", "--format=svg", "-o", out,
                            os.path.join(ROOT, "examples", "hedge.uring")],
                           capture_output=True, timeout=60)
        ok = p.returncode == 0 and not p.stdout and os.path.exists(out)
        print(("ok  " if ok else "FAIL"), "--format=svg", p.stderr.decode().strip())
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
