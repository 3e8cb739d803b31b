"""tests/bench_results.py and bench_linux.py's rows for it, on a small table (no QEMU)."""

import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bench_linux  # noqa: E402
import bench_results  # noqa: E402
import icount  # noqa: E402

TABLE = """# costs

<!-- current table: written by the bench tools -->
| row | fentros | Linux 6.1 | fentros/Linux | date | commit | measured by |
|---|---:|---:|---:|---|---|---|
| function: overhead per event | 124 (115) ns | 653 (584) ns | 0.19 (0.20) | 2026-11-26 | 973968c | `make bench-linux` |
| instructions per traced call, function | 160 | 667 | 0.24 | 2026-11-26 | 1c4f49f | `make icount` |
<!-- end of the current table -->

| function: overhead per event | not | in | the | table | at | all |
"""


class ResultsTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = Path(self.dir.name) / "BENCH_RESULTS.md"
        self.path.write_text(TABLE)

    def tearDown(self):
        self.dir.cleanup()

    def test_rows_replaced_and_added(self):
        rows = [bench_results.cell_row("function: overhead per event", "100 (90) ns",
                                       "500 (450) ns", "0.20 (0.20)", "`make bench-linux`",
                                       "2026-12-01", "abc1234"),
                bench_results.cell_row("new row", "1", "2", "0.50", "`x`", "2026-12-01", "abc")]
        self.assertEqual(bench_results.update(rows, self.path), ["function: overhead per event"])
        lines = self.path.read_text().split("\n")
        self.assertEqual(lines[5], rows[0])
        self.assertIn("`make icount`", lines[6])   # a row not measured stays
        self.assertEqual(lines[7], rows[1])         # a new row goes at the end
        self.assertTrue(lines[8].startswith(bench_results.END))
        self.assertIn("not | in", lines[10])        # nothing outside the table changes

    def test_no_table(self):
        self.path.write_text("# no table here\n")
        with self.assertRaises(bench_results.ResultsError):
            bench_results.update([], self.path)

    def test_rows_from_a_comparison(self):
        comparison = [("function: overhead per event, median", 124.4, 653.0, "ns", 0.5),
                      ("function: overhead per event, min", 115.0, 584.0, "ns", 0.5),
                      ("graph: overhead per traced call, median", 281.0, 1804.0, "ns", None),
                      ("graph: overhead per event, median", 140.0, None, "ns", 0.5)]
        rows = bench_linux.results_rows(comparison)
        cells = [[c.strip() for c in row.split("|")[1:-1]] for row in rows]
        self.assertEqual([c[:4] for c in cells],
                         [["function: overhead per event", "124 (115) ns", "653 (584) ns",
                           "0.19 (0.20)"],
                          ["function_graph: overhead per traced call", "281 ns", "1804 ns",
                           "0.16"]])
        self.assertEqual(cells[0][6], "`make bench-linux`")

    def test_snapshot_and_wakeup_latency_rows(self):
        comparison = [
            ("snapshot swap, a write of 1 (every CPU), median", 5000.0, 4400.0, "ns", None),
            ("snapshot swap, a write of 1 (every CPU), min", 4900.0, 4300.0, "ns", None),
            ("wakeup_latency triggers: cost per round trip (2 wakeups, 2 switches), median",
             6000.0, 16000.0, "ns", 0.5),
            ("wakeup_latency triggers: cost per round trip (2 wakeups, 2 switches), min",
             5800.0, 15000.0, "ns", 0.5)]
        cells = [[c.strip() for c in row.split("|")[1:-1]]
                 for row in bench_linux.results_rows(comparison)]
        self.assertEqual([c[1:4] for c in cells], [["5000 (4900) ns", "4400 (4300) ns",
                                                    "1.14 (1.14)"],
                                                   ["6000 (5800) ns", "16000 (15000) ns",
                                                    "0.38 (0.39)"]])
        self.assertTrue(cells[0][0].startswith("snapshot swap: a write of `1`"))
        self.assertTrue(cells[1][0].startswith("wakeup-latency pair"))
        self.assertEqual([line.split()[0] for line in bench_linux.target_lines(comparison)],
                         ["met"])

    def test_pingpong_runs(self):
        line = ("BENCH pingpong_on pingpong trips=4000 chunk=20 ns=1 cycles=2 chunk_min=1000 "
                "chunk_median=1200 hits=8041")
        runs = bench_linux.PingPongRuns(bench_linux.parse_guest([line]), "pingpong_on")
        self.assertEqual(runs.per_trip(), (50.0, 60.0))
        self.assertAlmostEqual(runs.matches(), 2000.25, places=2)

    def test_icount_row(self):
        cells = [c.strip() for c in icount.results_row("function", 160).split("|")[1:-1]]
        self.assertEqual(cells[:4], ["instructions per traced call, function", "160", "667",
                                     "0.24"])
        self.assertTrue(cells[4].endswith("(Linux: 2026-11-21)"))
        replaced = bench_results.update([icount.results_row("function", 160)], self.path)
        self.assertEqual(replaced, ["instructions per traced call, function"])


if __name__ == "__main__":
    unittest.main()
