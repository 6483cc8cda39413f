"""Issue 32, item 7: no cell of a CSV the project writes runs as a formula in a spreadsheet.
The neutraliser (core/spreadsheet.py), every CSV writer of the project (the gradebook is the only
one), the red-team runner's independent check of the gradebook, and a control: the same gradebook
written without the neutraliser holds a formula the check catches."""
import csv
import unittest
from unittest import mock

from halo.core import spreadsheet
from halo.core.chapter_data import load_chapter
from halo.core import assignment
from halo.course import class_submissions, gradebook
from halo.dev import redteam

from .helpers import REPO_ROOT, scratch_dir

DDE = "+cmd|' /C calc'!A0"


class Neutralise(unittest.TestCase):
    def test_each_trigger_gets_a_quote(self):
        for cell in ("=1+1", DDE, "-2+3", "@SUM(A1:A9)", "\t=1", "\r=1", "=HYPERLINK(\"x\")"):
            with self.subTest(cell=cell):
                self.assertEqual(spreadsheet.neutralise(cell), "'" + cell)

    def test_plain_text_and_numbers_stay(self):
        for cell in ("alice", "7001", "ada@example.edu", "graded (7.2 does not compile)", "", "15", "4.5", "1e3"):
            with self.subTest(cell=cell):
                self.assertEqual(spreadsheet.neutralise(cell), cell)

    def test_a_number_the_project_computed_stays_a_number(self):
        # A score adjustment of -2 must still sum in the sheet; "-2+3" is a formula, not a number.
        self.assertEqual(spreadsheet.neutralise("-2"), "-2")
        self.assertEqual(spreadsheet.neutralise(-2.5), "-2.5")
        self.assertEqual(spreadsheet.neutralise("-2+3"), "'-2+3")

    def test_writer_quotes_every_cell(self):
        path = scratch_dir() / "x.csv"
        with open(path, "w", newline="") as f:
            spreadsheet.writer(f).writerow([DDE, "a,b", 3])
        self.assertEqual(path.read_bytes(), b'"\'+cmd|\' /C calc\'!A0","a,b","3"\r\n')
        self.assertEqual(next(csv.reader(path.read_text().splitlines())), ["'" + DDE, "a,b", "3"])


class Gradebook(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)
        cls.assignment = assignment.whole_chapter(cls.chapter)

    def _write(self, student, state="graded"):
        out = scratch_dir() / "gradebook.csv"
        gradebook.write(out, self.assignment, [(student, gradebook.zero_scores(self.assignment), state)])
        return out

    def _student_from_metadata(self):
        """The name grade-class gives a Gradescope submission whose student ID is the DDE payload
        (a folder name cannot hold its '/', Gradescope's metadata can)."""
        folder = scratch_dir("halo-class-")
        (folder / "submission_1").mkdir()
        (folder / "submission_metadata.yml").write_text(
            f"submission_1:\n  :submitters:\n  - :name: Mallory\n    :sid: \"{DDE}\"\n")
        return class_submissions.find(folder)[0].student

    def test_a_formula_student_stays_text(self):
        student = self._student_from_metadata()
        self.assertTrue(student.startswith("+"), student)  # the name still starts like a formula
        out = self._write(student, state=f"error: {DDE}")
        rows = list(csv.reader(out.read_text().splitlines()))
        self.assertEqual(rows[1][0], "'" + student)
        self.assertEqual(rows[1][-1], f"error: {DDE}")  # text not at the start of a cell is inert
        self.assertEqual(redteam._formula_cells(out), [])

    def test_a_formula_status_stays_text(self):
        out = self._write("ada", state="=1+1")
        self.assertEqual(list(csv.reader(out.read_text().splitlines()))[1][-1], "'=1+1")

    def test_points_stay_numbers(self):
        rows = list(csv.reader(self._write("ada").read_text().splitlines()))
        self.assertEqual({float(c) for c in rows[1][1:-1]}, {0.0})

    def test_control_without_the_neutraliser_the_formula_reaches_the_sheet(self):
        # The attack the red team's csv-formula-student-name makes, with the defence switched off:
        # the runner's check must see it (otherwise the attack proves nothing).
        student = self._student_from_metadata()
        with mock.patch.object(spreadsheet, "neutralise", lambda cell: str(cell)):
            out = self._write(student)
        self.assertEqual(redteam._formula_cells(out), [student])


class EveryWriter(unittest.TestCase):
    def test_no_csv_writer_outside_spreadsheet_py(self):
        # One function for every CSV the project writes: a new writer must go through it.
        offenders = []
        for path in sorted((REPO_ROOT / "tools" / "halo").rglob("*.py")):
            text = path.read_text()
            if path.name != "spreadsheet.py" and ("csv.writer" in text or "csv.DictWriter" in text):
                offenders.append(str(path.relative_to(REPO_ROOT)))
        self.assertEqual(offenders, [])


if __name__ == "__main__":
    unittest.main()
