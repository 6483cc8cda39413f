"""The term's chores after grading (issue 34, item 8): manual adjustments read from a CSV (a bad row
named by its line and costing only that row), merged into the gradebook as their own columns with
the late penalty, every row adding up to its total, and the Canvas and Moodle imports with names
and emails from the roster."""
import csv
import unittest
from fractions import Fraction
from types import SimpleNamespace

from halo.core import due_dates
from halo.course import adjusted_scores, adjustments, gradebook, lms_export

from .helpers import scratch_dir

SECTIONS = ["7.2", "7.4"]
STUDENTS = ["ann", "bob", "erin"]


def _assignment():
    sections = [SimpleNamespace(id="7.2", points={"tests": 10, "answers": 5}),
                SimpleNamespace(id="7.4", points={"tests": 10, "answers": 5})]
    return SimpleNamespace(name="conv1d", title="1D convolution", sections=sections, ids=SECTIONS,
                           total=lambda: 30.0, deadline=None)


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


class Adjustments(unittest.TestCase):
    def setUp(self):
        self.dir = scratch_dir("halo-adjust-")

    def _read(self, text):
        (self.dir / "adjustments.csv").write_text(text)
        return adjustments.read(self.dir / "adjustments.csv", STUDENTS, SECTIONS)

    def test_good_rows_are_read_exactly(self):
        found, problems = self._read('student,section,points,comment\nann,7.4,+2,"regrade: tolerance"\n'
                                     'bob,,-0.25,late sheet\n')
        self.assertEqual(problems, [])
        self.assertEqual([(a.student, a.section, a.points, a.comment) for a in found],
                         [("ann", "7.4", Fraction(2), "regrade: tolerance"), ("bob", "", Fraction(-1, 4), "late sheet")])

    def test_a_bad_row_is_named_and_costs_only_itself(self):
        found, problems = self._read("student,section,points,comment\n"
                                     "ann,7.4,two,typo\n"          # line 2
                                     "zed,7.4,1,who\n"             # line 3
                                     "bob,7.9,1,which\n"           # line 4
                                     "bob,7.2,1\n"                 # line 5
                                     "erin,7.2,0.125,too fine\n"   # line 6
                                     "erin,7.2,1,\n"               # line 7
                                     "erin,7.2,1.5,kept\n")        # line 8
        self.assertEqual([(a.student, a.line) for a in found], [("erin", 8)])
        self.assertEqual([p.split(": ", 1)[0].rsplit(":", 1)[1] for p in problems], ["2", "3", "4", "5", "6", "7"])
        self.assertIn("no student 'zed'", problems[1])
        self.assertIn("section '7.9' is not in the assignment", problems[2])

    def test_a_header_without_the_columns_is_named(self):
        found, problems = self._read("name,points\nann,1\n")
        self.assertEqual(found, [])
        self.assertIn("adjustments.csv:1: the header needs the columns", problems[0])


