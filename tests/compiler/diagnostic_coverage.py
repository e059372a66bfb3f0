#!/usr/bin/env python3
"""Fails when a diagnostic kind of the registry (runtime/include/uringc/diag/kinds.def) has no test, when
nothing in compiler/ or runtime/ reports it, or when docs/diagnostics.md does not list it.

A kind is reported where the code names `DiagKind::kName`. It is tested when a test provokes it:
a `// CHECK: <severity> Name @` line of a file test (tests/**/*.uring), a GoogleTest assertion
naming `DiagKind::kName` or the formatted `[Name]`, or the name as a string in a test
(`uringc_ctl__last_error_kind(ctl)` is "Name"; a Python test's "[Name]").
A few kinds cannot be provoked on purpose; they are listed in UNTESTABLE with the reason.
"""
import pathlib
import re
import sys

UNTESTABLE = {
    "MapAccessFailed": "the kernel refusing a read or write of a loaded controller's own map",
    "InternalError": "an exception the runtime did not expect (a runtime bug)",
    "KernelBtfUnreadable": "a kernel without /sys/kernel/btf/vmlinux (every kernel here has it)",
}

root = pathlib.Path(sys.argv[1])
registry_text = (root / "runtime/include/uringc/diag/kinds.def").read_text()
registry = re.findall(r"^URINGC_DIAG_KIND\((\w+), (k\w+),", registry_text, re.M)
kinds = [name for name, _ in registry]
duplicates = sorted({k for k in kinds if kinds.count(k) > 1})

registry_files = {"kinds.def", "kinds.h", "kinds.cpp"}
reported = set()
for top in ("compiler", "runtime"):
    for src in (root / top).rglob("*"):
        if src.suffix in (".cpp", ".h") and src.name not in registry_files:
            reported |= set(re.findall(r"DiagKind::k(\w+)", src.read_text()))

tested = set()
for test in (root / "tests").rglob("*.uring"):
    tested |= set(re.findall(r"^// CHECK: (?:error|warning|note) (\w+) @", test.read_text(), re.M))
for test in [*(root / "tests").rglob("*.cpp"), *(root / "tests").rglob("*.py")]:
    if test.name == pathlib.Path(__file__).name:
        continue
    text = test.read_text(errors="replace")
    tested |= set(re.findall(r"DiagKind::k(\w+)", text))
    tested |= set(re.findall(r"\[([A-Z][A-Za-z]+)\]", text))
    tested |= set(k for k in re.findall(r'"([A-Z][A-Za-z]+)"', text) if k in kinds)

failed = False
if duplicates:
    print("kinds listed twice in kinds.def:", ", ".join(duplicates))
    failed = True
unreported = [k for k in kinds if k not in reported]
if unreported:
    print("kinds in kinds.def that nothing reports (remove them):", ", ".join(unreported))
    failed = True
untested = [k for k in kinds if k not in tested and k not in UNTESTABLE]
if untested:
    print("kinds without a test (a file test's CHECK line or an assertion on DiagKind::k<Name>):",
          ", ".join(untested))
    failed = True
docs = (root / "docs/diagnostics.md").read_text()
undocumented = [k for k in kinds if f"| `{k}` |" not in docs]
if undocumented:
    print("kinds missing from docs/diagnostics.md:", ", ".join(undocumented))
    failed = True
stale = [k for k in UNTESTABLE if k not in kinds or k in tested]
if stale:
    print("UNTESTABLE lists kinds that are gone or tested now:", ", ".join(stale))
    failed = True
n_tested = len([k for k in kinds if k in tested])
print(f"{len(kinds)} diagnostic kinds in the registry, {n_tested} tested, "
      f"{len(UNTESTABLE)} untestable by design")
sys.exit(1 if failed else 0)
