#!/usr/bin/env python3
"""Deep and wide .uring programs for measuring the compiler's limits (docs/codegen.md, "Compile
time of large graphs"). usage: gen-deep-programs.py KIND N [M] > FILE.uring, KIND one of
const_chain, fn_chain, await_fn_chain, any_arms, awaits, arithmetic, nested_parallel,
all_branches."""
import sys, os
def const_chain(n):
    s = "".join(f"const C{i}: u64 = C{i+1} + 1\n" for i in range(n))
    s += f"const C{n}: u64 = 1\ngraph g() -> (o: u64) {{ o = C0 }}\n"
    return s
def fn_chain(n):
    s = "".join(f"fn f{i}() -> i32 {{ return f{i+1}() }}\n" for i in range(n))
    s += f"fn f{n}() -> i32 {{ return nop() }}\ngraph g() {{ f0()? }}\n"
    return s
def await_fn_chain(n):
    s = "".join(f"fn f{i}() -> i32 {{\n nop()?\n return f{i+1}()\n}}\n" for i in range(n))
    s += f"fn f{n}() -> i32 {{ return nop() }}\ngraph g() {{ f0()? }}\n"
    return s
def any_arms(n):
    s = "graph g() -> (w: u32) {\n any {\n"
    s += "".join(f"  nop() => {{ w = {i} }}\n" for i in range(n))
    return s + " }\n}\n"
def awaits(n):
    return "graph g() {\n" + " nop()?\n" * n + "}\n"
def nested_parallel(a, b):
    return f"graph g() {{\n parallel i in 0..{a} {{\n  parallel j in 0..{b} {{\n   nop()?\n  }}\n }}\n}}\n"
def arithmetic(n):
    s = "graph g(x: u64) -> (o: u64) {\n var a: u64 = x\n"
    s += "".join(f" a = (a ^ (a >> {1 + i % 7})) + {i}\n" for i in range(n))
    return s + " o = a\n}\n"
def all_branches(n):
    return "graph g() {\n all {\n" + "  nop()?\n" * n + " }\n}\n"
kind, args = sys.argv[1], [int(a) for a in sys.argv[2:]]
sys.stdout.write(globals()[kind](*args))
