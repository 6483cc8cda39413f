"""expect-failure's and learner-kernel's --binary-arg: the options reach the one run of a
known-wrong or learner kernel's binary, so that a tree of 7.9 can leave out the tests of the file
it shares with the reference. A fake test binary (a shell script) says which options it was given."""
import os
import stat
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from halo.dev import expect_failure
from tests.helpers import REPO_ROOT

# A run fails with its options in the output (as a failing doctest binary exits 1 with its
# messages), and leaves a mark beside itself: a run in another process shows too.
FAKE = """#!/bin/sh
touch "$0.ran"
echo "failed; options: $*"
exit 1
"""


class BinaryArgs(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.binary = Path(self.dir.name) / "test_fake"
        self.binary.write_text(FAKE)
        self.binary.chmod(self.binary.stat().st_mode | stat.S_IXUSR)
        self.runs = []
        real = expect_failure._run

        def spy(cmd, extra_env=None):
            self.runs.append(cmd)
            return real(cmd, extra_env)
        patcher = mock.patch.object(expect_failure, "_run", spy)
        patcher.start()
        self.addCleanup(patcher.stop)
        self.addCleanup(self.dir.cleanup)
        env = mock.patch.dict(os.environ, {}, clear=False)
        env.start()
        self.addCleanup(env.stop)
        os.environ.pop("HALO_VERDICT_DIR", None)
        os.environ.pop("HALO_VERDICT_BASE", None)

    def test_a_known_wrong_kernel_runs_with_the_options(self):
        arg = "--source-file-exclude=*/test_b.cpp"
        self.assertEqual(expect_failure.wrong_kernel_caught(str(self.binary), r"options: .*test_b", "fake", None,
                                                            [arg]), 0)
        self.assertEqual(self.runs, [[str(self.binary), arg]])

    def test_without_options_the_run_is_the_whole_binary(self):
        # The control: the expected text names the option, so a run without it is not caught.
        self.assertEqual(expect_failure.wrong_kernel_caught(str(self.binary), r"options: .*test_b", "fake"), 1)
        self.assertEqual(self.runs, [[str(self.binary)]])

    def test_every_test_refuses_the_options(self):
        # Each test of --every-test runs on its own: an option meant for one whole run is refused,
        # never dropped without a word.
        p = subprocess.run([sys.executable, "-S", str(REPO_ROOT / "workbook"), "internal", "expect-failure",
                            "--every-test", "--binary", str(self.binary), "--binary-arg=--source-file=*/x.cpp"],
                           capture_output=True, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("--binary-arg goes with --wrong-kernel", p.stderr)
        self.assertFalse(Path(f"{self.binary}.ran").exists(), "the binary ran")


if __name__ == "__main__":
    unittest.main()
