"""unit.editor_syntax: the editor support of docs/editors.md highlights real .uring code.

- The TextMate grammar (grammar/editors/uring.tmLanguage.json) is run through vscode-textmate,
  the engine of VS Code, on every example, every stdlib module and sample.uring: no token is
  invalid, and chosen tokens get the scopes below.
- The Vim syntax file is run in vim (and nvim when installed) headless on the same tokens:
  `*.uring` is detected, commentstring is set, and each token is in the syntax group below; the
  indent file re-indents every example and stdlib module as it is written.
- Every keyword of Uring.g4 appears in both files, and every keyword, request, builtin, constant,
  type and unit the compiler knows (language_words.py) is coloured by both, so a word added to the
  language without its highlighting fails here.
- sample.uring is a program `uringc check` accepts (when uringc is built), so it shows real code.
- scripts/pack-vsix.py packs a .vsix VS Code installs (a zip with the manifest VS Code reads), and
  scripts/tmlanguage-plist.py's plist form of the grammar tokenizes as the JSON does.

Exits 77 (skipped) when node, the npm modules or vim are missing, after running the rest."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile
from pathlib import Path

import editor_tools
from language_words import SemaWords, keywords

SOURCE = Path(os.environ.get("URINGC_SOURCE_DIR", Path(__file__).resolve().parents[2]))
GRAMMAR = SOURCE / "grammar/editors/uring.tmLanguage.json"
VIM_DIR = SOURCE / "grammar/editors/vim"
SAMPLE = Path(__file__).resolve().parent / "sample.uring"
FILES = sorted([*SOURCE.glob("examples/*.uring"), *SOURCE.glob("stdlib/**/*.uring"), SAMPLE])

# (file, a piece of one of its lines, a token in that piece, TextMate scope, Vim group).
CHECKS = [
    ("examples/hedge.uring", "// hedge.uring", "hedge", "comment.line.double-slash.uring",
     "uringComment"),
    ("examples/hedge.uring", "graph hedge", "graph", "storage.type.graph.uring", "uringDeclare"),
    ("examples/hedge.uring", "graph hedge", "hedge", "entity.name.function.graph.uring",
     "uringFuncName"),
    ("examples/hedge.uring", "buffers[2] of 4 KiB", "buffers", "storage.type.buffers.uring",
     "uringBuffers"),
    ("examples/hedge.uring", "buffers[2] of 4 KiB", "of", "keyword.other.of.uring", "uringBuffers"),
    ("examples/hedge.uring", "of 4 KiB", "4", "constant.numeric.integer.uring", "uringNumber"),
    ("examples/hedge.uring", "of 4 KiB", "KiB", "keyword.other.unit.uring", "uringUnit"),
    ("examples/hedge.uring", "bytes: u32)", "bytes", "source.uring", ""),
    ("examples/hedge.uring", "bytes: u32)", "u32", "storage.type.primitive.uring", "uringType"),
    ("examples/hedge.uring", "any {", "any", "keyword.control.concurrency.uring",
     "uringConcurrency"),
    ("examples/hedge.uring", "read(a, buf[0], 0) as n =>", "read",
     "support.function.request.uring", "uringRequest"),
    ("examples/hedge.uring", "0) as n =>", "as", "keyword.control.as.uring", "uringStatement"),
    ("examples/hedge.uring", "as n =>", "n", "variable.other.result.uring", ""),
    ("examples/hedge.uring", "as n =>", "=>", "keyword.operator.arrow.uring", "uringArrow"),
    ("examples/hedge.uring", "u32(max(n", "u32", "storage.type.primitive.uring", "uringType"),
    ("examples/hedge.uring", "u32(max(n", "max", "support.function.builtin.uring", "uringBuiltin"),
    ("examples/hedge.uring", "within 10 ms else fail ETIME", "within",
     "keyword.control.deadline.uring", "uringStatement"),
    ("examples/hedge.uring", "within 10 ms", "ms", "keyword.other.unit.uring", "uringUnit"),
    ("examples/hedge.uring", "else fail ETIME", "else", "keyword.control.conditional.uring",
     "uringConditional"),
    ("examples/hedge.uring", "else fail ETIME", "fail", "keyword.control.exception.uring",
     "uringException"),
    ("examples/hedge.uring", "fail ETIME", "ETIME", "support.constant.uring", "uringConstant"),
    ("stdlib/std/net.uring", "let n = send(s, data[done..])?", "let",
     "storage.type.variable.uring", "uringDeclare"),
    ("stdlib/std/net.uring", "let n = send(s, data[done..])?", "..", "keyword.operator.range.uring",
     "uringOperator"),
    ("stdlib/std/net.uring", "let n = send(s, data[done..])?", "?",
     "keyword.operator.propagate.uring", "uringPropagate"),
    ("stdlib/std/net.uring", "} catch e {", "catch", "keyword.control.exception.uring",
     "uringException"),
    ("stdlib/std/net.uring", "} catch e {", "e", "variable.other.error.uring", ""),
    ("examples/echo_multishot.uring", "import std.net", "import", "keyword.other.import.uring",
     "uringInclude"),
    ("examples/echo_multishot.uring", "import std.net", "std.net", "entity.name.namespace.uring",
     ""),
    ("examples/echo_multishot.uring", "pool: provided buffers", "provided",
     "storage.modifier.memory.uring", "uringQualifier"),
    ("examples/echo_multishot.uring", "parallel c in 0..64", "parallel",
     "keyword.control.concurrency.uring", "uringConcurrency"),
    ("examples/echo_multishot.uring", "parallel c in 0..64", "in", "keyword.control.loop.uring",
     "uringRepeat"),
    ("tests/editors/sample.uring", "TODO marks", "TODO", "keyword.other.todo.uring", "uringTodo"),
    ("tests/editors/sample.uring", "/* A block", "A", "comment.block.uring", "uringComment"),
    ("tests/editors/sample.uring", "const CHUNK: u32", "const", "storage.type.const.uring",
     "uringDeclare"),
    ("tests/editors/sample.uring", "const CHUNK: u32", "CHUNK", "variable.other.constant.uring",
     ""),
    ("tests/editors/sample.uring", "data: bytes", "bytes", "storage.type.primitive.uring",
     "uringType"),
    ("tests/editors/sample.uring", "out: shared buffers", "shared", "storage.modifier.memory.uring",
     "uringQualifier"),
    ("tests/editors/sample.uring", '"index.html', '"', "punctuation.definition.string.begin.uring",
     "uringString"),
    ("tests/editors/sample.uring", '"index.html', "index", "string.quoted.double.uring",
     "uringString"),
    ("tests/editors/sample.uring", r"html\r\n\x41", r"\r", "constant.character.escape.uring",
     "uringEscape"),
    ("tests/editors/sample.uring", r"html\r\n\x41", r"\x41", "constant.character.escape.uring",
     "uringEscape"),
    ("tests/editors/sample.uring", "= 0x10", "0x10", "constant.numeric.integer.hexadecimal.uring",
     "uringNumber"),
    ("tests/editors/sample.uring", "sleep(5 ms) => { stop }", "=>", "keyword.operator.arrow.uring",
     "uringArrow"),
    ("tests/editors/sample.uring", "sleep(5 ms) => { stop }", "stop", "keyword.control.flow.uring",
     "uringStatement"),
    ("tests/editors/sample.uring", "1_000 && true", "&&", "keyword.operator.logical.uring",
     "uringOperator"),
    ("tests/editors/sample.uring", "1_000 && true", "true", "constant.language.boolean.uring",
     "uringBoolean"),
    ("tests/editors/sample.uring", "return i32(n)", "return", "keyword.control.flow.uring",
     "uringStatement"),
    ("tests/editors/sample.uring", "recv_each(sock", "recv_each", "entity.name.function.call.uring",
     "uringCall"),
    ("tests/editors/sample.uring", "put_u32le(out[0], 0, 7 << 1)", "put_u32le",
     "support.function.builtin.uring", "uringBuiltin"),
    ("tests/editors/sample.uring", "7 << 1", "<<", "keyword.operator.bitwise.uring",
     "uringOperator"),
]


def locate(path: Path, piece: str, token: str, scope: str) -> tuple[int, int]:
    """(line from 1, column from 0) of `token` inside the first line of `path` holding `piece`
    (outside a `//` comment line, unless `scope` is a comment's)."""
    for n, line in enumerate(path.read_text().split("\n"), 1):
        comment_line = line.lstrip().startswith(("//", "/*"))
        wrong_kind = comment_line != scope.startswith(("comment", "keyword.other.todo"))
        if piece in line and not wrong_kind:
            return n, line.index(piece) + piece.index(token)
    raise AssertionError(f"{path}: no line holds {piece!r}; update CHECKS")


def words_file(tmp: Path) -> tuple[Path, list]:
    """A file of one line per language word, and [(line, column, word, TextMate scope or None for
    'a keyword or storage scope', Vim group or None for 'any group')] to check in it."""
    sema = SemaWords(SOURCE)
    lines, checks = [], []

    def add(text, word, scope, group):
        lines.append(text)
        checks.append((len(lines), text.index(word), word, scope, group))

    for kw in keywords(SOURCE):
        add(kw, kw, None, None)
    for r in sema.requests:
        add(f"x = {r}(a)", r, "support.function.request.uring", "uringRequest")
    for b in sema.builtins:
        add(f"x = {b}(a)", b, "support.function.builtin.uring", "uringBuiltin")
    for c in sema.constants:
        add(f"x = {c}", c, "support.constant.uring", "uringConstant")
    for t in sema.types:
        add(f"let x: {t} = y", t, "storage.type.primitive.uring", "uringType")
        add(f"x = {t}(0)", t, "storage.type.primitive.uring", "uringType")
    for u in sema.units:
        add(f"x = 3 {u}", u, "keyword.other.unit.uring", "uringUnit")
    add("x = 0x1B", "0x1B", "constant.numeric.integer.hexadecimal.uring", "uringNumber")
    add('x = "a\\qb"', "\\q", "invalid.illegal.escape.uring", "uringBadEscape")
    path = tmp / "words.uring"
    path.write_text("\n".join(lines) + "\n")
    return path, checks


class WordListsTest(unittest.TestCase):
    def test_every_keyword_of_the_lexer_is_in_both_grammars(self):
        for path in (GRAMMAR, VIM_DIR / "syntax/uring.vim"):
            text = path.read_text()
            missing = [k for k in keywords(SOURCE) if not re.search(rf"\b{k}\b", text)]
            self.assertEqual(missing, [], f"keywords of grammar/Uring.g4 missing from {path}")

    def test_requests_constants_and_units_are_in_both_grammars(self):
        sema = SemaWords(SOURCE)
        for path in (GRAMMAR, VIM_DIR / "syntax/uring.vim"):
            text = path.read_text()
            for kind in ("requests", "constants", "units"):
                missing = [w for w in getattr(sema, kind) if not re.search(rf"\b{w}\b", text)]
                self.assertEqual(missing, [], f"{kind} of compiler/sema/requests.cpp missing "
                                 f"from {path}")


class TextMateTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        why = editor_tools.textmate_missing()
        if why:
            raise unittest.SkipTest(f"skipped: {why}")
        cls.tmp = tempfile.TemporaryDirectory()
        cls.words, cls.word_checks = words_file(Path(cls.tmp.name))
        cls.tokens = editor_tools.tokenize(GRAMMAR, [*FILES, cls.words])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def scope_at(self, path: Path, line: int, col: int) -> list[str]:
        for n, start, end, _, scopes in self.tokens[path]:
            if n == line and start <= col < end:
                return scopes
        raise AssertionError(f"{path}:{line}:{col + 1}: no token")

    def test_no_token_of_the_examples_and_stdlib_is_invalid(self):
        for path in FILES:
            bad = [t for t in self.tokens[path] if any("invalid" in s for s in t[4])]
            self.assertEqual(bad, [], path)

    def test_the_plist_form_tokenizes_as_the_json_does(self):
        plist = Path(self.tmp.name) / "uring.tmLanguage"
        subprocess.run([sys.executable, SOURCE / "scripts/tmlanguage-plist.py", GRAMMAR,
                        "-o", plist], check=True)
        self.assertEqual(editor_tools.tokenize(plist, [SAMPLE])[SAMPLE], self.tokens[SAMPLE])

    def test_chosen_tokens_have_their_scopes(self):
        for rel, piece, token, scope, _ in CHECKS:
            path = SOURCE / rel
            line, col = locate(path, piece, token, scope)
            for c in range(col, col + len(token)):
                with self.subTest(file=rel, token=token):
                    self.assertEqual(self.scope_at(path, line, c)[-1], scope,
                                     f"{rel}:{line}:{c + 1} {token!r} in {piece!r}")

    def test_every_language_word_is_coloured(self):
        for line, col, word, scope, _ in self.word_checks:
            got = self.scope_at(self.words, line, col)[-1]
            with self.subTest(word=word):
                if scope is None:
                    self.assertRegex(got, r"^(keyword|storage|constant\.language)\.", word)
                else:
                    self.assertEqual(got, scope, word)


class VimTest(unittest.TestCase):
    def check(self, editor: str):
        if shutil.which(editor) is None:
            self.skipTest(f"skipped: {editor} is not installed")
        points = [(SOURCE / rel, *locate(SOURCE / rel, piece, token, scope), group)
                  for rel, piece, token, scope, group in CHECKS]
        for path in sorted({p[0] for p in points}):
            mine = [p for p in points if p[0] == path]
            ft, cms, groups = editor_tools.vim_syntax(
                editor, VIM_DIR, path, [(line, col + 1) for _, line, col, _ in mine])
            self.assertEqual(ft, "uring", f"{editor} did not detect {path} as uring")
            self.assertEqual(cms, "// %s", "ftplugin/uring.vim sets commentstring")
            for (_, line, col, group), got in zip(mine, groups):
                self.assertEqual(got, group, f"{editor}: {path}:{line}:{col + 1}")
        with tempfile.TemporaryDirectory() as tmp:
            words, checks = words_file(Path(tmp))
            _, _, groups = editor_tools.vim_syntax(editor, VIM_DIR, words,
                                                   [(line, col + 1) for line, col, *_ in checks])
            for (_, _, word, _, group), got in zip(checks, groups):
                with self.subTest(editor=editor, word=word):
                    self.assertTrue(got.startswith("uring"), f"{word!r} has no syntax group")
                    if group:
                        self.assertEqual(got, group, word)

    def check_long_comment(self, editor: str):
        """A line deep inside a long block comment is a comment even when highlighting starts
        there (syntax sync), not code."""
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "long.uring"
            path.write_text("graph g() {}\n/*\n" + "  if x while read(a)\n" * 300 + "*/\n")
            _, _, groups = editor_tools.vim_syntax(editor, VIM_DIR, path, [(280, 5)])
            self.assertEqual(groups, ["uringComment"], f"{editor}: line 280 of a block comment")

    def check_indent(self, editor: str):
        """Every example and stdlib module, its indentation removed, re-indented as written (four
        spaces, the ftplugin's default), but for the continuation lines of a long header, which
        are aligned by hand."""
        for path in FILES:
            lines = path.read_text().split("\n")
            got = editor_tools.vim_reindent(editor, VIM_DIR,
                                            "\n".join(l.lstrip() for l in lines)).split("\n")
            prev = ""
            for n, (want, have) in enumerate(zip(lines, got), 1):
                continued = prev.rstrip().endswith(",") or want.lstrip().startswith("->")
                in_comment = want.rstrip().endswith("*/") and "/*" not in want
                if want.strip() and not continued and not in_comment:
                    self.assertEqual(have, want, f"{editor}: {path}:{n} re-indented")
                prev = want if want.strip() else prev

    def test_vim(self):
        self.check("vim")
        self.check_long_comment("vim")
        self.check_indent("vim")

    def test_nvim(self):
        self.check("nvim")
        self.check_long_comment("nvim")
        self.check_indent("nvim")


class SampleTest(unittest.TestCase):
    def test_the_sample_is_a_program_uringc_accepts(self):
        uringc = Path(os.environ.get("URINGC_BUILD_DIR", SOURCE / "build")) / "uringc"
        if not uringc.exists():
            self.skipTest(f"skipped: {uringc} is not built")
        proc = subprocess.run([uringc, "check", SAMPLE], capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)


class VsixTest(unittest.TestCase):
    def test_the_packed_vsix_holds_the_extension_and_its_manifest(self):
        with tempfile.TemporaryDirectory() as tmp:
            vsix = Path(tmp) / "uring.vsix"
            subprocess.run([sys.executable, SOURCE / "scripts/pack-vsix.py", "-o", vsix],
                           check=True)
            with zipfile.ZipFile(vsix) as z:
                names = set(z.namelist())
                for n in ("[Content_Types].xml", "extension.vsixmanifest",
                          "extension/package.json", "extension/language-configuration.json"):
                    self.assertIn(n, names)
                package = json.loads(z.read("extension/package.json"))
                for g in package["contributes"]["grammars"]:
                    inside = "extension/" + g["path"].removeprefix("./")
                    self.assertEqual(z.read(inside), GRAMMAR.read_bytes(), inside)
                manifest = z.read("extension.vsixmanifest").decode()
                self.assertIn(f'Id="{package["name"]}"', manifest)
                self.assertIn(f'Version="{package["version"]}"', manifest)
                self.assertIn(f'Publisher="{package["publisher"]}"', manifest)
                config = json.loads(z.read("extension/language-configuration.json"))
        self.assertEqual(config["comments"], {"lineComment": "//", "blockComment": ["/*", "*/"]})
        closing = {p["open"]: p["close"] for p in config["autoClosingPairs"]}
        for open_, close in config["brackets"]:
            self.assertEqual(closing.get(open_), close, f"{open_} is not auto-closed")
        # A word (double-click, Ctrl+D) is a whole name or integer, as the lexer reads it; the
        # first alternative that matches wins, as in JavaScript.
        word = re.compile(config["wordPattern"])
        for w in ("send_all", "ETIME", "u32", "1_000", "0x2a_ff"):
            self.assertEqual(word.match(w).group(), w)


def main() -> int:
    result = unittest.main(exit=False, verbosity=2).result
    if not result.wasSuccessful():
        return 1
    missing = [why for why in (editor_tools.textmate_missing(),
                               None if shutil.which("vim") else "vim is not installed") if why]
    if missing:
        print("SKIPPED: " + "; ".join(missing) + " (scripts/install-deps.sh installs them)")
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
