"""The words of the .uring language, read from where the compiler defines them: the keywords
from grammar/Uring.g4's literal tokens, and the requests, builtin functions, predefined
constants, type names and units from compiler/sema/requests.cpp. The editor grammars keep their
own copies of these lists; test_editor_syntax.py compares them with these, so a word added to
the language without its highlighting fails the test."""
import re
from pathlib import Path


def keywords(source: Path) -> list[str]:
    g4 = (source / "grammar/Uring.g4").read_text()
    return sorted(set(re.findall(r"'([a-z]+)'", g4)))


def _between(text: str, start: str, end: str) -> str:
    return text[text.index(start):text.index(end, text.index(start))]


class SemaWords:
    """The names compiler/sema/requests.cpp knows, each list in the table's order."""

    def __init__(self, source: Path):
        src = (source / "compiler/sema/requests.cpp").read_text()
        self.requests = re.findall(r'\{K::k\w+, "(\w+)"', src)
        fns = _between(src, "FindBuiltinFn(", "ParseDataAccess(")
        self.builtins = re.findall(r'name == "(\w+)"', fns)
        # get_<T>/put_<T> for every T ParseDataAccess accepts: u8, i8 and [ui]{16,32,64}{le,be}.
        self.builtins += [f"{op}_{t}" for op in ("get", "put") for t in
                          ["u8", "i8"] + [f"{s}{b}{e}" for s in "ui" for b in (16, 32, 64)
                                          for e in ("le", "be")]]
        self.constants = re.findall(r'\{"([A-Z][A-Z0-9_]*)", ', _between(
            src, "BuiltinConstants()", "FindBuiltinConst("))
        types = _between(src, "TypeByName(", "UnitScale(")
        self.types = re.findall(r'name == "(\w+)"', types)
        self.types += [f"{s}{b}" for s in "ui" for b in (8, 16, 32, 64)]
        self.units = re.findall(r'\{"(\w+)", \d', _between(src, "UnitScale(", "\n}\n"))
        for name in ("requests", "builtins", "constants", "types", "units"):
            if not getattr(self, name):
                raise ValueError(f"found no {name} in compiler/sema/requests.cpp: has its table "
                                 "changed shape? update tests/editors/language_words.py")
