"""core/untouched_stubs.py: which sections are still exactly their stub (and nothing else is taken
for one), and the results made for them without a run: the same verdicts, stub lines, points and
Gradescope scores as a real run of the stub gives (a fake of the real run's messages here; the
real run is compared by `./workbook internal check-untouched-stubs`)."""
import contextlib
import io
import os
import shutil
import unittest
from pathlib import Path
from unittest import mock

from halo.core import results, sync, test_list, untouched, untouched_stubs
from halo.core.chapter_data import load_chapter
from halo.course import class_harness, class_submission, export_gradescope

from .helpers import REPO_ROOT, scratch_dir, stubs

CHAPTER = load_chapter(REPO_ROOT)
KERNEL_SECTIONS = [s for s in CHAPTER.sections if s.kernels]


def _tree():
    out = scratch_dir("halo-untouched-") / "exercises"
    shutil.copytree(stubs(), out)
    return out


def _decide(tree, run_stubs=""):
    reference = untouched_stubs.stubs_in_folder(stubs(), CHAPTER.sections)
    with mock.patch.dict(os.environ, {untouched_stubs.RUN_STUBS: run_stubs}):
        return untouched_stubs.decide(CHAPTER.sections, tree, reference)


def _tests(section):
    return [n for src in sorted((REPO_ROOT / "grader" / "sections" / section.folder).glob("*.cpp"))
            for n in test_list.test_names(src, "cpu")]


class Decide(unittest.TestCase):
    def test_every_kernel_section_of_the_untouched_stubs_is_untouched(self):
        self.assertEqual(sorted(_decide(_tree())), sorted(s.id for s in KERNEL_SECTIONS))

    def test_halo_run_stubs_turns_it_off(self):
        self.assertEqual(_decide(_tree(), "1"), {})

    def test_one_byte_more_or_a_changed_comment_is_built_and_run(self):
        tree = _tree()
        s72, s74 = CHAPTER.section("7.2"), CHAPTER.section("7.4")
        with open(tree / s72.folder / s72.kernels[0], "ab") as f:
            f.write(b"\n")
        k74 = tree / s74.folder / s74.kernels[0]
        k74.write_bytes(k74.read_bytes().replace(b"//", b"/* */ //", 1))
        found = _decide(tree)
        self.assertNotIn("7.2", found)
        self.assertNotIn("7.4", found)
        self.assertIn("7.3", found)

    def test_another_file_in_the_folder_is_built_and_run(self):
        tree = _tree()
        s = CHAPTER.section("7.3")
        (tree / s.folder / "halo_given.cuh").write_text("#define HALO_TODO(x) 0\n")  # a header found first
        (tree / "7.4-tiled-1d" / "sub").mkdir()
        (tree / "7.4-tiled-1d" / "sub" / "x.h").write_text("")
        os.symlink("/dev/null", tree / "7.5-cached-1d" / "link.h")
        found = _decide(tree)
        for sid in ("7.3", "7.4", "7.5"):
            self.assertNotIn(sid, found)
        self.assertIn("7.2", found)

    def test_a_kernel_file_made_a_link_to_the_stub_is_built_and_run(self):
        tree = _tree()
        s = CHAPTER.section("7.2")
        kernel = tree / s.folder / s.kernels[0]
        kernel.unlink()
        os.symlink(stubs() / s.folder / s.kernels[0], kernel)
        self.assertNotIn("7.2", _decide(tree))

    def test_answers_do_not_decide(self):
        tree = _tree()
        (tree / "7.2-basic-1d" / "answers.toml").write_text("exercise1_p0 = 3\n")
        self.assertIn("7.2", _decide(tree))

    def test_the_submission_cannot_name_its_own_stubs(self):
        """The reference is the grader's: a stub folder that holds the student's kernel (as a
        submission might claim) is never the reference a grading path passes, and a reference
        missing a section decides nothing for it."""
        tree = _tree()
        self.assertNotIn("7.2", untouched_stubs.decide(CHAPTER.sections, tree, {}))

    def test_syncs_record_is_the_reference_of_a_students_own_tree(self):
        reference = untouched_stubs.stubs_in_record(REPO_ROOT / sync.RECORD, CHAPTER.sections)
        with mock.patch.dict(os.environ, {untouched_stubs.RUN_STUBS: ""}):
            found = untouched_stubs.decide(CHAPTER.sections, _tree(), reference)
        self.assertEqual(sorted(found), sorted(s.id for s in KERNEL_SECTIONS))
        self.assertEqual(untouched_stubs.stubs_in_record(scratch_dir() / "none.json", CHAPTER.sections), {})


def _real_message(todos, launch="Width = 7, Mask_Width = 5, 256 threads per block"):
    """What a real run of a stub says (as results.json holds it from the judge)."""
    return "\n".join([f"launch with {launch}: the kernel has not been written yet",
                      "7 of 7 elements of P were never written (they still hold the poison value): P[0]..P[6]"]
                     + [f"still a stub: {t}" for t in todos] + [f"  logged: {launch}"])


def _run(chapter, sections, tests):
    res = results.collect(chapter, sections, tests, {}, {}, "1", "/x")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        results.print_failures(res)
        results.print_summary(res)
    return res, out.getvalue()


REACHED = {"7.3": "copy the mask", "7.6": "compute the grid", "7.8": "write the"}  # words of the TODOs a run reaches


