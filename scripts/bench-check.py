#!/usr/bin/env python3
"""Benchmark (not a test): wall time of `uringc check` on every example and on generated
programs of growing size, to see that checking stays fast and grows linearly.

usage: scripts/bench-check.py [--uringc build/uringc] [--runs 5]
Prints a Markdown table; docs/performance.md records the numbers from this machine.
"""
import argparse
import pathlib
import subprocess
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent

# One block of the generated program: a fn and a graph touching most constructs (~50 lines).
BLOCK = """
fn step{i}(f: fd, data: bytes, off: u64) -> i32 {{
    var done: u32 = 0
    while done < len(data) {{
        let n = write(f, data[done..], off + done)?
        if n == 0 {{ fail EIO }}
        done += n
    }}
    return i32(done)
}}

graph g{i}(src: fd, dst: fd, size: u64, buf: buffers[4] of 4 KiB) -> (copied: u64, hits: u32) {{
    parallel lane in 0..4 {{
        var off: u64 = lane * 4 KiB
        while off < size {{
            let n = read(src, buf[lane], off) within 1 s else fail
            if n < 0 {{ fail EIO }}
            if n == 0 {{ break }}
            step{i}(dst, buf[lane][..n], off)?
            copied += u64(n)
            off += 4 * 4 KiB
        }}
    }}
    any {{
        read(src, buf[0], 0) as a => {{ hits += 1 }}
        read(dst, buf[1], 0) as b => {{ hits += 2 }}
    }} within 10 ms else {{ hits = 0 }}
    try {{
        let s = accept(src)?
        all {{
            send(s, buf[2][..16])?
            recv(s, buf[3])?
        }}
        close(s)
    }} catch e {{
        if e != EAGAIN {{ fail e }}
    }}
    for k in 0..8 {{
        hits += k
    }}
}}
"""


def generate(lines: int) -> str:
    per_block = BLOCK.count("\n")
    return "".join(BLOCK.format(i=i) for i in range(max(1, lines // per_block)))


def best_time(uringc: str, path: str, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        r = subprocess.run([uringc, "check", path], capture_output=True)
        best = min(best, time.perf_counter() - start)
        if r.returncode != 0:
            raise SystemExit(f"{path}: uringc check failed:\n{r.stderr.decode()}")
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--uringc", default=str(ROOT / "build/uringc"))
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    print("| input | lines | best of %d (ms) |" % args.runs)
    print("|---|---:|---:|")
    for ex in sorted((ROOT / "examples").glob("*.uring")):
        n = ex.read_text().count("\n")
        print(f"| examples/{ex.name} | {n} | {best_time(args.uringc, str(ex), args.runs) * 1000:.1f} |")
    with tempfile.TemporaryDirectory() as tmp:
        for lines in (2500, 5000, 10000, 20000):
            path = pathlib.Path(tmp) / f"gen{lines}.uring"
            text = generate(lines)
            path.write_text(text)
            n = text.count("\n")
            print(f"| generated | {n} | {best_time(args.uringc, str(path), args.runs) * 1000:.1f} |")


if __name__ == "__main__":
    main()
