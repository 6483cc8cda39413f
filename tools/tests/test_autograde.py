"""run_autograder's one process (halo/course/autograde.py): the submission laid out, the submitter
found, the grade and the export called as the four scripts called them, and a broken step leaving
the next to run."""
import contextlib
import io
import json
import shutil
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from halo.course import autograde

from .helpers import REPO_ROOT, stubs


class OneProcess(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="halo-autograde-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.halo = self.tmp / "source" / "halo"
        shutil.copytree(REPO_ROOT / "chapters", self.halo / "chapters")
        shutil.copytree(stubs(), self.halo / "exercises")
        (self.tmp / "submission" / "7.2-basic-1d").mkdir(parents=True)
        (self.tmp / "submission" / "7.2-basic-1d" / "convolution_1d_basic.cu").write_text("// mine\n")
        (self.tmp / "submission_metadata.json").write_text(json.dumps({"users": [{"sid": "olivia", "email": "o@x.edu"}]}))
        self.work = self.tmp / "halo-work"
        self.work.mkdir()
        self.calls = []

    def run_it(self, main):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), mock.patch.dict("os.environ"):
            code = autograde.run(self.halo, self.tmp, self.work, self.work / "build", self.tmp / "results.json", 0, main)
        return code, out.getvalue()

    def record(self, root, argv):
        self.calls.append(argv)
        return 0

    def test_grade_then_export_with_the_note_and_the_student(self):
        code, printed = self.run_it(self.record)
        self.assertEqual(code, 0)
        grade, export = self.calls
        self.assertEqual(grade, ["grade", "--exercises", str(self.work / "exercises"), "--build-dir",
                                 str(self.work / "build"), "--student", "olivia"])
        self.assertEqual(export[:6], ["export", "gradescope", "--results", str(self.work / "build" / "results.json"),
                                      "--out", str(self.tmp / "results.json")])
        self.assertEqual(export[-2:], ["--preamble", str(self.work / "submission.txt")])
        note = (self.work / "submission.txt").read_text()
        self.assertIn("7.2-basic-1d", note)
        self.assertTrue(printed.startswith(note), printed)  # the log begins with the note
        self.assertEqual((self.work / "exercises" / "7.2-basic-1d" / "convolution_1d_basic.cu").read_text(), "// mine\n")

    def test_a_grade_that_breaks_still_gets_its_export(self):
        def main(root, argv):
            self.calls.append(argv[0])
            if argv[0] == "grade":
                raise RuntimeError("the build exploded")
            return 0
        code, printed = self.run_it(main)
        self.assertEqual(self.calls, ["grade", "export"])
        self.assertEqual(code, 0)
        self.assertIn("halo autograde: grading broke", printed)
        self.assertIn("the build exploded", printed)

    def test_a_failed_export_is_the_exit_status(self):
        code, _ = self.run_it(lambda root, argv: "halo: cannot write results" if argv[0] == "export" else 0)
        self.assertNotEqual(code, 0)  # run_autograder then writes its zero-score results

    def test_an_unreadable_chapter_grades_nothing(self):
        shutil.rmtree(self.halo / "chapters")
        code, printed = self.run_it(self.record)
        self.assertEqual(code, 1)
        self.assertEqual(self.calls, [])
        self.assertIn("halo:", (self.work / "submission.txt").read_text())


if __name__ == "__main__":
    unittest.main()