class GradebookRowsAddUp(unittest.TestCase):
    def test_penalty_and_adjustments_are_columns_and_the_row_sums_to_the_total(self):
        d = due_dates.parse({"due": "2026-12-04 23:59", "late": {"policy": "penalty", "per_day": "10%", "cap": "30%"}},
                            "UTC", "course.toml")
        book = adjusted_scores.Book(d, [adjustments.Adjustment("ann", "7.4", Fraction(3, 2), "regrade", 2)],
                                    Fraction(30))
        home = scratch_dir("halo-book-")
        (home / "ann").mkdir()
        (home / "ann" / adjusted_scores.DUE_FILE).write_text('{"days_late": 2}\n')
        (home / "bob").mkdir()
        rows = [("ann", {"7.2": (10.33, 15.0), "7.4": (7.0, 15.0)}, "graded"),
                ("bob", {"7.2": (15.0, 15.0), "7.4": (2.5, 15.0)}, "graded")]
        extras = {s: book.extras(home / s, s, adjusted_scores.total(sc)) for s, sc, _ in rows}
        rows = [(s, sc, adjusted_scores.late_status(state, extras[s])) for s, sc, state in rows]
        gradebook.write(home / "gradebook.csv", _assignment(), rows, book, extras)
        table = _rows(home / "gradebook.csv")
        self.assertEqual(table[0], ["student", "7.2 (15)", "7.4 (15)", "late penalty", "adjustments",
                                    "adjustment comments", "total (30)", "status"])
        self.assertEqual(table[1], ["ann", "10.33", "7", "-6", "1.5", "7.4 +1.5: regrade", "12.83", "late"])
        self.assertEqual(table[2], ["bob", "15", "2.5", "0", "", "", "17.5", "graded"])
        for row in table[1:]:  # the sum rule: the row's numbers add up to the total shown, exactly
            parts = [Fraction(c) for c in row[1:4] + row[4:5] if c]
            self.assertEqual(sum(parts), Fraction(row[6]))

    def test_a_penalty_never_takes_more_than_was_earned(self):
        d = due_dates.parse({"due": "2026-12-04 23:59", "late": {"policy": "penalty", "per_day": 5}}, "UTC", "c")
        home = scratch_dir("halo-book-")
        (home / adjusted_scores.DUE_FILE).write_text('{"days_late": 3}\n')
        extras = adjusted_scores.Book(d, None, Fraction(30)).extras(home, "ann", Fraction(4))
        self.assertEqual(extras.penalty, Fraction(4))
        nothing = adjusted_scores.Book(d, None, Fraction(30)).extras(home, "ann", Fraction(0))
        self.assertEqual(nothing.feedback_lines(), ["late by 3 day(s): 0 points off"])  # still said

    def test_without_chores_the_gradebook_is_unchanged(self):
        home = scratch_dir("halo-book-")
        gradebook.write(home / "g.csv", _assignment(), [("ann", {"7.2": (10.33, 15.0), "7.4": (7.0, 15.0)}, "graded")])
        self.assertEqual(_rows(home / "g.csv"), [["student", "7.2 (15)", "7.4 (15)", "total (30)", "status"],
                                                 ["ann", "10.33", "7", "17.33", "graded"]])


class LmsImports(unittest.TestCase):
    def setUp(self):
        self.dir = scratch_dir("halo-lms-")
        (self.dir / "roster.csv").write_text("student_id,first_name,last_name,email,section\n"
                                             "ann,Ann,Lee,ann@uni.edu,L01\n"
                                             "bob,=HYPERLINK(\"x\"),Roe,bob@uni.edu,L02\n"
                                             "carl,Carl,Diaz,carl@uni.edu,L01\n")
        self.roster = lms_export.read_roster(self.dir / "roster.csv")
        # carl's Gradescope account had no ID: the gradebook names him by his email
        self.grades = [("ann", "12.83", "late"), ("bob", "17.5", "graded"), ("carl@uni.edu", "30", "graded"),
                       ("dan", "3", "graded")]

    def test_canvas_columns_as_its_import_documents_them(self):
        lms_export.canvas(self.dir / "canvas.csv", "1D convolution", "30", self.grades, self.roster)
        table = _rows(self.dir / "canvas.csv")
        self.assertEqual(table[0], ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "1D convolution"])
        self.assertEqual(table[1], ["Points Possible", "", "", "", "", "30"])
        self.assertEqual(table[2], ["Ann Lee", "", "ann", "ann@uni.edu", "L01", "12.83"])
        self.assertEqual(table[3][0], "'=HYPERLINK(\"x\") Roe")  # neutralised: never a formula
        self.assertEqual(table[4], ["Carl Diaz", "", "carl", "carl@uni.edu", "L01", "30"])
        self.assertEqual(table[5], ["dan", "", "dan", "", "", "3"])
        self.assertEqual(lms_export.unlisted(self.roster, [g[0] for g in self.grades]), ["dan"])

    def test_moodle_has_an_email_column_to_map_and_the_feedback(self):
        lms_export.moodle(self.dir / "moodle.csv", "1D convolution", self.grades, self.roster)
        table = _rows(self.dir / "moodle.csv")
        self.assertEqual(table[0], ["Name", "Email address", "ID number", "1D convolution",
                                    "Feedback: 1D convolution"])
        self.assertEqual(table[1], ["Ann Lee", "ann@uni.edu", "ann", "12.83", "late"])

    def test_a_roster_without_ids_names_its_header_line(self):
        (self.dir / "bad.csv").write_text("name\nAnn\n")
        with self.assertRaises(lms_export.RosterError) as e:
            lms_export.read_roster(self.dir / "bad.csv")
        self.assertIn("bad.csv:1: no column of student IDs", str(e.exception))


