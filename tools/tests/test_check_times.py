"""docs/results/check-times.md's extractor (issue 36, item 5): times per CTest label come from a
run's own LastTest.log and ctest's label listing, and a log it cannot read is refused by line."""
import contextlib
import io
import json
import shutil
import tempfile
import unittest
from pathlib import Path

from halo.dev import check, check_times

LOG = """Start testing: Nov 27 01:26 UTC
----------------------------------------------------------
1/2 Testing: project: red team as root
1/2 Test: project: red team as root
Output:
----------------------------------------------------------
120 passed, 0 failed
<end of output>
Test time = 900.50 sec
----------------------------------------------------------
Test Passed.
"project: red team as root" end time: Nov 27 01:41 UTC

2/2 Testing: stubs: 7.2 / every test fails cleanly
2/2 Test: stubs: 7.2 / every test fails cleanly
Output:
----------------------------------------------------------
7.2: 3 tests did not fail cleanly
<end of output>
Test time =   2.25 sec
----------------------------------------------------------
Test Failed.
End testing: Nov 27 01:42 UTC
"""

LABELS = json.dumps({"tests": [
    {"name": "project: red team as root",
     "properties": [{"name": "LABELS", "value": ["project", "redteam"]}, {"name": "TIMEOUT", "value": 3600}]},
    {"name": "stubs: 7.2 / every test fails cleanly", "properties": [{"name": "LABELS", "value": ["stubs", "7.2"]}]},
]})


class CheckTimes(unittest.TestCase):
    def test_each_test_s_time_and_verdict_come_from_the_log(self):
        tests, run = check_times.read_log(LOG)
        self.assertEqual(tests, {"project: red team as root": (900.5, "Passed"),
                                 "stubs: 7.2 / every test fails cleanly": (2.25, "Failed")})
        self.assertEqual(run, {"start": "Nov 27 01:26 UTC", "end": "Nov 27 01:42 UTC"})

    def test_labels_sum_each_test_once_per_label(self):
        tests, _ = check_times.read_log(LOG)
        rows = check_times.per_label(tests, check_times.read_labels(LABELS))
        self.assertEqual(rows, [("project", 1, 900.5), ("redteam", 1, 900.5), ("7.2", 1, 2.25), ("stubs", 1, 2.25)])

    def test_the_table_states_the_run_and_the_total(self):
        tests, run = check_times.read_log(LOG)
        text = check_times.table(tests, check_times.read_labels(LABELS), run)
        self.assertIn("CTest run: Nov 27 01:26 UTC to Nov 27 01:42 UTC; 2 tests, 903 s of test time in all", text)
        self.assertIn("| all tests | 2 | 903 |", text)
        self.assertIn("| project: red team as root | 900 | Passed |", text)

    def test_a_test_with_no_time_is_refused_by_its_line(self):
        cut = LOG.replace("Test time = 900.50 sec\n", "")
        with self.assertRaisesRegex(check_times.LogError, r"^line 4: test 'project: red team as root' has no 'Test time'"):
            check_times.read_log(cut)


    def test_both_runs_of_the_check_are_read(self):
        # The check's second CTest run (the answers) replaces LastTest.log: the table reads the
        # copies check.py keeps of both, and CTest's last log only when there are none (the control).
        build = Path(tempfile.mkdtemp(prefix="halo-check-times-"))
        self.addCleanup(shutil.rmtree, build, True)
        (build / "Testing" / "Temporary").mkdir(parents=True)
        first, second = LOG.split("2/2 Testing: ")
        answers = first.split("1/2 Testing: ")[0] + "1/1 Testing: " + second.replace("2/2", "1/1")
        (build / "Testing" / "Temporary" / "LastTest.log").write_text(answers)
        labels = build / "labels.json"
        labels.write_text(LABELS)

        def table():
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(check_times.main([str(build), "--labels-json", str(labels)]), 0)
            return out.getvalue()
        self.assertIn("1 tests, 2 s of test time", table())
        check.kept_log(build, check.RUNS[0]).write_text(first + "End testing: Nov 27 01:41 UTC\n")
        check.kept_log(build, check.RUNS[1]).write_text(answers)
        self.assertIn("CTest run: Nov 27 01:26 UTC to Nov 27 01:42 UTC; 2 tests, 903 s of test time", table())


if __name__ == "__main__":
    unittest.main()
