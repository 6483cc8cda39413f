"""A status an instructor can act on (issue 34, item 2): one per student and section, from a
fixed vocabulary, in the gradebook, the feedback and grade-class's last line. The answers
statuses come from real answers files through the answers phase (the one every platform
runs); the others from results as the grader writes them."""
import os
import shutil
import unittest
from unittest import mock

from halo.core import answers_phase, statuses, validate
from halo.core.chapter_data import load_chapter
from halo.core.intake import NOTHING_SUBMITTED
from halo.core import assignment
from halo.course import feedback, gradebook, variant_answers

from .helpers import REPO_ROOT, scratch_dir, section_result, stubs

SECRET = "status test secret"


class AnswersStatuses(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)
        cls.section = cls.chapter.section("7.2")

    def graded(self, edit, student="ada"):
        """The status of 7.2 after the answers phase on ada's own key, edited by `edit`."""
        tmp = scratch_dir("halo-status-")
        tree = tmp / "exercises"
        shutil.copytree(stubs(), tree)
        variant_answers.write_variant_answers(self.chapter, ["ada", "grace"], tmp / "keys", SECRET, with_key=True)
        text = (tmp / "keys" / "ada" / self.section.folder / "answers.toml").read_text()
        grace = (tmp / "keys" / "grace" / self.section.folder / "answers.toml").read_text()
        (tree / self.section.folder / "answers.toml").write_text(edit(text, grace))
        (tmp / "report").mkdir()
        with mock.patch.dict(os.environ, {"HALO_COURSE_SECRET": SECRET}):
            tests = answers_phase.run(self.chapter, [self.section], tree, tmp / "report", student)
        res = {"tests": tests, "sections": {"7.2": section_result()}}
        return statuses.section_status(res, self.section)

    def test_the_students_own_key_is_graded(self):
        self.assertEqual(self.graded(lambda own, other: own), statuses.GRADED)

    def test_another_students_variant_is_a_variant_mismatch(self):
        self.assertEqual(self.graded(lambda own, other: other), statuses.VARIANT_MISMATCH)

    def test_a_file_with_no_variant_is_a_variant_mismatch_for_a_known_student(self):
        plain = lambda own, other: "\n".join(x for x in own.splitlines() if not x.startswith("variant."))
        self.assertEqual(self.graded(plain), statuses.VARIANT_MISMATCH)

    def test_an_untouched_stub_is_not_answered_rather_than_a_variant_mismatch(self):
        stub = lambda own, other: (stubs() / self.section.folder / "answers.toml").read_text()
        self.assertEqual(self.graded(stub), statuses.GRADED)

    def test_a_syntax_error_is_answers_unreadable(self):
        broken = lambda own, other: own.replace("exercise4_ghost_cells = ", "exercise4_ghost_cells = 3/", 1)
        self.assertEqual(self.graded(broken), statuses.ANSWERS_UNREADABLE)


class KernelStatuses(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)
        cls.s72, cls.s74 = cls.chapter.section("7.2"), cls.chapter.section("7.4")

    def results(self, build="ok", build_output="", message=None, notes=()):
        tests = [{"name": "7.2 basic-1d / correct / t", "section": "7.2", "kind": "correct",
                  "status": "failed" if message else "passed", "message": message or "", "seconds": 0.1}]
        return {"tests": tests, "submission": list(notes),
                "sections": {"7.2": section_result(build, build_output), "7.4": section_result()}}

    def test_a_validator_finding_is_refused_and_a_compiler_error_did_not_compile(self):
        finding = validate._finding("k.cu", 3, "inline assembly", "asm").message
        self.assertEqual(statuses.section_status(self.results("failed", f"k.cu:3: error: {finding}"), self.s72),
                         statuses.REFUSED)
        self.assertEqual(statuses.section_status(self.results("failed", "k.cu:3: error: expected ';'"), self.s72),
                         statuses.NOT_COMPILED)

    def test_a_launch_that_did_not_finish_timed_out(self):
        res = self.results(message="the launch did not finish within 10 s")
        self.assertEqual(statuses.section_status(res, self.s72), statuses.TIMED_OUT)
        self.assertEqual(statuses.section_status(self.results(message="P[3] = 1"), self.s72), statuses.GRADED)

    def test_a_section_nothing_was_submitted_for_is_missing(self):
        res = self.results(notes=["Files graded:", f"  {self.s74.folder}: {NOTHING_SUBMITTED}"])
        self.assertEqual(statuses.statuses(res, [self.s72, self.s74]), {"7.2": statuses.GRADED,
                                                                        "7.4": statuses.MISSING})

    def test_the_vocabulary_is_fixed_and_late_is_in_it(self):
        self.assertEqual(statuses.VOCABULARY, ("graded", "missing", "refused: not allowed in a kernel file",
                                               "did not compile", "timed out", "variant mismatch",
                                               "answers unreadable", "late"))


class WhereTheyShow(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)
        cls.assignment = assignment.Assignment("a", "A", [cls.chapter.section("7.2"), cls.chapter.section("7.4")])

    def res(self):
        return {"seed": "1", "tests": [], "submission": [f"  {self.chapter.section('7.4').folder}: {NOTHING_SUBMITTED}"],
                "sections": {"7.2": section_result("failed", "k.cu:1: error: expected ';'"),
                             "7.4": section_result()}}

    def test_the_gradebook_cell_names_each_section_that_needs_a_look(self):
        self.assertEqual(gradebook.status(self.res(), self.assignment.sections), "7.2 did not compile; 7.4 missing")

    def test_the_feedback_table_has_a_status_per_section(self):
        bs = feedback.blocks("ada", self.assignment, self.res(), gradebook.zero_scores(self.assignment))
        header, rows = next(c for k, c in bs if k == "table")
        self.assertEqual(header[-1], "status")
        self.assertEqual([r[-1] for r in rows], ["did not compile", "missing"])

    def test_grade_class_last_line_counts_who_needs_a_look(self):
        rows = [("ada", "graded"), ("erin", "7.2 did not compile"), ("olivia", "7.4 missing"),
                ("zed", "error: OSError: disk full")]
        self.assertEqual(statuses.need_a_look(rows), "3 students need a look: erin (7.2 did not compile), "
                                                     "olivia (7.4 missing), zed (error: OSError: disk full)")
        self.assertEqual(statuses.need_a_look(rows[:1]), "No student needs a look: all 1 graded.")


if __name__ == "__main__":
    unittest.main()
