#!/usr/bin/env python3
"""Fails when a diagnostic kind emitted by the compiler has no file-driven test.

Kinds are found in compiler/ as the first argument of `.Error("Kind"` / `.Warning("Kind"`;
tests are the `// CHECK: <severity> Kind @` lines of tests/compiler/files/*.uring.
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
missing = sorted(emitted - tested)
print(f"{len(emitted)} diagnostic kinds, {len(emitted & tested)} tested")
if missing:
    print("kinds without a test in tests/compiler/files:", ", ".join(missing))
    sys.exit(1)
