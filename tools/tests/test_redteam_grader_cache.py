"""The red team's own copy of the grader's libraries (redteam.Runner._lay_grader_cache): every
tree of a run imports it, and a grade that changes it fails and leaves the next grade a fresh
copy. The control: a grade that does not touch it passes this check."""
import argparse
import os
import shutil
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from halo.dev import redteam


class RunnersCache(unittest.TestCase):
    def setUp(self):
        self.work = Path(tempfile.mkdtemp(prefix="halo-redteam-cache-"))
        self.addCleanup(shutil.rmtree, self.work, True)
        self.checks = self.work / "check-cache" / "0123abcd"
        self.checks.mkdir(parents=True)
        (self.checks / "libhalo_cpu_runtime.a").write_bytes(b"!<arch>\n")
        (self.work / "check-cache" / ".staging-1").mkdir()  # a publish under way: not copied
        (self.work / "checkout").mkdir()  # nothing in it changes: only the cache is judged here
        args = argparse.Namespace(seed="1", tmp="shared", checkout=str(self.work / "checkout"), timeout=60, settle=0,
                                  tmp_ignore=["*"], as_limit=None, nproc=0)
        self.runner = redteam.Runner(Path("."), self.work / "run", args)
        self.addCleanup(self.runner.removal.close)
        self.runner.extra_secrets = []  # what prepare_checkout sets: no course of the checkout's own
        with mock.patch.dict(os.environ, {"HALO_GRADER_CACHE": str(self.work / "check-cache")}):
            self.runner._lay_grader_cache()

    def grade(self, script):
        results = self.work / "results.json"
        results.write_text("{}")
        return self.runner.grade_once([sys.executable, "-c", script], self.work, self.runner._env(), None, results,
                                      "7.2", self.work / "log", lambda path, section: (0.0, "", None), lambda: [])

    def test_a_copy_of_the_checks_libraries_is_what_the_grades_see(self):
        cache = self.runner.grader_cache
        self.assertEqual(self.runner._env()["HALO_GRADER_CACHE"], str(cache))
        self.assertTrue((cache / "0123abcd" / "libhalo_cpu_runtime.a").is_file())
        self.assertFalse((cache / ".staging-1").exists())

    def test_a_grade_that_changes_it_fails_and_the_copy_is_laid_again(self):
        out = self.grade("import os; open(os.environ['HALO_GRADER_CACHE'] + '/0123abcd/libhalo_cpu_runtime.a', 'ab').write(b'x')")
        self.assertIn("changed the grader's library cache, which the next grades import", out.problems)
        lib = self.runner.grader_cache / "0123abcd" / "libhalo_cpu_runtime.a"
        self.assertEqual(lib.read_bytes(), b"!<arch>\n")

    def test_control_a_grade_that_leaves_it_alone(self):
        out = self.grade("import os; os.listdir(os.environ['HALO_GRADER_CACHE'])")
        self.assertFalse([p for p in out.problems if "library cache" in p], out.problems)


if __name__ == "__main__":
    unittest.main()
