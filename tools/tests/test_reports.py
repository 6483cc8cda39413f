"""What a grade run shows and leaves behind: progress lines, one merged JUnit file, colour only on
a terminal."""
import io
import os
import tempfile
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path
from unittest import mock

from halo.core import progress, results


class Tty(io.StringIO):
    def isatty(self):
        return True


JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="(empty)" tests="3">
 <testcase name="7.2 basic-1d / correct / a" status="run"/>
 <testcase name="7.2 basic-1d / correct / b" status="fail"><failure message="x"/></testcase>
 <testcase name="gpu: 7.2 basic-1d / correct / a" status="notrun"><skipped message="y"/></testcase>
</testsuite>
"""


class ProgressLines(unittest.TestCase):
    def test_plain_stream_gets_a_start_and_an_end_line(self):
        out = io.StringIO()
        with progress.Progress("building 7.2", stream=out) as p:
            p.update(3, 7)
        lines = out.getvalue().splitlines()
        self.assertEqual(lines[0], "building 7.2...")
        self.assertRegex(lines[1], r"^building 7\.2: 3 of 7 run, done in \d+ s$")  # run, never read as passed
        self.assertNotIn("\033", out.getvalue())

    def test_terminal_gets_a_line_redrawn_in_place(self):
        out = Tty()
        with progress.Progress("running the kernels tests", stream=out, interval=0.01) as p:
            p.update(1, 2)
        self.assertIn("\r\033[K", out.getvalue())
        self.assertIn("1 of 2 run", out.getvalue())

    def test_an_exception_is_said_and_not_swallowed(self):
        out = io.StringIO()
        with self.assertRaises(KeyboardInterrupt):
            with progress.Progress("building", stream=out):
                raise KeyboardInterrupt
        self.assertIn("interrupted", out.getvalue())


class OneJunitFile(unittest.TestCase):
    def test_every_record_round_trips_with_counts(self):
        with tempfile.TemporaryDirectory() as d:
            a = Path(d, "a.xml")
            a.write_text(JUNIT)
            tests = results.read_junit(a)
            tests[1]["message"] = "P[3] is 2.5, expected 4\nsecond line"
            tests.append({"name": "7.1 background / answers / q", "section": "7.1", "kind": "answers",
                          "status": "failed", "message": "q: wrong\nanswers.toml:3: q = 2 is not right",
                          "seconds": 0.01})
            out = Path(d, "junit.xml")
            results.write_junit(tests, out)
            root = ET.parse(out).getroot()
            self.assertEqual((root.get("tests"), root.get("failures"), root.get("skipped")), ("4", "2", "1"))
            again = results.read_junit(out)
            self.assertEqual([(t["name"], t["status"], t["message"]) for t in again],
                             [(t["name"], t["status"], t["message"]) for t in tests])


class Colour(unittest.TestCase):
    def test_only_on_a_terminal_and_not_with_no_color(self):
        with mock.patch.dict(os.environ, {}, clear=False):
            os.environ.pop("NO_COLOR", None)
            self.assertEqual(results._colour("PASS", "32", io.StringIO()), "PASS")
            self.assertEqual(results._colour("PASS", "32", Tty()), "\033[32mPASS\033[0m")
            os.environ["NO_COLOR"] = "1"
            self.assertEqual(results._colour("PASS", "32", Tty()), "PASS")


if __name__ == "__main__":
    unittest.main()


class IdleNote(unittest.TestCase):
    def test_a_long_wait_is_said_once_on_a_plain_stream(self):
        import time as _time
        out = io.StringIO()
        with progress.Progress("running the kernels tests", stream=out, interval=0.02, idle_note="still waiting",
                      idle_seconds=0.05):
            deadline = _time.monotonic() + 30  # no timing is tested: the note comes, however slowly
            while "still waiting" not in out.getvalue() and _time.monotonic() < deadline:
                _time.sleep(0.02)
            _time.sleep(0.1)
        self.assertEqual(out.getvalue().count("(still waiting)"), 1, out.getvalue())
