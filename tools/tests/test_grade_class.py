"""grade-class's pieces that need no build: finding a class's submissions in the shapes an
instructor has, assignments read from a course file, points and the gradebook, feedback files
(HTML escaped), and the harness's compile recipe."""
import csv
import os
import re
import unittest
from pathlib import Path

from halo.core.chapter_data import load_chapter
from halo.core import assignment, results
from halo.course import class_harness, class_submission, class_submissions, feedback, gradebook

from .helpers import REPO_ROOT, scratch_dir

METADATA = """submission_101:
  :submitters:
  - :name: Ada Lovelace
    :sid: '7001'
    :email: ada@example.edu
  :created_at: 2026-11-20
submission_102:
  :submitters:
  - :name: Alan Turing
    :email: alan@example.edu
"""


def _results(passed_72, total_72=15, build="ok"):
    tests = [{"name": f"7.2 basic-1d / correct / t{k}", "section": "7.2", "kind": "correct",
              "status": "passed" if k < passed_72 else "failed", "message": "" if k < passed_72 else "wrong <b>",
              "seconds": 0.1} for k in range(total_72)]
    return {"seed": "1", "exercises": "/scratch/alice/exercises", "tests": tests,
            "sections": {"7.2": {"title": "1D", "has_kernels": True, "build": build, "build_output": "",
                                 "tests": {"passed": passed_72, "total": total_72, "not_run": 0},
                                 "answers": {"right": 0, "asked": 0}, "loads": [], "advice": []}}}


class Submissions(unittest.TestCase):
    def setUp(self):
        self.dir = scratch_dir("halo-class-")

    def test_a_folder_per_student(self):
        for name in ("bob", "alice", ".git"):
            (self.dir / name).mkdir()
        self.assertEqual([s.student for s in class_submissions.find(self.dir)], ["alice", "bob"])

    def test_a_relative_out_folder_is_taken_from_where_the_command_runs(self):
        from unittest import mock
        from halo.course import grade_class
        (self.dir / "class" / "alice").mkdir(parents=True)
        seen, locks = [], []
        real_locked = grade_class.class_shards.locked

        def locked(path):
            locks.append(path)
            return real_locked(path)

        def harness(root, tc, sections, work):
            seen.append(work)
            raise class_harness.HarnessError("stopped by the test")
        here = os.getcwd()
        os.chdir(self.dir)
        try:
            with mock.patch.object(grade_class, "build_harness", harness), \
                    mock.patch.object(grade_class.toolchain, "ensure"), \
                    mock.patch.object(grade_class.sandbox, "announce", return_value="limits"), \
                    mock.patch.object(grade_class.class_shards, "locked", locked):
                for out in ("build/class/ops", self.dir / "elsewhere"):
                    grade_class.run(REPO_ROOT, load_chapter(REPO_ROOT), self.dir / "class", out=out)
        finally:
            os.chdir(here)
        # The students' folders are under the --out the command named, by absolute path (the
        # harness's compile commands name them so)...
        self.assertEqual(locks[0], (self.dir / "build" / "class" / "ops" / "work" / ".unpack.lock").resolve())
        # ...and both runs, one relative --out and one absolute, use the one harness of HEAD's
        # commit: a new --out does not build its own.
        self.assertEqual(len(seen), 2)
        self.assertEqual(seen[0], seen[1])
        self.assertEqual(seen[0].parent, REPO_ROOT.resolve() / "build" / "class-harness")

    def test_assignments_of_one_commit_share_one_harness(self):
        """A course's assignments are graded against one harness folder per commit: the second
        assignment builds its own sections into it, not the judges' runtime again."""
        from unittest import mock
        from halo.course import grade_class
        (self.dir / "class" / "alice").mkdir(parents=True)
        course = self.dir / "course.toml"
        course.write_text('secret = "test-secret"\n\n[assignments.one]\nsections = ["7.2"]\n\n[assignments.two]\nsections = ["7.4"]\n')
        seen = []

        def harness(root, tc, sections, work):
            seen.append((work, [s.id for s in sections]))
            raise class_harness.HarnessError("stopped by the test")
        # grade_class.run puts the course's secret into os.environ for its grades: kept to this test.
        with mock.patch.dict(os.environ), \
                mock.patch.object(grade_class, "build_harness", harness), \
                mock.patch.object(grade_class.toolchain, "ensure"), \
                mock.patch.object(grade_class.sandbox, "announce", return_value="limits"):
            for name in ("one", "two"):
                grade_class.run(REPO_ROOT, load_chapter(REPO_ROOT), self.dir / "class", out=self.dir / name,
                                assignment_name=name, course=course)
        self.assertEqual([ids for _, ids in seen], [["7.2"], ["7.4"]])
        self.assertEqual(seen[0][0], seen[1][0])

    def test_gradescope_export_names_students_by_sid_else_email(self):
        (self.dir / "submission_101").mkdir()
        (self.dir / "submission_102").mkdir()
        (self.dir / "submission_metadata.yml").write_text(METADATA)
        got = {s.folder: s.student for s in class_submissions.find(self.dir)}
        self.assertEqual(got, {"submission_101": "7001", "submission_102": "alan@example.edu"})

    def test_classroom_clones_drop_the_assignment_prefix(self):
        for name in ("conv1d-ada", "conv1d-alan-t"):
            (self.dir / name).mkdir()
        self.assertEqual([s.student for s in class_submissions.find(self.dir)], ["ada", "alan-t"])

    def test_an_empty_folder_is_refused_clearly(self):
        with self.assertRaisesRegex(class_submissions.SubmissionsError, "one folder per student"):
            class_submissions.find(self.dir)


