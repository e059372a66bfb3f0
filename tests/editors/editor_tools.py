"""Runs the real highlighters on .uring files for test_editor_syntax.py: the TextMate grammar
through vscode-textmate (tokenize.js, under node) and the Vim syntax file through vim or nvim
started headless (and indent/uring.vim re-indenting a file). Each returns what the editor
shows, so the test asserts on it."""
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Where scripts/install-deps.sh puts vscode-textmate and vscode-oniguruma from npm.
MODULES = Path(os.environ.get("URINGC_EDITOR_TEST_MODULES",
                              "/usr/local/lib/uringc-editor-test/node_modules"))


def textmate_missing() -> str | None:
    """Why the TextMate part cannot run here, or None."""
    if shutil.which("node") is None:
        return "node is not installed (scripts/install-deps.sh installs nodejs)"
    for m in ("vscode-textmate", "vscode-oniguruma"):
        if not (MODULES / m / "package.json").exists():
            return (f"{m} is not in {MODULES} (scripts/install-deps.sh installs it from npm; "
                    "URINGC_EDITOR_TEST_MODULES names another node_modules)")
    return None


def tokenize(grammar: Path, files: list[Path]) -> dict[Path, list]:
    """{file: [(line, start, end, text, scopes)]}: every token, lines from 1, columns from 0."""
    proc = subprocess.run(["node", HERE / "tokenize.js", MODULES, grammar, *files],
                          capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"tokenize.js failed: {proc.stderr}")
    return {Path(f): [tuple(t) for t in toks] for f, toks in json.loads(proc.stdout).items()}


_PROBE = """set nocompatible
set rtp^={rtp}
filetype plugin on
syntax on
edit {file}
let out = [&filetype, &commentstring]
for [l, c] in {positions}
  call add(out, synIDattr(synID(l, c, 1), 'name'))
endfor
call writefile(out, '{out}')
qall!
"""


_REINDENT = """set nocompatible
set rtp^={rtp}
filetype plugin indent on
syntax on
edit {file}
normal! gg=G
write! {out}
qall!
"""


def _run_vim(editor: str, script: str, out: Path) -> str:
    argv = [editor, "-u", "NONE", "-i", "NONE", "-n", "-es", "-S", str(out.parent / "probe.vim")]
    if editor == "nvim":
        argv.insert(1, "--headless")
    (out.parent / "probe.vim").write_text(script)
    proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=120)
    if not out.exists():
        raise RuntimeError(f"{editor} wrote no result (exit {proc.returncode}): "
                           f"{proc.stdout}{proc.stderr}")
    return out.read_text()


def vim_reindent(editor: str, vim_dir: Path, text: str) -> str:
    """`text` re-indented by `editor` with indent/uring.vim and the ftplugin's settings (gg=G)."""
    with tempfile.TemporaryDirectory() as tmp:
        file, out = Path(tmp) / "in.uring", Path(tmp) / "out"
        file.write_text(text)
        return _run_vim(editor, _REINDENT.format(rtp=vim_dir, file=file, out=out), out)


def vim_syntax(editor: str, vim_dir: Path, file: Path, positions: list[tuple[int, int]]):
    """Opens `file` in `editor` (vim or nvim) with only `vim_dir` added to its runtime path;
    returns (filetype, commentstring, [syntax group at each (line, column from 1)])."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        script = _PROBE.format(rtp=vim_dir, file=file, out=out,
                               positions=json.dumps([list(p) for p in positions]))
        lines = _run_vim(editor, script, out).split("\n")
        return lines[0], lines[1], lines[2:2 + len(positions)]
