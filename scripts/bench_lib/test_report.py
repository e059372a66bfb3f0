"""Unit tests of the benchmark's report (report.py): medians over rounds, the bars' verdicts, the
generated section replacing only itself in docs/performance.md, and the compile-time growth
verdicts. CTest unit.bench_report; no guest, no timing."""
import unittest

from bench_lib import report


class Report(unittest.TestCase):
    def test_medians_per_field(self):
        runs = {"w": [{"ns_per_op": 3.0, "processed": 9}, {"ns_per_op": 1.0, "processed": 9},
                      {"ns_per_op": 2.0, "processed": 9}]}
        med = report.medians(runs)["w"]
        self.assertEqual(med["ns_per_op"], 2.0)
        self.assertEqual(med["processed"], 9)
        self.assertEqual(med["rounds"], 3)
        self.assertNotIn("mb_s", med)

    def test_verdicts(self):
        self.assertIn("1.00x met", report.verdict(1.0, 1.0, at_most=True))
        self.assertIn("NOT met", report.verdict(1.01, 1.0, at_most=True))
        self.assertIn("NOT met", report.verdict(1.59, 1.6, at_most=False))
        self.assertIn("1.60x met", report.verdict(1.6, 1.6, at_most=False))
        self.assertEqual(report.verdict(None, 1.0, True), "n/a")
        self.assertIsNone(report.ratio(1.0, None))

    def test_section_replaces_only_itself(self):
        doc = "# Front end\nkept\n\n" + report.BEGIN + "\nold\n" + report.END + "\n"
        new = report.replace_section(doc, report.BEGIN + "\nnew\n" + report.END + "\n")
        self.assertTrue(new.startswith("# Front end\nkept\n\n"))
        self.assertIn("new", new)
        self.assertNotIn("old", new)
        self.assertEqual(report.replace_section(new, report.BEGIN + "\nnew\n" + report.END
                                                + "\n"), new)

    def test_section_appended_without_markers(self):
        new = report.replace_section("# Front end\n", report.BEGIN + "\nx\n" + report.END + "\n")
        self.assertTrue(new.startswith("# Front end\n\n" + report.BEGIN))

    def test_generated_growth(self):
        gen = [("awaits", 1000, 100.0, ""), ("awaits", 10000, 3000.0, ""),
               ("any", 1000, 50.0, ""), ("any", 10000, 80.0, "GraphTooLarge")]
        text = report.generated_table(gen, 120)
        awaits = next(ln for ln in text.splitlines() if ln.startswith("- awaits"))
        self.assertIn("3.00x as fast as size", awaits)
        self.assertIn("**NOT met**", awaits)  # superlinear, and over 1 s
        anys = next(ln for ln in text.splitlines() if ln.startswith("- any"))
        self.assertIn("[GraphTooLarge]", anys)
        self.assertIn("did not compile", anys)


if __name__ == "__main__":
    unittest.main()
