"""The man pages (docs/man/) name every option the binaries offer: each subcommand's options in its
own section of uringc.1 (or under COMMON OPTIONS), uringc-run's in uringc-run.1. A new option
fails this test until its page says what it does. groff must render them without warnings."""
import re
import shutil
import unittest

from installed import SOURCE, URINGC, URINGC_RUN, long_options, run, subcommands

MAN = SOURCE / "docs" / "man"


def sections(page):
    """{".SS name" or ".SH NAME": text} of a man page, with roff's `\\-` as `-`."""
    out, name = {}, None
    for line in page.read_text().replace("\\-", "-").splitlines():
        if line.startswith((".SH ", ".SS ")):
            name = line
            out[name] = ""
        elif name:
            out[name] += line + "\n"
    return out


def names(text, option):
    return re.search(r"(?<![\w-])" + re.escape(option) + r"(?![\w-])", text) is not None


class ManPages(unittest.TestCase):
    def test_uringc_page_names_every_subcommand_and_option(self):
        page = sections(MAN / "uringc.1")
        common = page.get(".SH COMMON OPTIONS", "")
        subs = subcommands()
        self.assertGreaterEqual(len(subs), 4)
        for sub in subs:
            self.assertIn(".SS " + sub, page, f"uringc.1 has no section for `{sub}`")
            opts = long_options(run([URINGC, sub, "--help"]).stdout)
            self.assertTrue(opts, sub)
            missing = [o for o in sorted(opts)
                       if not names(page[".SS " + sub], o) and not names(common, o)]
            self.assertEqual(missing, [], f"uringc.1 does not describe these options of `{sub}`")

    def test_uringc_run_page_names_every_option(self):
        text = "".join(sections(MAN / "uringc-run.1").values())
        opts = long_options(run([URINGC_RUN, "--help"]).stdout)
        self.assertIn("--engine", opts)
        self.assertEqual([o for o in sorted(opts) if not names(text, o)], [])

    def test_pages_render_without_warnings(self):
        if shutil.which("groff") is None:
            self.skipTest("skipped: groff is not installed (Debian package groff-base)")
        for page in ("uringc.1", "uringc-run.1"):
            proc = run(["groff", "-man", "-ww", "-z", MAN / page])
            self.assertEqual((proc.returncode, proc.stderr), (0, ""), page)


if __name__ == "__main__":
    unittest.main()
