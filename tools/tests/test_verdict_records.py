"""verdict_records.py: what a kernel's test binary said, compared across architectures."""
import json
import os
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from halo.dev import verdict_records

RUN = """backend: cpu; inputs from HALO_SEED=42 (set it to replay this run)
TEST CASE:  7.2 basic-1d / correct / width 1
    at block (0,0,0) thread (1,0,0), build/check/wrong/7.2-basic-1d/x/convolution_1d_basic.cu:23
TEST CASE:  7.2 basic-1d / loads / exactly its neighbours
    at block (0,0,0) thread (0,0,0), build/aarch64-linux-gnu/wrong/7.2-basic-1d/x/convolution_1d_basic.cu:23
"""

# An endless loop as 7.2's "loop counter never advances" reports it: the line is where the time
# limit interrupted the thread.
STOPPED = """TEST CASE:  7.2 basic-1d / correct / width 7
    launch did not finish: the launch did not finish within 0.5 s of CPU time (HALO_LAUNCH_TIMEOUT); this thread was still running: an endless loop?
        still running when it was stopped: 256 threads of block (0,0,0); 0 blocks never started
        at block (0,0,0) thread (0,0,0), build/check/wrong/7.2-basic-1d/x/convolution_1d_basic.cu:27
"""


class Records(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="halo-verdicts-"))
        self.addCleanup(lambda: __import__("shutil").rmtree(self.dir, True))

    def write(self, folder, name, code, out):
        with mock.patch.dict(os.environ, {"HALO_VERDICT_DIR": str(self.dir / folder)}):
            verdict_records.record(name, code, out)

    def test_summary_keeps_what_must_not_depend_on_the_architecture(self):
        s = verdict_records.summary(1, RUN)
        self.assertEqual(s["seed"], "42")
        self.assertEqual(s["failed"], ["7.2 basic-1d / correct / width 1", "7.2 basic-1d / loads / exactly its neighbours"])
        self.assertEqual(s["lines"], ["convolution_1d_basic.cu:23"])  # the build folder is not part of it

    def test_the_same_run_compares_equal_and_a_changed_line_does_not(self):
        self.write("x86", "t", 1, RUN)
        self.write("arm", "t", 1, RUN.replace("/x/", "/y/"))
        self.assertEqual(verdict_records.compare(self.dir / "x86", self.dir / "arm"), (["t"], [], []))
        self.write("arm", "t", 1, RUN.replace(".cu:23\nTEST", ".cu:24\nTEST"))
        same, different, _ = verdict_records.compare(self.dir / "x86", self.dir / "arm")
        self.assertEqual(same, [])
        self.assertIn("convolution_1d_basic.cu:24", different[0][1])
        self.write("arm", "t", 0, "")
        self.assertIn("exit: 1 here, 0 there", verdict_records.compare(self.dir / "x86", self.dir / "arm")[1][0][1])

    def test_where_an_endless_loop_was_stopped_is_compared_by_its_file_only(self):
        s = verdict_records.summary(1, RUN + STOPPED)
        self.assertEqual(s["lines"], ["convolution_1d_basic.cu:23"])
        self.assertEqual(s["stopped_in"], ["convolution_1d_basic.cu"])
        self.write("x86", "t", 1, RUN + STOPPED)
        self.write("arm", "t", 1, RUN + STOPPED.replace(".cu:27", ".cu:25"))
        self.assertEqual(verdict_records.compare(self.dir / "x86", self.dir / "arm"), (["t"], [], []))
        # ... but a loop stopped in another file, or not stopped at all, is a difference
        self.write("arm", "t", 1, RUN + STOPPED.replace("convolution_1d_basic.cu:27", "helpers.cuh:3"))
        self.assertIn("stopped_in", verdict_records.compare(self.dir / "x86", self.dir / "arm")[1][0][1])
        self.write("arm", "t", 1, RUN)
        self.assertIn("stopped_in", verdict_records.compare(self.dir / "x86", self.dir / "arm")[1][0][1])

    def test_a_line_quoted_by_another_diagnostic_is_compared_exactly(self):
        crash = STOPPED.replace("launch did not finish: ", "crash: ")
        self.write("x86", "t", 1, crash)
        self.write("arm", "t", 1, crash.replace(".cu:27", ".cu:25"))
        self.assertIn("convolution_1d_basic.cu:25", verdict_records.compare(self.dir / "x86", self.dir / "arm")[1][0][1])

    def test_a_kernel_without_a_base_record_is_named(self):
        self.write("arm", "only-here", 1, RUN)
        (self.dir / "x86").mkdir()
        self.assertEqual(verdict_records.compare(self.dir / "x86", self.dir / "arm"), ([], [], ["only-here"]))

    def test_the_base_seed_is_replayed(self):
        self.write("x86", "t", 1, RUN)
        with mock.patch.dict(os.environ, {"HALO_VERDICT_BASE": str(self.dir / "x86")}):
            self.assertEqual(verdict_records.base_seed("t"), "42")
            self.assertIsNone(verdict_records.base_seed("other"))
        self.assertEqual(json.loads((self.dir / "x86" / "t.json").read_text())["exit"], 1)


if __name__ == "__main__":
    unittest.main()