class Assignments(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)

    def course(self, text):
        path = scratch_dir("halo-course-") / "course.toml"
        path.write_text(text)
        return path

    def test_the_assignment_scores_its_sections_with_its_points(self):
        a = assignment.load(self.chapter, REPO_ROOT, None, self.course(
            '[assignments.c1]\nsections = ["7.2", "7.4"]\npoints = { "7.4" = { tests = 20, answers = 5 } }\n'))
        self.assertEqual(a.ids, ["7.2", "7.4"])
        self.assertEqual(a.total(), sum(self.chapter.section("7.2").points.values()) + 25)

    def test_mistakes_in_the_course_file_say_where(self):
        for text, says in (('[assignments.c1]\nsections = ["7.7"]\n', "no section 7.7"),
                           ('[assignments.c1]\nsections = ["7.2"]\nrelease = "exam"\n', "release should be"),
                           ('[assignments.c1]\nsections = ["7.2"]\ndue_date = "x"\n', "unknown key"),
                           ('[assignments.c1]\nsections = ["7.1"]\npoints = { "7.1" = { tests = 3 } }\n',
                            "questions only"),
                           ('[assignments.a]\nsections = ["7.2"]\n[assignments.b]\nsections = ["7.4"]\n',
                            "--assignment")):
            with self.assertRaisesRegex(assignment.AssignmentError, says):
                assignment.load(self.chapter, REPO_ROOT, None, self.course(text))

    def test_no_course_file_is_the_whole_chapter(self):
        a = assignment.load(self.chapter, scratch_dir())
        self.assertEqual(a.ids, [s.id for s in self.chapter.sections])


