"""The bash completion (scripts/bash-completion/uringc) in a real bash: what it offers after
`uringc`, after a subcommand's option with choices, for FILE values and option prefixes, read
from the binaries' --help so a new subcommand or choice shows up without editing the script."""
import os
import shutil
import tempfile
import unittest

from installed import BUILD, SOURCE, run, subcommands

SCRIPT = SOURCE / "scripts" / "bash-completion" / "uringc"


def complete(*words, cwd=None):
    """The COMPREPLY for a command line whose last word is being completed."""
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    program = (f"source '{SCRIPT}'\nCOMP_WORDS=({quoted})\nCOMP_CWORD=$((${{#COMP_WORDS[@]}}-1))\n"
               "_uringc\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n")
    env = dict(os.environ, PATH=f"{BUILD}:{BUILD / 'runtime'}:{os.environ['PATH']}")
    proc = run(["bash", "--norc", "--noprofile", "-c", program], env=env, cwd=cwd)
    if proc.returncode != 0:
        raise AssertionError(proc.stderr)
    return sorted(w for w in proc.stdout.splitlines() if w)


class Completion(unittest.TestCase):
    def setUp(self):
        if shutil.which("bash") is None:
            self.skipTest("skipped: bash is not installed")

    def test_subcommands_come_from_the_binary(self):
        self.assertEqual(complete("uringc", ""), sorted(subcommands() + ["--help", "--version"]))
        self.assertEqual(complete("uringc", "co"), ["compile"])

    def test_choices_of_an_option(self):
        self.assertEqual(complete("uringc", "compile", "--emit", ""), ["asm", "llvm", "obj"])
        self.assertEqual(complete("uringc", "compile", "--target", "h"), ["host"])
        self.assertEqual(complete("uringc", "compile", "--ring", ""), ["any", "rewind"])
        self.assertEqual(complete("uringc", "run", "--engine", "=", ""), ["auto", "host", "kernel"])
        self.assertEqual(complete("uringc-run", "--ring", ""), ["auto", "rewind", "tail"])
        self.assertEqual(complete("uringc", "graph", "--view", ""), ["ir", "requests"])
        self.assertEqual(complete("uringc", "graph", "--format", "=", ""), ["dot", "svg"])

    def test_options_files_and_values_without_a_guess(self):
        self.assertIn("--emit-header", complete("uringc", "compile", "--emit"))
        self.assertIn("--emit-skeleton", complete("uringc", "compile", "--emit"))
        self.assertIn("--vm", complete("uringc-run", "--v"))
        self.assertEqual(complete("uringc", "run", "--sq-entries", ""), [])
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("a.uring", "b.txt", "c.bpf.o"):
                open(os.path.join(tmp, name), "w").close()
            os.mkdir(os.path.join(tmp, "sub"))
            self.assertEqual(complete("uringc", "check", "", cwd=tmp), ["a.uring", "c.bpf.o", "sub"])
            self.assertEqual(complete("uringc", "compile", "-o", "", cwd=tmp),
                             ["a.uring", "b.txt", "c.bpf.o", "sub"])


if __name__ == "__main__":
    unittest.main()