if __name__ == "__main__":
    unittest.main()


class CollectWithChores(unittest.TestCase):
    """grade-class's outputs (its collect step, from stored results): a late student's penalty
    and an adjustment in the gradebook, the feedback and the Canvas and Moodle imports."""

    def test_late_penalty_adjustment_and_lms_imports_from_one_total(self):
        import json
        from unittest import mock
        from halo.core import assignment
        from halo.course import grade_class
        from halo.course.class_submissions import Submission
        from halo.core.chapter_data import load_chapter
        from .helpers import REPO_ROOT
        from .test_grade_class import _results
        chapter = load_chapter(REPO_ROOT)
        one = assignment.Assignment("a", "A", [chapter.section("7.2")])
        one.deadline = due_dates.parse({"due": "2026-12-04 23:59", "late": {"policy": "penalty", "per_day": "10%"}},
                                       "UTC", "course.toml")
        out = scratch_dir("halo-chores-")
        subs = []
        for student, days in (("ann", 2), ("bob", 0)):
            home = out / "work" / "students" / student
            home.mkdir(parents=True)
            (home / "results.json").write_text(json.dumps(_results(12)))
            (home / "submission.txt").write_text("graded commit abc (...)\nFiles graded:\n")
            (home / "fingerprint").write_text("f\n")
            (home / adjusted_scores.DUE_FILE).write_text(json.dumps({"days_late": days}))
            subs.append(Submission(student, out / "class" / student, student))
        (out / "adjust.csv").write_text("student,section,points,comment\nbob,7.2,1,regrade of t12\nzed,,1,who\n")
        (out / "roster.csv").write_text("student_id,name,email\nann,Ann Lee,ann@uni.edu\nbob,Bob Roe,bob@uni.edu\n")
        with mock.patch("sys.stdout"), mock.patch("sys.stderr") as err:
            self.assertEqual(grade_class._collect(REPO_ROOT, chapter, one, subs, out / "work", out, None,
                                                  (out / "adjust.csv", out / "roster.csv")), 0)
        printed = "".join(str(c.args[0]) for c in err.write.call_args_list if c.args)
        self.assertIn("adjust.csv:3: no student 'zed'", printed)
        book = _rows(out / "gradebook.csv")
        worth = chapter.section("7.2").points
        total = sum(worth.values())
        self.assertEqual(book[0][-5:], ["late penalty", "adjustments", "adjustment comments", f"total ({total:g})",
                                        "status"])
        ann, bob = book[1], book[2]
        self.assertEqual(ann[-1], "late")
        self.assertEqual(Fraction(ann[2]), -Fraction(total) * 2 / 10)
        self.assertEqual(bob[3:5], ["1", "7.2 +1: regrade of t12"])
        for row in (ann, bob):
            self.assertEqual(sum(Fraction(c) for c in row[1:4] if c), Fraction(row[5]))
        self.assertIn(f"Score: {bob[5]} of", (out / "feedback" / "bob.md").read_text())
        self.assertIn("7.2: +1 points: regrade of t12", (out / "feedback" / "bob.md").read_text())
        self.assertIn("late by 2 day(s)", (out / "feedback" / "ann.md").read_text())
        self.assertIn("graded commit abc", (out / "feedback" / "ann.md").read_text())
        canvas = _rows(out / "canvas.csv")
        self.assertEqual(canvas[2], ["Ann Lee", "", "ann", "ann@uni.edu", "", ann[5]])
        self.assertEqual(_rows(out / "moodle.csv")[2][:4], ["Bob Roe", "bob@uni.edu", "bob", bob[5]])


