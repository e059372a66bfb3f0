#!/usr/bin/env python3
"""Random valid .uring programs for "if it compiles, it loads" (docs/codegen.md).

Every program uses all construct families at random depths: variables and outputs, arithmetic,
if/else, repeat/for/while/loop with break and continue, requests (nop, read/write on a regular
file, sleep, reads with `within` on a pipe that never gets data, `?`), user fns, try/catch, fail,
stop, block deadlines, parallel, all, any. Each program terminates: loops have constant bounds or
counters incremented first, pipe reads always carry a timeout, every `any` has an arm that
completes. Parameters: `f` a regular file (at least 4 KiB), `p` a pipe that never gets data,
`buf` 4 buffers of 256 bytes.

Each program's outcome is the same however fast it runs, so the kernel and host engines must agree
on it even under emulation: a deadline either surely fires (its body starts with a read on `p`
with no timeout) or surely does not (30 s, far longer than any body); an `any` has exactly one arm
that can complete, or none and a deadline that fires; concurrent tasks never fail (each body sits
in a try), never `stop`, and only add to o1/o2 (sums do not depend on order) instead of setting o3.

usage: gen_programs.py --seed S --count N --out DIR    (writes DIR/gNNNN.uring)
"""
import argparse
import os
import random

# Names a generated identifier must never take: they would shadow a type (`i32(...)` conversions),
# a request, a builtin fn or constant, or clash with a keyword or a duration/size unit.
RESERVED = ({"bool", "fd", "duration", "bytes"}
            | {f"{s}{b}" for s in "ui" for b in (8, 16, 32, 64)}
            | {"nop", "read", "write", "recv", "send", "accept", "connect", "socket", "close",
               "fsync", "openat", "poll", "sleep", "cancel", "len", "min", "max"}
            | {"import", "const", "fn", "graph", "buffers", "of", "let", "var", "if", "else",
               "while", "loop", "repeat", "for", "in", "parallel", "all", "any", "try", "catch",
               "as", "break", "continue", "stop", "fail", "return", "within", "true", "false"}
            | {"ns", "us", "ms", "s", "B", "KiB", "MiB", "GiB"}
            | {"f", "p", "buf", "o1", "o2", "o3", "x", "acc"})


