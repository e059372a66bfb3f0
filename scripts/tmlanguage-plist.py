#!/usr/bin/env python3
"""Writes the .uring TextMate grammar (grammar/editors/uring.tmLanguage.json) in the XML plist
form, `uring.tmLanguage`, which TextMate, Sublime Text and older tools read instead of JSON.

    scripts/tmlanguage-plist.py grammar/editors/uring.tmLanguage.json -o uring.tmLanguage"""
import argparse
import json
import plistlib
import sys
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("grammar", type=Path, help="the JSON grammar")
    ap.add_argument("-o", "--output", required=True, type=Path, help="the plist to write")
    args = ap.parse_args()
    grammar = json.loads(args.grammar.read_text())
    grammar.pop("$schema", None)  # a JSON editor's hint, not part of the grammar
    args.output.write_bytes(plistlib.dumps(grammar, sort_keys=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