class PointsAndFeedback(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)
        cls.assignment = assignment.Assignment("a", "A", [cls.chapter.section("7.2")])

    def test_fourteen_of_fifteen_tests_score_fourteen_fifteenths(self):
        got, worth = gradebook.scores(_results(14), self.chapter, self.assignment)["7.2"]
        tests_points = self.chapter.section("7.2").points["tests"]
        self.assertAlmostEqual(got, tests_points * 14 / 15, delta=0.02)
        self.assertEqual(worth, sum(self.chapter.section("7.2").points.values()))

    def test_gradebook_has_a_column_per_section_and_the_total(self):
        out = scratch_dir() / "gradebook.csv"
        sc = gradebook.scores(_results(15), self.chapter, self.assignment)
        gradebook.write(out, self.assignment, [("alice", sc, gradebook.status(_results(15), self.assignment.sections))])
        rows = list(csv.reader(out.read_text().splitlines()))
        self.assertEqual(rows[0][0], "student")
        self.assertEqual(rows[1][0], "alice")
        self.assertEqual(rows[1][-1], "graded")
        self.assertEqual(float(rows[1][1]), float(self.chapter.section("7.2").points["tests"]))

    def test_a_section_that_does_not_compile_is_named_in_the_status(self):
        self.assertEqual(gradebook.status(_results(0, build="failed"), self.assignment.sections), "7.2 did not compile")
        self.assertTrue(gradebook.status(None, self.assignment.sections, "OSError: disk full").startswith("error: "))

    def test_a_test_stopped_by_grade_class_own_limit_is_named_timed_out(self):
        # What judge_runs.Runner (grade-class's runner) says of a test past its limit.
        res = _results(3)
        stopped = dict(res["tests"][3], status="failed", message=results.failure_message(
            "ERROR: this test did not finish within 120 s (the limit CTest gives each test)\n"))
        res["tests"][3] = stopped
        self.assertEqual(stopped["status"], "failed")
        self.assertEqual(gradebook.status(res, self.assignment.sections), "7.2 timed out")

    def test_feedback_escapes_html_and_shows_the_folder_the_student_knows(self):
        res = _results(14)
        res["tests"][14]["message"] = "wrong at /scratch/alice/exercises/7.2-basic-1d/k.cu:3 <script>"
        bs = feedback.blocks("alice", self.assignment, res, gradebook.scores(res, self.chapter, self.assignment))
        page = feedback.to_html(bs, "t")
        self.assertNotIn("<script>", page)
        self.assertIn("&lt;script&gt;", page)
        self.assertIn("exercises/7.2-basic-1d/k.cu:3", feedback.markdown(bs))
        self.assertNotIn("/scratch/", feedback.markdown(bs))

    def test_feedback_names_paths_as_the_students_own_tree_has_them(self):
        res = _results(0, build="failed")
        res["sections"]["7.2"]["build_output"] = (
            "In file included from /srv/o/work/students/erin/grade/wrappers/7_2/k.cu.cpp:4:\n"
            "build/class/conv1d/work/students/erin/exercises/7.2-basic-1d/k.cu:3:1: error: expected ';'\n")
        res["tests"][0]["message"] = "at build/class/conv1d/work/students/erin/exercises/7.2-basic-1d/k.cu:9"
        text = feedback.markdown(feedback.blocks("erin", self.assignment, res,
                                                 gradebook.scores(res, self.chapter, self.assignment)))
        self.assertIn("exercises/7.2-basic-1d/k.cu:3:1: error: expected ';'", text)
        self.assertNotIn("work/students", text)
        self.assertNotIn("build/class", text)

    def test_feedback_says_nothing_of_sections_outside_the_assignment(self):
        notes = ("Files graded:\n  7.1-background: nothing submitted (the untouched stub is graded)\n"
                 "  7.2-basic-1d: k.cu (from 7.2-basic-1d/k.cu)\n"
                 "  7.5-cached-1d: nothing submitted (the untouched stub is graded)\n"
                 "  ignored notes.cu: not a file of the workbook, or not in its section's folder\n")
        res = _results(15)
        text = feedback.markdown(feedback.blocks("alice", self.assignment, res,
                                                 gradebook.scores(res, self.chapter, self.assignment), notes))
        self.assertIn("7.2-basic-1d: k.cu (from 7.2-basic-1d/k.cu)", text)
        self.assertIn("ignored notes.cu", text)
        self.assertNotIn("7.1", text)
        self.assertNotIn("7.5", text)

    def test_feedback_html_wraps_long_lines(self):
        res = _results(14)
        res["tests"][14]["message"] = "hint: " + "x" * 400
        page = feedback.to_html(feedback.blocks("alice", self.assignment, res,
                                                gradebook.scores(res, self.chapter, self.assignment)), "t")
        style = re.search(r"<style>(.*)</style>", page).group(1)
        rules = dict(re.findall(r"([^{}]+)\{([^}]*)\}", style))
        self.assertIn("white-space:pre-wrap", rules["pre"])
        self.assertIn("overflow-wrap:anywhere", rules["pre"])
        self.assertIn("overflow-wrap:anywhere", rules["td,th"])
        self.assertNotIn("overflow-x:auto", style)  # a scroll bar is clipping by another name