class GradedAtTheDueDate(unittest.TestCase):
    def test_grade_class_grades_a_clone_at_its_last_commit_before_the_due_date(self):
        import subprocess
        from unittest import mock
        from halo.course import grade_class
        from halo.course.class_submissions import Submission
        from .test_due_dates import _commit
        base = scratch_dir("halo-due-grade-")
        clone = base / "conv1d-ann"
        clone.mkdir()
        subprocess.run(["git", "-C", str(clone), "init", "-q"], check=True)
        _commit(clone, "kernel.cu", "on time\n", "2026-12-04T20:00:00+00:00")
        _commit(clone, "kernel.cu", "after the due date\n", "2026-12-05T20:00:00+00:00")
        one = SimpleNamespace(sections=[], deadline=due_dates.parse({"due": "2026-12-04T23:59:00+00:00"}, None, "c"))
        seen = []

        def take(chapter, source, stubs, exercises):
            seen.append((source / "kernel.cu").read_text())
            return ["Files graded:"]
        ctx = (base, None, one, SimpleNamespace(stubs=None), base / "work", None, None, 1)
        with mock.patch.object(grade_class.export_autograder, "take_submission", take), \
                mock.patch.object(grade_class, "_fingerprint", return_value="f"), \
                mock.patch.object(grade_class.class_submission, "grade", return_value={"tests": []}):
            grade_class._grade_unlocked(ctx, Submission("ann", clone, clone.name), base / "work" / "ann")
        self.assertEqual(seen, ["on time\n"])
        notes = (base / "work" / "ann" / "submission.txt").read_text()
        self.assertIn("the last before the due date", notes)
        self.assertIn("1 later commit(s) not graded", notes)


class TermClassroomFlow(unittest.TestCase):
    """term_classroom.py: the clones it lays out carry the dated commits step 5 grades by, and its
    check finds a late student not marked, an extension not honoured, a lost adjustment and a
    Canvas row without its name (its passing run is the term check's own)."""

    def test_lay_out_and_the_check_fails_on_each_wrong_output(self):
        from halo.course import term_classroom as tc
        work = scratch_dir("halo-term-classroom-")
        for student, _, _ in tc.ROSTER:
            (work / "subs" / student / "7.2-basic-1d").mkdir(parents=True)
        (work / "course.toml").write_text('secret = "s"\n\n[assignments.conv1d]\nsections = ["7.2"]\n')
        tc.lay_out(work, work / "subs", work / "course.toml")
        ada = due_dates.history(work / tc.CLASS / "conv1d-ref-ada")
        self.assertEqual([when.day for _, when in ada], [6, 4])
        self.assertIn('extensions = { ref-grace = 3 }', (work / "course.toml").read_text())
        out = work / "repo" / tc.OUT
        out.mkdir(parents=True)
        good = [["student", "7.2 (15)", "late penalty", "adjustments", "adjustment comments", "total (15)", "status"],
                ["ref-ada", "15", "-3", "", "", "12", "late"], ["ref-grace", "15", "0", "", "", "15", "graded"],
                ["stub-empty", "0", "0", "1.5", f"all +1.5: {tc.ADJUSTMENT[3]}", "1.5", "graded"]]
        canvas = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "T"]] + [
            [name, "", student, email, "", total] for (student, name, email), total in zip(tc.ROSTER, ["12", "15", "1.5"])]
        expected = {s: {"status": "graded"} for s, _, _ in tc.ROSTER}

        def problems(book, lms):
            for name, rows in (("gradebook.csv", book), ("canvas.csv", lms), ("moodle.csv", [])):
                with open(out / name, "w", newline="") as f:
                    csv.writer(f).writerows(rows)
            return tc.check(work / "repo", expected)
        self.assertEqual(problems(good, canvas), [])
        wrong = [
            (1, ["ref-ada", "15", "0", "", "", "15", "graded"], "ref-ada: status 'graded', expected late"),
            (2, ["ref-grace", "15", "-3", "", "", "12", "late"], "her extension"),
            (3, ["stub-empty", "0", "0", "", "", "0", "graded"], "stub-empty: adjustments"),
            (1, ["ref-ada", "15", "-3", "", "", "13", "late"], "does not add up"),
        ]
        for at, row, words in wrong:
            with self.subTest(words=words):
                book = [list(r) for r in good]
                book[at] = row
                self.assertTrue(any(words in p for p in problems(book, canvas)), problems(book, canvas))
        nameless = [list(r) for r in canvas]
        nameless[1][0] = "ref-ada"
        self.assertTrue(any("should be Ada Lovelace" in p for p in problems(good, nameless)))
