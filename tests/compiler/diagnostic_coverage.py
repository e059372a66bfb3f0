#!/usr/bin/env python3
"""Fails when a diagnostic kind emitted by the compiler has no file-driven test.

Kinds are found in compiler/ as the first argument of `.Error("Kind"` / `.Warning("Kind"`;
tests are the `// CHECK: <severity> Kind @` lines of tests/compiler/files/*.uring, and, for kinds
that no source file can provoke (back-end limits, internal errors), GoogleTest assertions on a
diagnostic's kind: `EXPECT_EQ(x.kind, "Kind")` or a formatted `[Kind]` in tests/**/*.cpp.
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
emitted = set()
for src in [*(root / "compiler").rglob("*.cpp"), *(root / "compiler").rglob("*.h")]:
    emitted |= set(re.findall(r'\b(?:Error|Warning)\(\s*"([A-Z][A-Za-z]+)"', src.read_text()))
tested = set()
for test in (root / "tests/compiler/files").glob("*.uring"):
    tested |= set(re.findall(r"^// CHECK: (?:error|warning) ([A-Za-z]+) @", test.read_text(), re.M))
for test in (root / "tests").rglob("*.cpp"):
    text = test.read_text()
    tested |= set(re.findall(r'\.kind\s*,\s*"([A-Z][A-Za-z]+)"', text))
    tested |= set(re.findall(r'"\[([A-Z][A-Za-z]+)\]"', text))
missing = sorted(emitted - tested)
print(f"{len(emitted)} diagnostic kinds, {len(emitted & tested)} tested")
if missing:
    print("kinds without a test in tests/compiler/files:", ", ".join(missing))
    sys.exit(1)
