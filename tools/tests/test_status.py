"""`./workbook status` on a fabricated results.json (shaped by results.collect): the table, the
overall progress and points, the next thing to do, and results older than an edited file."""
import contextlib
import io
import json
import os
import shutil
import tempfile
import time
import unittest
from pathlib import Path

from halo import cli
from halo.core import results
from halo.student import hints, record, status
from halo.core.chapter_data import load_chapter
from tests.helpers import REPO_ROOT, source_tree

CHAPTER = load_chapter(REPO_ROOT)


def _test(sid, kind, what, ok, message=""):
    slug = CHAPTER.section(sid).slug
    return {"name": f"{sid} {slug} / {kind} / {what}", "section": sid, "kind": kind,
            "status": "passed" if ok else "failed", "message": "" if ok else message, "seconds": 0.1}


def _answers(sid, right=None, unanswered=(), wrong=()):
    """One answers test per question of the section: right unless named."""
    out = [_test(sid, "answers", "the file is well-formed", True)]
    for q in CHAPTER.questions(sid):
        if q.id in unanswered:
            out.append(_test(sid, "answers", q.id, False, f"{q.id}: not answered\nanswers.toml:3: replace the \"\""))
        elif q.id in wrong:
            out.append(_test(sid, "answers", q.id, False, f"{q.id}: wrong\nanswers.toml:3: {q.id} is not right"))
        else:
            out.append(_test(sid, "answers", q.id, True))
    return out


def _kernel_tests(sid, failing=(), message="3 of 7 elements of P are wrong"):
    whats = ["the book's 3rd edition example", "width one less than the block", "width one more than the block",
             "width 2^20"]
    return [_test(sid, "correct", w, w not in failing, message) for w in whats] + \
        [_test(sid, "loads", "N and M per block", True)]