class SameResults(unittest.TestCase):
    def _both(self, sid):
        s = CHAPTER.section(sid)
        folder = stubs() / s.folder
        kernels = {k: (folder / k).read_bytes() for k in s.kernels}
        made = untouched_stubs.results_of(sid, _tests(s), kernels, f"{REPO_ROOT}/exercises/{s.folder}", REPO_ROOT)
        # What a real run reaches, as seen in one (2026-11-27): 7.3's host TODO (the mask's copy
        # fails first, no kernel is launched); in 7.8, each test the TODO of the kernel it launches.
        todos = [f"exercises/{s.folder}/{k}:{n}: TODO: {what}" for k, b in sorted(kernels.items())
                 for n, what in untouched_stubs.todo_lines(b) if REACHED[sid] in what]
        real = [dict(t, message=_real_message([todos[k % len(todos)]]), seconds=0.03) for k, t in enumerate(made)]
        return s, made, real

    def test_verdicts_stub_lines_table_points_and_gradescope_equal_a_real_run(self):
        for sid in REACHED:
            s, made, real = self._both(sid)
            res_made, out_made = _run(CHAPTER, [s], made)
            res_real, out_real = _run(CHAPTER, [s], real)
            self.assertEqual(res_made["sections"], res_real["sections"])
            self.assertEqual(out_made, out_real)
            self.assertIn(f"{sid} {s.slug}: still a stub — open exercises/{s.folder}/", out_made)
            self.assertEqual([(t["name"], t["status"]) for t in made], [(t["name"], t["status"]) for t in real])
            self.assertEqual([untouched.is_stub(t["message"]) for t in made], [True] * len(made))
            self.assertEqual([untouched.is_stub(t["message"]) for t in real], [True] * len(real))
            self.assertEqual(untouched.todos([t["message"] for t in made]), untouched.todos([t["message"] for t in real]))
            gs = [export_gradescope.to_gradescope(r, CHAPTER, 1.0, sections=[s]) for r in (res_made, res_real)]
            self.assertEqual(gs[0]["score"], gs[1]["score"])
            self.assertEqual([(t["name"], t["score"], t["max_score"], t.get("status")) for t in gs[0]["tests"]],
                             [(t["name"], t["score"], t["max_score"], t.get("status")) for t in gs[1]["tests"]])

    def test_the_host_todo_is_named_where_there_is_one_from_the_source_folder(self):
        for sid, reached in (("7.3", "copy the mask"), ("7.6", "compute the grid"), ("7.8", "write the")):
            s, made, _ = self._both(sid)
            lines = [n for n, text in enumerate((stubs() / s.folder / s.kernels[0]).read_text().split("\n"), 1)
                     if "HALO_TODO(" in text and reached in text]
            self.assertEqual(untouched.todos([made[0]["message"]]), {f"exercises/{s.folder}/{s.kernels[0]}": lines})
            self.assertTrue(all(untouched.is_stub(t["message"]) for t in made))

    def test_a_folder_outside_the_source_folder_is_named_in_full(self):
        self.assertEqual(untouched_stubs.shown_path("/scratch/ex/7.2-basic-1d/k.cu", REPO_ROOT),
                         "/scratch/ex/7.2-basic-1d/k.cu")


class _NothingRuns:
    """grade-class's process runner, for a grade that must build and run nothing."""
    def run(self, argv, *args, **kwargs):
        raise AssertionError(f"ran {argv[:2]}")


class GradeClass(unittest.TestCase):
    def _harness(self, sections):
        recipes = {s.id: class_harness.SectionRecipe(s, Path("/nonexistent/judge"), _tests(s))
                   for s in sections if s.kernels}  # as read_harness: no recipe for questions only
        return class_harness.Harness(Path("/nonexistent"), stubs(), recipes, Path("/nonexistent"), REPO_ROOT)

    def test_an_untouched_submission_is_graded_without_a_build_or_a_run(self):
        sections = [CHAPTER.section(sid) for sid in ("7.1", "7.3", "7.8")]
        tree, scratch = _tree(), scratch_dir()
        with mock.patch.dict(os.environ, {untouched_stubs.RUN_STUBS: ""}):
            res = class_submission.grade(_NothingRuns(), self._harness(sections), CHAPTER, sections, tree, scratch,
                                         1, ("none", ""))
        for s in sections[1:]:
            mine = [t for t in res["tests"] if t["section"] == s.id and t["kind"] != "answers"]
            self.assertEqual([t["name"] for t in mine], _tests(s))
            self.assertTrue(all(t["status"] == "failed" and untouched.is_stub(t["message"]) for t in mine))
            self.assertIn(f"{tree}/{s.folder}/{s.kernels[0]}:", mine[0]["message"])
        self.assertEqual(res["sections"]["7.3"]["answers"]["right"], 0)

    def test_with_halo_run_stubs_the_stub_is_built(self):
        sections = [CHAPTER.section("7.3")]
        with mock.patch.dict(os.environ, {untouched_stubs.RUN_STUBS: "1"}):
            with self.assertRaisesRegex(AssertionError, "ran"):
                class_submission.grade(_NothingRuns(), self._harness(sections), CHAPTER, sections, _tree(),
                                       scratch_dir(), 1, ("none", ""))


if __name__ == "__main__":
    unittest.main()