class Gen:
    def __init__(self, rng):
        self.r = rng
        self.n = 0
        self.lines = []

    def fresh(self, p):
        self.n += 1
        while f"{p}{self.n}" in RESERVED:
            self.n += 1
        return f"{p}{self.n}"

    def emit(self, ind, s):
        self.lines.append("    " * ind + s)

    @staticmethod
    def set_o3(ctx, value):
        """`o3 = value`, or in a concurrent task, where the last writer would win a race, a sum."""
        return f"o2 += u64({value})" if ctx.get("lane") else f"o3 = {value}"

    # ----- expressions (u64) -----
    def expr(self, scope, depth=0):
        r = self.r
        if depth > 2 or r.random() < 0.4:
            if scope and r.random() < 0.6:
                return r.choice(scope)
            return str(r.randint(0, 9))
        op = r.choice(["+", "*", "%", "-", "&", "|", "^", "/"])
        a, b = self.expr(scope, depth + 1), self.expr(scope, depth + 1)
        if op == "-":
            return f"({a} + 10 - min({b}, 10))"
        if op in ("%", "/"):
            return f"({a} {op} ({b} + 1))"
        return f"({a} {op} {b})"

    def cond(self, scope, results):
        r = self.r
        c = r.random()
        if results and c < 0.3:
            return f"{r.choice(results)} {r.choice(['<', '>=', '==', '!='])} {r.randint(-2, 8)}"
        if c < 0.8:
            return f"{self.expr(scope)} {r.choice(['<', '<=', '>', '==', '!='])} {r.randint(0, 9)}"
        return r.choice(["true", "false"]) + f" || {self.expr(scope)} % 2 == 0"

    # ----- statements -----
    def request(self, ind, scope, results, ctx):
        r = self.r
        k = r.randint(0, 9)
        if ctx.get("in_fn"):  # fns see no graph parameters or outputs
            k = r.choice([0, 1, 4])
        if k == 0:
            self.emit(ind, "nop()?")
        elif k == 1:
            v = self.fresh("r")
            self.emit(ind, f"let {v} = nop()")
            results.append(v)
        elif k == 2:
            v = self.fresh("r")
            n = r.randint(0, 256)
            # Now and then an index sema cannot prove (buffers[4]; `% 6` may be 4 or 5, or
            # negative): checked at run time, out of range it raises EFAULT.
            idx = f"{r.choice(scope)} % 6" if scope and r.random() < 0.3 else str(r.randint(0, 3))
            self.emit(ind, f"let {v} = read(f, buf[{idx}][..{n}], {r.randint(0, 3000)})")
            results.append(v)
        elif k == 3:
            src = r.choice(scope) if scope else "7"
            self.emit(ind, f"write(f, buf[{r.randint(0, 3)}][{src} % 100..{r.randint(100, 256)}], "
                           f"{r.randint(0, 3000)})?")
        elif k == 4:
            self.emit(ind, f"sleep({r.randint(1, 400)} us)")
        elif k == 5:
            v = self.fresh("r")
            self.emit(ind, f"let {v} = read(p, buf[{r.randint(0, 3)}]) within {r.randint(1, 3)} ms")
            results.append(v)
        elif k == 6:
            action = r.choice(["{ " + self.set_o3(ctx, "7") + " }", "fail ETIME"] + (["break", "continue"] if ctx["loop"] else []))
            self.emit(ind, f"read(p, buf[0], 0) within {r.randint(1, 2)} ms else {action}")
        elif k == 7 and ctx["fns"]:
            fn = r.choice(ctx["fns"])
            v = self.fresh("r")
            self.emit(ind, f"let {v} = {fn}({self.expr(scope)})")
            results.append(v)
        else:
            self.emit(ind, "nop()")

    def block(self, ind, scope, results, ctx, budget):
        scope = list(scope)
        results = list(results)
        count = self.r.randint(1, 3)
        for _ in range(count):
            if ctx["size"] <= 0:
                break
            self.stmt(ind, scope, results, ctx, budget)

    def stmt(self, ind, scope, results, ctx, depth):
        r = self.r
        ctx["size"] -= 1
        choices = ["assign", "request", "request", "if"] + ([] if ctx.get("in_fn") else ["output"])
        if depth > 0:
            choices += ["repeat", "for", "while", "loop", "try", "deadline"]
            if ctx["tasks"] < 6:
                choices += ["parallel", "all", "any"]
        if ctx["loop"]:
            choices += ["brk"]
        if r.random() < 0.08:
            # `stop` in a task, or in a fn a task may call, would race the task's siblings
            choices += ["fail"] if ctx.get("lane") or ctx.get("in_fn") else ["fail", "stop"]
        k = r.choice(choices)
        sub = dict(ctx)
        if k == "assign":
            v = self.fresh("v")
            self.emit(ind, f"var {v}: u64 = {self.expr(scope)}")
            scope.append(v)
            if r.random() < 0.5:
                self.emit(ind, f"{v} += {self.expr(scope)}")
        elif k == "output":
            self.emit(ind, f"o{r.choice([1, 2])} += {self.expr(scope)}")
        elif k == "request":
            self.request(ind, scope, results, ctx)
        elif k == "if":
            self.emit(ind, f"if {self.cond(scope, results)} {{")
            self.block(ind + 1, scope, results, ctx, depth - 1)
            if r.random() < 0.5:
                self.emit(ind, "} else {")
                self.block(ind + 1, scope, results, ctx, depth - 1)
            self.emit(ind, "}")
        elif k in ("repeat", "for", "while", "loop"):
            sub["loop"] = True
            n = r.randint(0, 3)
            if k == "repeat":
                self.emit(ind, f"repeat {n} {{")
                self.block(ind + 1, scope, results, sub, depth - 1)
            elif k == "for":
                i = self.fresh("i")
                self.emit(ind, f"for {i} in 0..{n} {{")
                self.block(ind + 1, scope + [f"u64({i})"], results, sub, depth - 1)
            elif k == "while":
                w = self.fresh("w")
                self.emit(ind, f"var {w}: u64 = 0")
                self.emit(ind, f"while {w} < {n} {{")
                self.emit(ind + 1, f"{w} += 1")
                self.emit(ind + 1, "nop()")
                self.block(ind + 1, scope + [w], results, sub, depth - 1)
            else:
                w = self.fresh("l")
                self.emit(ind, f"var {w}: u64 = 0")
                self.emit(ind, "loop {")
                self.emit(ind + 1, f"{w} += 1")
                self.emit(ind + 1, "nop()")
                self.emit(ind + 1, f"if {w} > {n} {{ break }}")
                self.block(ind + 1, scope + [w], results, sub, depth - 1)
            self.emit(ind, "}")
        elif k == "brk":
            self.emit(ind, f"if {self.cond(scope, results)} {{ {r.choice(['break', 'continue'])} }}")
        elif k == "try":
            e = self.fresh("e")
            self.emit(ind, "try {")
            self.block(ind + 1, scope, results, ctx, depth - 1)
            if r.random() < 0.5:
                self.emit(ind + 1, f"if {self.cond(scope, results)} {{ fail {r.choice(['EIO', 'EAGAIN', 'EINVAL'])} }}")
            self.emit(ind, f"}} catch {e} {{")
            self.emit(ind + 1, f"acc += u64({e})" if ctx.get("in_fn") else self.set_o3(ctx, e))
            self.emit(ind, "}")
        elif k == "deadline" and not ctx.get("in_fn"):
            fires = r.random() < 0.5
            self.emit(ind, "{")
            if fires:  # the body never gets past this read: the deadline cancels it
                self.emit(ind + 1, "read(p, buf[0])?")
            self.block(ind + 1, scope, results, ctx, depth - 1)
            limit = f"{r.randint(1, 20)} ms" if fires else "30 s"
            self.emit(ind, f"}} within {limit} else {{ {self.set_o3(ctx, '-1')} }}")
        elif k in ("parallel", "all", "any"):
            sub["loop"] = False
            sub["lane"] = True
            sub["tasks"] = ctx["tasks"] + 1
            ctx["tasks"] += 1
            if k == "parallel":
                i = self.fresh("t")
                self.emit(ind, f"parallel {i} in 0..{r.randint(1, 3)} {{")
                self.task_body(ind + 1, scope + [f"u64({i})"], results, sub, depth - 1)
                self.emit(ind, "}")
            elif k == "all":
                self.emit(ind, "all {")
                for _ in range(r.randint(1, 3)):
                    self.emit(ind + 1, "{")
                    self.task_body(ind + 2, scope, results, sub, depth - 1)
                    self.emit(ind + 1, "}")
                self.emit(ind, "}")
            else:
                # One arm can complete (the first to do so would otherwise depend on speed), or
                # none, and then a deadline that surely fires ends the `any`.
                within = r.random() < 0.3
                fires = within and r.random() < 0.5
                never = "read(p, buf[1])"
                arms = [never if fires else r.choice(["nop()", f"sleep({r.randint(1, 500)} us)"]
                                                     + [f"{fn}(1)" for fn in ctx["fns"]])]
                arms += [never] * r.randint(0, 2)
                r.shuffle(arms)
                self.emit(ind, "any {")
                for a in arms:
                    v = self.fresh("a")
                    self.emit(ind + 1, f"{a} as {v} => {{")
                    self.emit(ind + 2, self.set_o3(ctx, f"i32({v})"))
                    self.block(ind + 2, scope, results, sub, depth - 1)
                    self.emit(ind + 1, "}")
                limit = f"{r.randint(1, 20)} ms" if fires else "30 s"
                self.emit(ind, "}" + (f" within {limit} else {{ {self.set_o3(ctx, '-2')} }}" if within else ""))
        elif k == "fail":
            self.emit(ind, f"if {self.cond(scope, results)} {{ fail {r.choice(['EIO', 'EPERM'])} }}")
        elif k == "stop":
            self.emit(ind, f"if {self.cond(scope, results)} {{ stop }}")

    def task_body(self, ind, scope, results, ctx, depth):
        """A concurrent task's statements in a try: a failing task would cancel its siblings
        wherever they had got to."""
        e = self.fresh("e")
        self.emit(ind, "try {")
        self.block(ind + 1, scope, results, ctx, depth)
        self.emit(ind, f"}} catch {e} {{")
        self.emit(ind + 1, f"o2 += u64({e})")
        self.emit(ind, "}")

    def fn(self, name):
        self.emit(0, f"fn {name}(x: u64) -> i32 {{")
        self.emit(1, "var acc: u64 = x")
        ctx = {"loop": False, "tasks": 99, "size": 4, "fns": [], "in_fn": True}
        self.block(1, ["acc"], [], ctx, 1)
        self.emit(1, "if acc > 1000 { fail EINVAL }")
        self.emit(1, "return i32(acc % 100)")
        self.emit(0, "}")

    def program(self, name):
        fns = []
        for _ in range(self.r.randint(0, 2)):
            fname = self.fresh("helper")
            self.fn(fname)
            fns.append(fname)
        self.emit(0, f"graph {name}(f: fd, p: fd, buf: buffers[4] of 256) -> (o1: u64, o2: u64, o3: i32) {{")
        ctx = {"loop": False, "tasks": 0, "size": self.r.randint(3, 12), "fns": fns}
        depth = self.r.randint(1, 3)
        while ctx["size"] > 0:
            self.stmt(1, [], [], ctx, depth)
        self.emit(0, "}")
        return "\n".join(self.lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for k in range(a.count):
        rng = random.Random(a.seed * 1000003 + k)
        src = f"// generated by gen_programs.py --seed {a.seed}, program {k}\n"
        src += Gen(rng).program(f"g{k:04d}")
        path = os.path.join(a.out, f"g{k:04d}.uring")
        with open(path, "w") as f:
            f.write(src)


if __name__ == "__main__":
    main()
