"""`./workbook submit` (issue 34, item 4): the Gradescope zip keeps each file in its section's folder,
so the grader's own intake places every file of it; problems are named with their lines before
the student hands anything in; for Classroom, what is not committed yet and the commands."""
import contextlib
import io
import shutil
import subprocess
import tempfile
import unittest
import zipfile
from pathlib import Path

from halo.core import intake
from halo.core.chapter_data import load_chapter
from halo.student import submit
from tests.helpers import REPO_ROOT, stubs


class Submit(unittest.TestCase):
    def setUp(self):
        self.root = Path(tempfile.mkdtemp(prefix="halo-submit-"))
        self.addCleanup(shutil.rmtree, self.root, True)
        self.chapter = load_chapter(REPO_ROOT)
        shutil.copytree(stubs(), self.root / "exercises")

    def run_submit(self, sections, to):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = submit.run(self.root, self.chapter, sections, to)
        return code, out.getvalue()

    def test_the_gradescope_zip_is_placed_whole_by_the_graders_intake(self):
        (self.root / "exercises/7.2-basic-1d/answers.toml").write_text("loads_total = 12\n")
        code, said = self.run_submit(["7.2", "7.4"], "gradescope")
        self.assertEqual(code, 0, said)
        self.assertIn("wrote build/submit/halo-submission.zip", said)
        unpacked = self.root / "unpacked"
        with zipfile.ZipFile(self.root / submit.ZIP) as z:
            names = z.namelist()
            z.extractall(unpacked)
        self.assertIn("exercises/7.2-basic-1d/answers.toml", names)
        self.assertIn("exercises/7.4-tiled-1d/convolution_1d_tiled.cu", names)
        notes = intake.take_submission(self.chapter, unpacked, stubs(), self.root / "graded")
        self.assertEqual((self.root / "graded/7.2-basic-1d/answers.toml").read_text(), "loads_total = 12\n")
        self.assertFalse([n for n in notes if "ignored" in n or "refused" in n], notes)

    def test_problems_are_named_with_their_lines_before_handing_in(self):
        kernel = self.root / "exercises/7.2-basic-1d/convolution_1d_basic.cu"
        kernel.write_text(kernel.read_text() + '\n__device__ void f() { asm("nop"); }\n')
        (self.root / "exercises/7.2-basic-1d/answers.toml").write_text("loads_total = 12\nloads_first_block = 337/37\n")
        code, said = self.run_submit(["7.2"], "gradescope")
        self.assertEqual(code, 1)
        self.assertIn("check: exercises/7.2-basic-1d/convolution_1d_basic.cu:", said)
        self.assertIn("inline asm", said)
        self.assertIn("check: exercises/7.2-basic-1d/answers.toml:2:", said)
        self.assertIn("2 problems above", said)

    def test_classroom_says_what_is_not_committed_and_how_to_hand_in(self):
        git = ["git", "-C", str(self.root), "-c", "user.name=s", "-c", "user.email=s@x"]
        subprocess.run(git + ["init", "-q"], check=True)
        subprocess.run(git + ["add", "exercises"], check=True)
        subprocess.run(git + ["commit", "-qm", "start"], check=True)
        code, said = self.run_submit(["7.2"], "classroom")
        self.assertIn("everything in exercises/ is committed", said)
        (self.root / "exercises/7.2-basic-1d/answers.toml").write_text("loads_total = 12\n")
        code, said = self.run_submit(["7.2"], "classroom")
        self.assertEqual(code, 0, said)
        self.assertIn("not committed yet: exercises/7.2-basic-1d/answers.toml", said)
        self.assertIn('git add exercises && git commit -m "Submit 7.2" && git push', said)


if __name__ == "__main__":
    unittest.main()