class Tree(unittest.TestCase):
    """A copy of chapters/ and exercises/ to fabricate results in."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory(prefix="halo-status-")
        self.addCleanup(tmp.cleanup)
        self.root = Path(tmp.name)
        for tree in ("chapters", "exercises"):
            shutil.copytree(source_tree(tree), self.root / tree)
        self.build = self.root / "build" / "grade"

    def write_results(self, tests, sections, build_failures=None, exercises=None):
        res = results.collect(CHAPTER, [CHAPTER.section(s) for s in sections], tests, {}, build_failures or {},
                              "12345", exercises or self.root / "exercises")
        results.save(res, self.build / "results.json")
        # The results are newer than every exercise file, as after a real grade run.
        later = time.time() + 5
        os.utime(self.build / "results.json", (later, later))
        return res

    def status(self, build_dir=None):
        out = io.StringIO()
        rc = status.report(self.root, CHAPTER, build_dir or self.build, out=out)
        return rc, out.getvalue()

    def row(self, out, sid):
        return next(line for line in out.splitlines() if line.startswith(sid + " "))



class Status(Tree):
    # ------------------------------------------------------------ no results

    def test_no_results_says_to_grade(self):
        rc, out = self.status()
        self.assertEqual(rc, 0)
        self.assertIn("Next: run ./workbook grade", out)
        self.assertIn("no grade run yet", out)
        self.assertIn("0 of 102 points", out)
        for s in CHAPTER.sections:
            self.assertTrue(self.row(out, s.id).endswith("not graded"), s.id)

    def test_unreadable_results_say_to_grade_again(self):
        self.build.mkdir(parents=True)
        (self.build / "results.json").write_text("{ half a file")
        rc, out = self.status()
        self.assertEqual(rc, 2)
        self.assertIn("cannot read", out)
        self.assertIn("Next: run ./workbook grade", out)

    # ------------------------------------------------------------ progress

    def fabricate(self, answers_72=("loads_total",), failing_74=("width one more than the block",)):
        tests = _answers("7.1") + _kernel_tests("7.2") + _answers("7.2", unanswered=answers_72) + \
            _kernel_tests("7.4", failing=failing_74) + _answers("7.4")
        return self.write_results(tests, ["7.1", "7.2", "7.4"])

    def test_table_and_overall_progress(self):
        self.fabricate()
        rc, out = self.status()
        self.assertEqual(rc, 0, out)
        self.assertRegex(self.row(out, "7.1"), r"-\s+-\s+\d+/\d+\s+5/5\s+PASS$")
        n72 = len(CHAPTER.questions("7.2"))
        self.assertRegex(self.row(out, "7.2"), rf"5/5\s+-\s+{n72 - 1}/{n72}\s+14\.\d/15\s+not yet$")
        self.assertRegex(self.row(out, "7.4"), r"4/5\s+-\s+\d+/\d+\s+13/15\s+not yet$")
        self.assertTrue(self.row(out, "7.3").endswith("not graded"))
        self.assertIn("Overall: 1 of 8 sections pass;", out)
        earned = 5 + 10 + 5 * (n72 - 1) / n72 + 10 * 4 / 5 + 5
        self.assertIn(f"{earned:.1f} of 102 points.", out)
        # Sections being worked on come before the ones not started.
        self.assertIn(f"Next: answer 1 question of 7.2 in exercises/7.2-basic-1d/answers.toml", out)
        self.assertIn("./workbook hint 7.2", out)

    def test_next_names_the_first_failing_test(self):
        self.fabricate(answers_72=())
        _, out = self.status()
        self.assertIn("Next: 7.4: fix 'width one more than the block' first", out)
        self.fabricate(answers_72=(), failing_74=("width one less than the block", "width 2^20"))
        _, out = self.status()
        self.assertIn("Next: 7.4: fix 'width one less than the block' first, then 1 more failing test", out)

    def test_wrong_and_unanswered_answers(self):
        tests = _kernel_tests("7.2") + _answers("7.2", unanswered=("loads_total", "exercise2_p"),
                                                wrong=("exercise1_p0",))
        self.write_results(tests, ["7.2"])
        _, out = self.status()
        self.assertIn("Next: answer 2 questions and fix 1 answer that is not right yet of 7.2", out)

    def test_stub_and_build_failure(self):
        tests = [_test("7.2", "correct", "the book's 3rd edition example", False,
                       "launch with Width = 7: the kernel has not been written yet")] + _answers("7.2")
        self.write_results(tests, ["7.2"])
        _, out = self.status()
        self.assertIn("Next: 7.2: write the kernel in exercises/7.2-basic-1d/convolution_1d_basic.cu", out)
        self.write_results(_answers("7.2"), ["7.2"], build_failures={"7.2": "error: expected ';'"})
        _, out = self.status()
        self.assertIn("no build", self.row(out, "7.2"))
        self.assertIn("Next: 7.2: make it compile first", out)

    def test_everything_passes_then_the_next_section(self):
        self.write_results(_kernel_tests("7.2") + _answers("7.2"), ["7.2"])
        _, out = self.status()
        self.assertTrue(self.row(out, "7.2").endswith("PASS"))
        # The README's order: the kernel sections, then 7.1 (questions only) once they pass.
        self.assertIn("Next: go on with 7.3", out)
        kernels = [t for s in CHAPTER.sections if s.kernels for t in _kernel_tests(s.id) + _answers(s.id)]
        self.write_results(kernels, [s.id for s in CHAPTER.sections if s.kernels])
        _, out = self.status()
        self.assertIn("Next: go on with 7.1", out)
        every = [t for s in CHAPTER.sections for t in
                 (_kernel_tests(s.id) if s.kernels else []) + _answers(s.id)]
        self.write_results(every, [s.id for s in CHAPTER.sections])
        _, out = self.status()
        self.assertIn("Overall: 8 of 8 sections pass; 102 of 102 points.", out)
        self.assertIn("every section passes", out)

    # ------------------------------------------------------------ stale results

    def test_results_older_than_an_edit_say_so(self):
        self.fabricate(answers_72=())
        kernel = self.root / "exercises" / "7.4-tiled-1d" / "convolution_1d_tiled.cu"
        later = (self.build / "results.json").stat().st_mtime + 10
        os.utime(kernel, (later, later))
        _, out = self.status()
        self.assertTrue(self.row(out, "7.4").endswith("not yet (edited since)"), out)
        self.assertFalse(self.row(out, "7.2").endswith("(edited since)"))
        self.assertIn("Next: run ./workbook grade 7.4 (these results are older than your edits, "
                      "e.g. exercises/7.4-tiled-1d/convolution_1d_tiled.cu)", out)

    def test_results_of_another_tree(self):
        self.fabricate()
        res = json.loads((self.build / "results.json").read_text())
        res["exercises"] = "/somewhere/else"
        (self.build / "results.json").write_text(json.dumps(res))
        os.utime(self.build / "results.json", (time.time() + 5,) * 2)
        _, out = self.status()
        self.assertIn("that run graded /somewhere/else", out)
        self.assertIn("Next: run ./workbook grade to grade your own exercises/", out)

    def test_cli_reads_build_dir(self):
        self.fabricate()
        other = self.root / "elsewhere"
        shutil.copytree(self.build, other)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = cli.main(self.root, ["status", "--build-dir", str(other)])
        self.assertEqual(rc, 0)
        # The copy is as new as the exercise files' copy, or newer: it is read, not "no results".
        self.assertIn("Overall: 1 of 8 sections pass", out.getvalue())



class Record(Tree):
    """Every grade run of the student's own tree adds to the record; status reads it."""

    def record_status(self):
        out = io.StringIO()
        rc = status.report(self.root, CHAPTER, None, out=out)
        return rc, out.getvalue()

    def grade_run(self, tests, sections, exercises=None, at=None):
        res = results.collect(CHAPTER, [CHAPTER.section(s) for s in sections], tests, {}, {}, "1",
                              exercises or self.root / "exercises")
        return record.save_run(self.root, res, now=at or time.time() + 5)

    def test_a_run_of_one_section_keeps_the_others(self):
        self.assertTrue(self.grade_run(_kernel_tests("7.2") + _answers("7.2"), ["7.2"]))
        self.assertTrue(self.grade_run(_kernel_tests("7.4", failing=("width 2^20",)) + _answers("7.4"), ["7.4"]))
        rc, out = self.record_status()
        self.assertEqual(rc, 0)
        self.assertTrue(self.row(out, "7.2").endswith("PASS"), out)
        self.assertTrue(self.row(out, "7.4").endswith("not yet"), out)
        self.assertIn("Next: 7.4: fix 'width 2^20' first", out)
        # Graded again, 7.4 replaces only itself.
        self.grade_run(_kernel_tests("7.4") + _answers("7.4"), ["7.4"])
        _, out = self.record_status()
        self.assertTrue(self.row(out, "7.2").endswith("PASS") and self.row(out, "7.4").endswith("PASS"), out)

    def test_grading_another_tree_leaves_the_students_record_alone(self):
        self.grade_run(_kernel_tests("7.2") + _answers("7.2"), ["7.2"])
        before = record.record_path(self.root).read_text()
        self.assertFalse(self.grade_run(_kernel_tests("7.2", failing=("width 2^20",)), ["7.2"],
                                  exercises=self.root / "submissions" / "alice"))
        self.assertEqual(record.record_path(self.root).read_text(), before)

    def test_an_edit_after_a_sections_run_says_so(self):
        self.grade_run(_kernel_tests("7.4") + _answers("7.4"), ["7.4"], at=time.time() - 100)
        kernel = self.root / "exercises" / "7.4-tiled-1d" / "convolution_1d_tiled.cu"
        os.utime(kernel, (time.time(), time.time()))
        _, out = self.record_status()
        self.assertTrue(self.row(out, "7.4").endswith("PASS (edited since)"), out)

    def test_a_first_grade_points_at_7_2_not_at_7_1(self):
        # The first grade of the chapter: 7.1 unanswered, 7.2 with a wrong answer. "Next:" and
        # `hint` take 7.2, where the README's walkthrough starts, not 7.1 (questions only).
        every = [t for s in CHAPTER.sections for t in (_kernel_tests(s.id, failing=("width 2^20",)) if s.kernels else [])
                 + _answers(s.id, unanswered=[q.id for q in CHAPTER.questions(s.id)] if s.id != "7.2" else (),
                            wrong=("loads_total",) if s.id == "7.2" else ())]
        self.grade_run(every, [s.id for s in CHAPTER.sections])
        self.assertEqual(status.current_section(self.root, CHAPTER).id, "7.2")
        self.assertIn("Next: 7.2: fix 'width 2^20' first", status.next_line(self.root, CHAPTER))
        out = io.StringIO()
        hints.run(self.root, CHAPTER, None, path=self.root / "hints.json", out=out)
        self.assertIn("hints of 7.2, the section you are on", out.getvalue())

    def test_a_kernel_with_its_todo_line_left_in_is_told_to_delete_it(self):
        message = ("launch with Width = 7: the kernel does work, but its HALO_TODO line is still there: delete that "
                   "line\nstill a stub: exercises/7.2-basic-1d/convolution_1d_basic.cu:15: TODO: write it")
        self.write_results([_test("7.2", "correct", "exercise 2", False, message)] + _answers("7.2"), ["7.2"])
        _, out = self.status()
        self.assertIn("Next: 7.2: delete the HALO_TODO line in exercises/7.2-basic-1d/convolution_1d_basic.cu", out)

    def test_hint_without_a_section_takes_the_one_the_student_is_on(self):
        self.grade_run(_kernel_tests("7.1") + _answers("7.1"), ["7.1"])
        self.grade_run(_kernel_tests("7.2", failing=("width 2^20",)) + _answers("7.2"), ["7.2"])
        self.assertEqual(status.current_section(self.root, CHAPTER).id, "7.2")
        out = io.StringIO()
        hints.run(self.root, CHAPTER, None, path=self.root / "hints.json", out=out)
        self.assertIn("hints of 7.2, the section you are on", out.getvalue())


if __name__ == "__main__":
    unittest.main()
