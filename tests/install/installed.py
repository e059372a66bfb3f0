"""Shared by the install tests: where the build and source trees are, the binaries' --help, and
and cmake --install into a prefix."""
import os
import pathlib
import subprocess

BUILD = pathlib.Path(os.environ.get("URINGC_BUILD_DIR", pathlib.Path(__file__).parents[2] / "build"))
SOURCE = pathlib.Path(os.environ.get("URINGC_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
URINGC = BUILD / "uringc"
URINGC_RUN = BUILD / "runtime" / "uringc-run"


def run(argv, **kw):
    """Runs argv, returns CompletedProcess with text output; never raises on a non-zero status."""
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, **kw)


def subcommands():
    """The subcommands `uringc --help` lists."""
    out = run([URINGC, "--help"]).stdout
    names, inside = [], False
    for line in out.splitlines():
        if line.startswith("Subcommands:"):
            inside = True
        elif inside and line.strip() == "":
            break
        elif inside:
            names.append(line.split()[0])
    return names


def long_options(help_text):
    """The long options an options block of a CLI11 --help names (`--emit-header[=FILE]` -> `--emit-header`)."""
    opts = set()
    for line in help_text.splitlines():
        stripped = line.lstrip()
        if not stripped.startswith("-") or line == stripped:
            continue
        for name in stripped.split()[0].split(","):
            name = name.split("[")[0]
            if name.startswith("--"):
                opts.add(name)
    return opts


def install(prefix):
    """cmake --install of the build tree into prefix; raises with cmake's output on failure."""
    proc = run(["cmake", "--install", BUILD, "--prefix", prefix])
    if proc.returncode != 0:
        raise AssertionError("cmake --install failed:\n" + proc.stdout + proc.stderr)