class ClassOutputs(unittest.TestCase):
    """What --collect (and so every grade-class) writes from stored results: the report sets the
    reference and the stub aside from copies, draws its histogram beside it, and --hand-back
    commits the feedback into each clone."""

    def test_the_report_the_histogram_and_the_feedback_handed_back(self):
        import json
        import subprocess
        import xml.etree.ElementTree as ET
        from unittest import mock
        from halo.course import grade_class, hand_back
        from halo.course.class_submissions import Submission
        chapter = load_chapter(REPO_ROOT)
        section = chapter.section("7.2")
        one = assignment.Assignment("a", "A", [section])
        kernel = section.kernels[0]
        reference = (REPO_ROOT / "solutions" / section.folder / kernel).read_text()
        stub = (REPO_ROOT / "exercises" / section.folder / kernel).read_text()
        own = reference + "\n__device__ int helper_of_mine() { return 1; }\n"
        kernels = {"ann": "// mine\n" + reference, "bob": reference, "cat": own, "dan": own, "eve": stub, "fay": stub}
        out = scratch_dir()
        (out / "work" / "stubs" / section.folder).mkdir(parents=True)
        (out / "work" / "stubs" / section.folder / kernel).write_text(stub)
        subs = []
        for student, text in kernels.items():
            home = out / "work" / "students" / student
            (home / "exercises" / section.folder).mkdir(parents=True)
            (home / "exercises" / section.folder / kernel).write_text(text)
            (home / "results.json").write_text(json.dumps(_results(14)))
            (home / "submission.txt").write_text("Files graded:\n")
            (home / "fingerprint").write_text("f\n")
            clone = out / "class" / f"a-{student}"
            clone.mkdir(parents=True)
            subprocess.run(["git", "init", "-q", str(clone)], check=True)
            subs.append(Submission(student, clone, clone.name))
        with mock.patch("sys.stdout"), mock.patch("sys.stderr"):
            self.assertEqual(grade_class._collect(REPO_ROOT, chapter, one, subs, out / "work", out, subs), 0)
        report = (out / "class-report.md").read_text()
        self.assertIn("Kernels the same as the reference solution: ann, bob", report)
        self.assertIn("\n- cat, dan\n", report)
        self.assertNotIn("eve", report.split("Identical kernels")[1])
        self.assertIn(f"]({grade_class.HISTOGRAM})", report)
        ET.fromstring((out / grade_class.HISTOGRAM).read_text())
        shown = subprocess.run(["git", "-C", str(subs[2].path), "show", f"HEAD:{hand_back.file_name('a')}"],
                               capture_output=True, text=True)
        self.assertEqual(shown.stdout, (out / "feedback" / "cat.md").read_text())


class HarnessRecipe(unittest.TestCase):
    def test_the_compile_command_takes_the_students_folder_object_and_wrapper(self):
        argv = ["/usr/bin/clang++", "-I/h/include", "-I/stubs/7.2-basic-1d", "-O1", "-o", "grader/x.o", "-c",
                "/b/wrapper.cpp", "-MD", "-MT", "x", "-MF", "x.d"]
        t = class_harness._compile_template(argv, "/stubs/7.2-basic-1d", Path("/b"))
        self.assertEqual([a.format(folder="/s/7.2", object="/o.o", wrapper="/w.cpp") for a in t],
                         ["/usr/bin/clang++", "-I/h/include", "-I/s/7.2", "-O1", "-o", "/o.o", "-c", "/w.cpp"])


if __name__ == "__main__":
    unittest.main()


class TermWalk(unittest.TestCase):
    def test_the_instructor_page_walks_the_term_in_commands_the_check_runs(self):
        from halo.course import term_check
        lines = term_check.walk(REPO_ROOT)
        commands = " ".join(lines)
        for step in ("./workbook release --assignment conv1d", "./workbook export classroom",
                     "./workbook export gradescope-autograder", "./workbook grade-class ../conv1d-submissions"):
            self.assertIn(step, commands)
        self.assertFalse([line for line in lines if line.lstrip().startswith("#")])
