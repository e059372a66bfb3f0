"""Unit tests of the benchmark's report (report.py): medians over rounds, the bars' verdicts, the
generated section replacing only itself in docs/performance.md, the compile-time growth
verdicts, and the engines' table (issue 13). CTest unit.bench_report; no guest, no timing."""
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

    def test_engine_table_compares_the_host_engine_with_user_space_and_the_kernel(self):
        med = {"nops_user_k1": {"ns_per_op": 1000.0}, "nops_host_k1": {"ns_per_op": 1050.0},
               "nops_compiled_k1": {"ns_per_op": 500.0},
               "nops_user_k8": {"ns_per_op": 400.0}, "nops_host_k8": {"ns_per_op": 600.0},
               "copy_user_depth": {"mb_s": 100.0}, "copy_host_depth": {"mb_s": 80.0},
               "copy_compiled_depth": {"mb_s": 160.0}}
        rows = report.engine_table([("7.2", med)]).splitlines()
        k1 = next(r for r in rows if "K = 1 " in r)
        self.assertIn("1.05x met (<= 1.10x)", k1)
        self.assertIn("| 2.10x |", k1)  # host / kernel time
        k8 = next(r for r in rows if "K = 8 " in r)
        self.assertIn("1.50x **NOT met**", k8)
        depth = next(r for r in rows if "in flight" in r)
        self.assertIn("1.25x **NOT met**", depth)  # MB/s: time is the inverse
        self.assertIn("| 2.00x |", depth)
        k64 = next(r for r in rows if "K = 64" in r)
        self.assertIn("no bar", k64)


if __name__ == "__main__":
    unittest.main()
