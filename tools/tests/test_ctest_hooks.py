"""Plain ctest's summary (student/ctest_hooks.py) from a fabricated LastTest.log: every test with
its status, a failure's message as grade shows it, and nothing when ./workbook grade drives."""
import contextlib
import io
import os
import unittest
from unittest import mock

from halo.core.chapter_data import load_chapter
from halo.student import ctest_hooks

from .helpers import REPO_ROOT, scratch_dir

BLOCK = """{k}/2 Testing: {name}
{k}/2 Test: {name}
Command: "/b/grader/test_7_2" "--test-case={name}"
Directory: /b/grader
"{name}" start time: Nov 24 13:17 UTC
Output:
----------------------------------------------------------
{output}
<end of output>
Test time =   0.04 sec
----------------------------------------------------------
Test {status}.
"{name}" end time: Nov 24 13:17 UTC
----------------------------------------------------------

"""
FAILING = """backend: cpu
/src/test_basic_1d.cpp:40: ERROR: launch with Width = 7, Mask_Width = 5, 256 threads per block:
out-of-bounds access: read of N[-2], outside N[0..6] (7 elements): a ghost cell before the first element
===============================================================================
[doctest] Status: FAILURE!"""


class Summary(unittest.TestCase):
    def setUp(self):
        self.build = scratch_dir("halo-ctest-")
        log = self.build / "Testing" / "Temporary" / "LastTest.log"
        log.parent.mkdir(parents=True)
        log.write_text("Start testing\n----\n" +
                       BLOCK.format(k=1, name="7.2 basic-1d / correct / exercise 2", output="ok", status="Passed") +
                       BLOCK.format(k=2, name="7.2 basic-1d / correct / width 1", output=FAILING, status="Failed"))
        self.chapter = load_chapter(REPO_ROOT)

    def test_the_log_gives_every_test_and_its_status(self):
        tests = ctest_hooks.read_last_test_log(self.build)
        self.assertEqual([(t["name"], t["status"]) for t in tests],
                         [("7.2 basic-1d / correct / exercise 2", "passed"), ("7.2 basic-1d / correct / width 1", "failed")])
        self.assertTrue(tests[1]["message"].startswith("launch with Width = 7"))

    def test_the_summary_prints_the_failure_with_its_message(self):
        with mock.patch.dict(os.environ, {}, clear=False), contextlib.redirect_stdout(io.StringIO()) as out:
            os.environ.pop(ctest_hooks.DRIVER_ENV, None)
            self.assertEqual(ctest_hooks.after(self.chapter, self.build), 0)
        self.assertIn("FAILED 7.2 basic-1d / correct / width 1", out.getvalue())
        self.assertIn("out-of-bounds access: read of N[-2]", out.getvalue())
        self.assertIn("1 of 2 tests failed.", out.getvalue())

    def test_nothing_when_grade_drives_ctest(self):
        with mock.patch.dict(os.environ, {ctest_hooks.DRIVER_ENV: "grade"}), \
                contextlib.redirect_stdout(io.StringIO()) as out:
            self.assertEqual(ctest_hooks.after(self.chapter, self.build), 0)
        self.assertEqual(out.getvalue(), "")


if __name__ == "__main__":
    unittest.main()
