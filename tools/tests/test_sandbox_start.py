"""sandbox.start: a sandboxed step started now and finished later (compile_sandboxed.py generates
the object while the IR is validated). Its result is run()'s, and a step past its limit is
stopped, under every isolation a grade may run with."""
import os
import unittest
from unittest import mock

from halo.core import sandbox


class StartThenFinish(unittest.TestCase):
    ISOLATIONS = ("auto", "rlimits-only")

    def test_the_result_is_run_s(self):
        for isolation in self.ISOLATIONS:
            with self.subTest(isolation), mock.patch.dict(os.environ, {"HALO_SANDBOX": isolation}):
                step = sandbox.start(["/bin/sh", "-c", "echo made; exit 3"], cwd="/tmp")
                self.assertEqual(step.finish(), sandbox.run(["/bin/sh", "-c", "echo made; exit 3"], cwd="/tmp"))
                self.assertEqual(sandbox.start(["/bin/echo", "made"], cwd="/tmp").finish(), (0, "made\n"))

    def test_a_step_past_its_limit_is_stopped(self):
        for isolation in self.ISOLATIONS:
            with self.subTest(isolation), mock.patch.dict(os.environ, {"HALO_SANDBOX": isolation}):
                status, output = sandbox.start(["/bin/sleep", "600"], cwd="/tmp", seconds=1).finish()
                self.assertEqual(status, 124)
                self.assertIn("stopped after 1 s", output)

if __name__ == "__main__":
    unittest.main()
