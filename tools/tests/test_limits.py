"""Issue 32, item 6: hard limits tighter than what a step asks for are fitted under, and a hard
limit too tight for grading stops the grade with one line, before anything is built or graded.
Each case runs in a child whose hard limits are lowered first (a hard limit cannot be raised
again); no build is needed. The worker's own fitting is proven in
grader/remote/tests/worker_process_test.cpp ("hard limits below the worker's")."""
import resource
import subprocess
import sys
import unittest

from halo.core import limits

from .helpers import REPO_ROOT, scratch_dir

TOOLS = REPO_ROOT / "tools"


def _lowered(pairs):
    """A preexec_fn that lowers these hard (and soft) limits in the child."""
    def apply():
        for res, value in pairs:
            resource.setrlimit(res, (value, value))
    return apply


def _python(code, pairs):
    return subprocess.run([sys.executable, "-c", code], cwd=TOOLS, capture_output=True, text=True,
                          preexec_fn=_lowered(pairs), timeout=120)


class Fitted(unittest.TestCase):
    def test_a_limit_above_the_hard_limit_is_cut_to_it(self):
        # The compile asks for 120 s of CPU; the account allows 100.
        p = _python("from halo.core import limits, sandbox; import resource;"
                    "print(limits.fitted(resource.RLIMIT_CPU, sandbox.COMPILE_SECONDS))",
                    [(resource.RLIMIT_CPU, 100)])
        self.assertEqual(p.stdout.strip(), "(100, 100)", p.stderr)

    def test_a_limit_below_the_hard_limit_is_kept(self):
        self.assertEqual(limits.fitted(resource.RLIMIT_CORE, 0), (0, 0))

    def test_control_asking_for_more_than_the_hard_limit_fails(self):
        # What every step did before: the request itself is refused, so nothing would start.
        p = _python("import resource; resource.setrlimit(resource.RLIMIT_CPU, (120, 120))",
                    [(resource.RLIMIT_CPU, 100)])
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("not allowed to raise maximum limit", p.stderr)

    def test_the_sandboxed_compile_starts_under_a_tighter_hard_limit(self):
        # sandbox.run with the compile's limits (120 s, 4 GiB) under 100 s and 3 GiB hard limits.
        p = _python("from halo.core import sandbox; print(sandbox.run(['/bin/echo', 'started'], cwd='/tmp'))",
                    [(resource.RLIMIT_CPU, 100), (resource.RLIMIT_AS, 3 << 30)])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("(0, 'started\\n')", p.stdout)


class Shortfall(unittest.TestCase):
    def test_no_shortfall_under_the_needed_values(self):
        # Exactly what grading needs is enough (processes: root's workers have uids of their own).
        p = _python("from halo.core import limits; print(limits.shortfall())",
                    [(n.resource, n.needed) for n in limits.NEEDS])
        self.assertEqual(p.stdout.strip(), "None", p.stderr)

    def test_each_limit_too_tight_is_named_with_the_value_needed(self):
        for need in limits.NEEDS:
            with self.subTest(limit=need.name):
                p = _python("from halo.core import limits; print(limits.shortfall())",
                            [(need.resource, need.needed - need.unit)])
                line = p.stdout.strip()
                self.assertIn(need.name, line)
                self.assertIn(f"ulimit -H{need.flag} {-(-need.needed // need.unit)} or more", line)
                self.assertEqual(len(line.splitlines()), 1)

    def test_grade_stops_with_one_line_and_grades_nothing(self):
        # A course server with `ulimit -Ht 5`: one line, a non-zero exit, no build and no results.
        build = scratch_dir() / "build"
        p = subprocess.run([sys.executable, str(REPO_ROOT / "workbook"), "grade", "7.2", "--build-dir", str(build)],
                           cwd=REPO_ROOT, capture_output=True, text=True, timeout=120,
                           preexec_fn=_lowered([(resource.RLIMIT_CPU, 5)]))
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stdout, "")
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("CPU time", p.stderr)
        self.assertIn("ulimit -Ht 30 or more", p.stderr)
        self.assertFalse(build.exists())

    def test_grade_class_stops_with_one_line_and_writes_no_gradebook(self):
        work = scratch_dir()
        (work / "class" / "ada").mkdir(parents=True)
        out = work / "out"
        p = subprocess.run([sys.executable, str(REPO_ROOT / "workbook"), "grade-class", str(work / "class"),
                            "--out", str(out)], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120,
                           preexec_fn=_lowered([(resource.RLIMIT_FSIZE, 1 << 20)]))
        self.assertEqual(p.returncode, 2)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("file size", p.stderr)
        self.assertFalse(out.exists())


if __name__ == "__main__":
    unittest.main()
