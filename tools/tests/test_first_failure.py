"""The first failing kernel test is shown as it ends, on a terminal only, once; CTest's output is
cut into each failed test's own output."""
import io
import os
import stat
import tempfile
import unittest
from pathlib import Path
from types import SimpleNamespace

from halo.core import build, progress
from halo.student.first_failure import FirstFailure

DOCTEST = """[doctest] doctest version is "2.4.11"
===============================================================================
/g/test_basic_1d.cpp:40:
TEST CASE:  7.2 basic-1d / correct / width 1

/g/test_basic_1d.cpp:41: ERROR: launch with Width = 1, Mask_Width = 3:
out-of-bounds access: read of N[-1]

===============================================================================
"""
STUB = DOCTEST.replace("out-of-bounds access: read of N[-1]", "still a stub: exercises/7.2-basic-1d/k.cu:15: TODO: write the kernel")

CTEST = f"""Test project /b
    Start 1: 7.2 basic-1d / correct / a
    Start 2: 7.2 basic-1d / correct / width 1
1/3 Test #1: 7.2 basic-1d / correct / a ........   Passed    0.10 sec
2/3 Test #2: 7.2 basic-1d / correct / width 1 ...***Failed    0.20 sec
{DOCTEST}    Start 3: 7.2 basic-1d / correct / b
3/3 Test #3: 7.2 basic-1d / correct / b ........***Failed    0.30 sec
{STUB}
33% tests passed, 2 tests failed out of 3
"""


class Stream(io.StringIO):
    def __init__(self, tty):
        super().__init__()
        self.tty = tty

    def isatty(self):
        return self.tty


class FirstFailureShown(unittest.TestCase):
    def run_with(self, tty, calls):
        out = Stream(tty)
        with progress.Progress("running", stream=out) as p:
            first = FirstFailure(p)
            for name, output in calls:
                first(name, output)
        return first.shown, out.getvalue()

    def test_on_a_terminal_the_first_failure_is_shown_once(self):
        shown, text = self.run_with(True, [("7.2 basic-1d / correct / width 1", DOCTEST),
                                           ("7.2 basic-1d / correct / b", DOCTEST)])
        self.assertEqual(shown, "7.2 basic-1d / correct / width 1")
        self.assertEqual(text.count("out-of-bounds access: read of N[-1]"), 1)
        self.assertIn("FAILED 7.2 basic-1d / correct / width 1 (the first to fail", text)

    def test_stubs_answers_and_logs_show_nothing_early(self):
        for tty, calls in ((True, [("7.2 basic-1d / correct / b", STUB)]),
                           (True, [("7.2 basic-1d / answers / q1", DOCTEST)]),
                           (False, [("7.2 basic-1d / correct / width 1", DOCTEST)])):
            with self.subTest(tty=tty, name=calls[0][0]):
                shown, text = self.run_with(tty, calls)
                self.assertIsNone(shown)
                self.assertNotIn("N[-1]", text)


class CTestOutput(unittest.TestCase):
    def test_each_failed_test_gets_its_own_output_as_it_ends(self):
        with tempfile.TemporaryDirectory() as d:
            fake = Path(d) / "ctest"
            (Path(d) / "out.txt").write_text(CTEST)
            fake.write_text(f"#!/bin/sh\ncat '{d}/out.txt'\n")
            fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
            got = []
            status, _ = build.run_ctest(SimpleNamespace(ctest=str(fake)), d,
                                        on_failed=lambda name, output: got.append((name, output)))
        self.assertEqual(status, 0)
        self.assertEqual([n for n, _ in got], ["7.2 basic-1d / correct / width 1", "7.2 basic-1d / correct / b"])
        self.assertEqual(got[0][1], DOCTEST)
        self.assertEqual(got[1][1], STUB + "\n")


if __name__ == "__main__":
    unittest.main()
