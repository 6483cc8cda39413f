"""Gradescope: results.json from a grade run (on fabricated results), its validator, the
autograder zip and the rules by which run_autograder reads a submission."""
import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
import unittest
import zipfile
from pathlib import Path
from types import SimpleNamespace

from halo.course import export_autograder
from halo.course.export_classroom import apt_packages
from halo.course.export_gradescope import NOT_RUN_ON_GPU, to_gradescope, validate

from .helpers import REPO_ROOT, result_test, section_result, stubs


def _section(sid, slug, kernels, tests, answers, visibility="visible"):
    points = {"answers": answers} if tests is None else {"tests": tests, "answers": answers}
    return SimpleNamespace(id=sid, slug=slug, title=f"Title of {sid}", folder=f"{sid}-{slug}", kernels=kernels,
                           points=points, visibility=visibility)


class FakeChapter:
    """7.1: questions only; 7.2: a kernel, 3 CPU tests; 7.3: a kernel, hidden."""

    def __init__(self):
        self.sections = [_section("7.1", "background", [], None, 4),
                         _section("7.2", "basic-1d", ["basic.cu"], 10, 5),
                         _section("7.3", "constant-memory", ["constant.cu"], 6, 2, visibility="hidden")]
        self._questions = {"7.1": ["q1", "q2"], "7.2": ["a", "b", "c"], "7.3": ["only"]}

    def questions(self, sid):
        return [SimpleNamespace(id=q) for q in self._questions[sid]]

    def section(self, sid):
        return next(s for s in self.sections if s.id == sid)


def _test(name, status="passed", message="", seconds=0.5):
    return result_test(name, status, message, seconds)


_section_result = section_result


def all_passing():
    tests = [_test("7.1 background / answers / q1"), _test("7.1 background / answers / q2"),
             _test("7.1 background / answers / the file is well-formed")]
    tests += [_test(f"7.2 basic-1d / {k} / test {k}") for k in ("correct", "loads", "diagnostics")]
    tests += [_test(f"7.2 basic-1d / answers / {q}") for q in ("a", "b", "c")]
    tests += [_test("7.3 constant-memory / correct / one"), _test("7.3 constant-memory / correct / two"),
              _test("7.3 constant-memory / answers / only")]
    return {"version": 1, "seed": "1234", "tests": tests,
            "sections": {sid: _section_result() for sid in ("7.1", "7.2", "7.3")}}


def _by_name(doc):
    return {t["name"]: t for t in doc["tests"]}


def _section_points(doc, sid):
    return sum(t["max_score"] for t in doc["tests"] if t["number"].startswith(sid + "."))


class Conversion(unittest.TestCase):
    def setUp(self):
        self.chapter = FakeChapter()
        self.full = 4 + 15 + 8

    def test_everything_passing_gets_every_point_of_the_manifest(self):
        doc = to_gradescope(all_passing(), self.chapter, execution_time=12.4)
        self.assertEqual(validate(doc), [])
        self.assertAlmostEqual(doc["score"], self.full, places=6)
        self.assertEqual(doc["execution_time"], 12)
        self.assertAlmostEqual(_section_points(doc, "7.2"), 15, places=6)
        self.assertTrue(all(t["status"] == "passed" for t in doc["tests"]))

    def test_each_cpu_test_carries_an_even_share_of_the_tests_points(self):
        doc = to_gradescope(all_passing(), self.chapter)
        shares = [t["max_score"] for t in doc["tests"] if t["tags"] == ["7.2", "correct"] or
                  t["tags"] in (["7.2", "loads"], ["7.2", "diagnostics"])]
        self.assertEqual(shares, [3.34, 3.33, 3.33])
        answers = [t["max_score"] for t in doc["tests"] if t["tags"] == ["7.2", "answers"]]
        self.assertEqual(answers, [1.67, 1.67, 1.66])

    def test_a_failed_test_shows_its_message_and_a_passed_one_a_short_line(self):
        res = all_passing()
        res["tests"][3] = _test("7.2 basic-1d / correct / test correct", "failed", "P[3] = 1, expected 2")
        doc = to_gradescope(res, self.chapter)
        t = _by_name(doc)["7.2 basic-1d / correct / test correct"]
        # Pro rata: 2 of 3 tests of 10 points is 6.67 (20/3 rounded), so the odd hundredth of the
        # shares goes to a passed test and the failed one is worth 3.33 (core/cents.py).
        self.assertEqual((t["score"], t["max_score"], t["status"]), (0, 3.33, "failed"))
        self.assertEqual(t["output"], "P[3] = 1, expected 2")
        passed = _by_name(doc)["7.2 basic-1d / loads / test loads"]
        self.assertTrue(passed["output"].startswith("passed"))
        self.assertAlmostEqual(doc["score"], self.full - 3.33, places=6)
        self.assertEqual(validate(doc), [])

    def test_extra_loads_cost_half_a_test_only_where_the_manifest_says_partial(self):
        res = all_passing()
        res["tests"][4]["advice"] = "threads with no output loaded 12 elements of N"
        self.assertAlmostEqual(to_gradescope(res, self.chapter)["score"], self.full, places=6)  # advice by default
        self.chapter.section("7.2").extra_loads = "partial"
        doc = to_gradescope(res, self.chapter)
        t = _by_name(doc)["7.2 basic-1d / loads / test loads"]
        # Half of 10/3 is 1.666...: shown as the hundredths that make the section's rows add up.
        self.assertEqual((t["score"], t["max_score"], t.get("status")), (1.66, 3.33, None))
        self.assertAlmostEqual(doc["score"], self.full - 1.67, places=6)  # 25.333... rounded once
        self.assertIn("half the points, as this course scores extra loads: threads with no output", t["output"])
        self.assertEqual(validate(doc), [])

    def test_numbers_follow_the_section(self):
        doc = to_gradescope(all_passing(), self.chapter)
        self.assertEqual([t["number"] for t in doc["tests"] if t["tags"][0] == "7.2"],
                         [f"7.2.{k}" for k in range(1, 7)])

    def test_a_section_that_did_not_compile_is_one_failed_test_with_the_compiler_errors(self):
        res = all_passing()
        res["tests"] = [t for t in res["tests"] if not (t["section"] == "7.2" and t["kind"] != "answers")]
        res["exercises"] = "/scratch/tree"
        res["sections"]["7.2"] = _section_result(
            "failed", "FAILED: x.o\n/scratch/tree/7.2-basic-1d/basic.cu:9:3: error: expected ';' after expression\n"
                      "  x = 1\n      ^\n1 error generated.\n")
        doc = to_gradescope(res, self.chapter)
        t = _by_name(doc)["7.2 basic-1d / build / the exercise compiled"]
        self.assertEqual((t["score"], t["max_score"], t["status"]), (0, 10, "failed"))
        self.assertIn("exercises/7.2-basic-1d/basic.cu:9:3: error: expected ';'", t["output"])
        self.assertNotIn("/scratch/tree", t["output"])
        self.assertEqual([x for x in doc["tests"] if x["tags"] == ["7.2", "correct"]], [])
        self.assertAlmostEqual(_section_points(doc, "7.2"), 15, places=6)
        self.assertAlmostEqual(doc["score"], self.full - 10, places=6)  # the answers still count
        self.assertEqual(validate(doc), [])

    def test_the_build_placeholder_test_is_not_counted_twice(self):
        res = all_passing()
        res["tests"] = [t for t in res["tests"] if not (t["section"] == "7.2" and t["kind"] != "answers")]
        res["tests"].append(_test("7.2 basic-1d / build / the tests compiled", "failed", "not built"))
        res["sections"]["7.2"] = _section_result("failed", "basic.cu:1:1: error: unknown type name 'x'")
        doc = to_gradescope(res, self.chapter)
        builds = [t for t in doc["tests"] if t["tags"] == ["7.2", "build"]]
        self.assertEqual(len(builds), 1)
        self.assertAlmostEqual(_section_points(doc, "7.2"), 15, places=6)

    def test_gpu_tests_that_could_not_run_are_not_run_not_failed(self):
        res = all_passing()
        res["tests"].append(_test("gpu: 7.2 basic-1d / correct / on the GPU", "skipped", seconds=0))
        doc = to_gradescope(res, self.chapter)
        t = _by_name(doc)["gpu: 7.2 basic-1d / correct / on the GPU"]
        self.assertEqual((t["score"], t["max_score"]), (0, 0))
        self.assertNotEqual(t.get("status"), "failed")
        self.assertEqual(t["output"], NOT_RUN_ON_GPU)
        self.assertAlmostEqual(doc["score"], self.full, places=6)  # nothing lost for it
        self.assertAlmostEqual(_section_points(doc, "7.2"), 15, places=6)
        self.assertIn("GPU", doc["output"])
        self.assertEqual(validate(doc), [])

    def test_visibility_comes_from_the_manifest_and_hidden_sections_stay_out_of_the_summary(self):
        doc = to_gradescope(all_passing(), self.chapter)
        self.assertEqual({t["visibility"] for t in doc["tests"] if t["tags"][0] == "7.3"}, {"hidden"})
        self.assertEqual({t["visibility"] for t in doc["tests"] if t["tags"][0] == "7.2"}, {"visible"})
        self.assertIn("Title of 7.2", doc["output"])
        self.assertNotIn("Title of 7.3", doc["output"])
        self.assertIn("Section 7.3: results are not shown.", doc["output"])

    def test_answers_not_answered_or_not_checked_fail_and_well_formed_is_worth_nothing(self):
        res = all_passing()
        res["tests"] = [t for t in res["tests"] if t["name"] != "7.1 background / answers / q2"]
        res["tests"][0] = _test("7.1 background / answers / q1", "failed", "q1: not answered")
        doc = to_gradescope(res, self.chapter)
        names = _by_name(doc)
        self.assertEqual(names["7.1 background / answers / q1"]["output"], "q1: not answered")
        self.assertEqual(names["7.1 background / answers / q2"]["status"], "failed")
        self.assertEqual(names["7.1 background / answers / q2"]["max_score"], 2)
        self.assertEqual(names["7.1 background / answers / the file is well-formed"]["max_score"], 0)
        self.assertAlmostEqual(_section_points(doc, "7.1"), 4, places=6)
        self.assertAlmostEqual(doc["score"], self.full - 4, places=6)

    def test_a_section_missing_from_the_run_is_failed_with_all_its_points(self):
        res = all_passing()
        del res["sections"]["7.3"]
        res["tests"] = [t for t in res["tests"] if t["section"] != "7.3"]
        doc = to_gradescope(res, self.chapter)
        t = _by_name(doc)["7.3 constant-memory / grade / the section was graded"]
        self.assertEqual((t["score"], t["max_score"], t["status"]), (0, 8, "failed"))

    def test_a_section_whose_tests_never_ran_loses_its_tests_points(self):
        res = all_passing()
        res["tests"] = [t for t in res["tests"] if not (t["section"] == "7.3" and t["kind"] == "correct")]
        doc = to_gradescope(res, self.chapter)
        t = _by_name(doc)["7.3 constant-memory / build / the tests ran"]
        self.assertEqual((t["score"], t["max_score"]), (0, 6))

    def test_a_preamble_comes_first(self):
        doc = to_gradescope(all_passing(), self.chapter, preamble="Files graded:\n  7.2: basic.cu\n")
        self.assertTrue(doc["output"].startswith("Files graded:"))


class Validator(unittest.TestCase):
    def good(self):
        return to_gradescope(all_passing(), FakeChapter())

    def test_accepts_the_conversion_and_the_specification_minimum(self):
        self.assertEqual(validate(self.good()), [])
        self.assertEqual(validate({"score": 44.0}), [])
        self.assertEqual(validate({"tests": [{"score": 1, "max_score": 2, "name": "n", "number": "1"}]}), [])

    def test_rejects_what_the_specification_does_not_allow(self):
        cases = {
            "status": lambda d: d["tests"][0].update(status="skipped"),
            "visibility": lambda d: d["tests"][0].update(visibility="secret"),
            "should be a number": lambda d: d["tests"][0].update(score="1"),
            "unknown field": lambda d: d["tests"][0].update(points=1),
            "unknown top-level": lambda d: d.update(grade=1),
            "stdout_visibility": lambda d: d.update(stdout_visibility="always"),
            "sum": lambda d: d.update(score=d["score"] + 1),
            "between 0": lambda d: d["tests"][0].update(score=d["tests"][0]["max_score"] + 1),
            "tags": lambda d: d["tests"][0].update(tags=[1]),
            "should be a str": lambda d: d["tests"][0].update(number=1.1),
            "execution_time": lambda d: d.update(execution_time=-1),
        }
        for expected, spoil in cases.items():
            doc = self.good()
            spoil(doc)
            problems = validate(doc)
            self.assertTrue(any(expected in p for p in problems), f"{expected}: {problems}")

    def test_a_score_is_needed_somewhere(self):
        self.assertTrue(validate({"tests": [{"name": "n"}]}))
        self.assertTrue(validate([]))
        self.assertTrue(validate({"score": float("nan")}))


def _tree(root, files):
    for rel, text in files.items():
        path = Path(root) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


class TakeSubmission(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="halo-submission-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.chapter = FakeChapter()
        self.clean = self.tmp / "clean"
        _tree(self.clean, {"7.1-background/answers.toml": "stub", "7.2-basic-1d/basic.cu": "stub",
                           "7.2-basic-1d/answers.toml": "stub", "7.3-constant-memory/constant.cu": "stub",
                           "7.3-constant-memory/answers.toml": "stub"})
        self.sub, self.out = self.tmp / "submission", self.tmp / "out"

    def read(self, rel):
        return (self.out / rel).read_text()

    def test_a_tree_shaped_like_exercises_at_any_depth(self):
        _tree(self.sub, {"repo/exercises/7.2-basic-1d/basic.cu": "mine", "repo/exercises/7.2-basic-1d/answers.toml": "a",
                         "repo/a-copy/7.2-basic-1d/basic.cu": "another copy beside exercises/",
                         "repo/exercises/7.1-background/answers.toml": "b"})
        notes = export_autograder.take_submission(self.chapter, self.sub, self.clean, self.out)
        self.assertEqual((self.read("7.2-basic-1d/basic.cu"), self.read("7.2-basic-1d/answers.toml"),
                          self.read("7.1-background/answers.toml")), ("mine", "a", "b"))
        self.assertEqual(self.read("7.3-constant-memory/constant.cu"), "stub")
        self.assertTrue(any("7.3-constant-memory: nothing submitted" in n for n in notes), notes)

    def test_loose_kernel_files_match_by_name_but_a_loose_answers_file_does_not(self):
        _tree(self.sub, {"basic.cu": "mine", "constant.cu": "mine too", "answers.toml": "which section?"})
        notes = export_autograder.take_submission(self.chapter, self.sub, self.clean, self.out)
        self.assertEqual(self.read("7.2-basic-1d/basic.cu"), "mine")
        self.assertEqual(self.read("7.3-constant-memory/constant.cu"), "mine too")
        self.assertEqual(self.read("7.2-basic-1d/answers.toml"), "stub")
        self.assertTrue(any("ignored answers.toml" in n for n in notes), notes)

    def test_a_kernel_in_another_sections_folder_is_not_taken(self):
        _tree(self.sub, {"7.3-constant-memory/basic.cu": "misplaced"})
        notes = export_autograder.take_submission(self.chapter, self.sub, self.clean, self.out)
        self.assertEqual(self.read("7.2-basic-1d/basic.cu"), "stub")
        self.assertTrue(any("ignored 7.3-constant-memory/basic.cu" in n for n in notes), notes)

    def test_the_shallowest_copy_wins(self):
        _tree(self.sub, {"basic.cu": "top", "old/basic.cu": "deeper"})
        notes = export_autograder.take_submission(self.chapter, self.sub, self.clean, self.out)
        self.assertEqual(self.read("7.2-basic-1d/basic.cu"), "top")
        self.assertTrue(any("1 other copies ignored" in n for n in notes), notes)

    def test_links_are_never_followed(self):
        _tree(self.tmp, {"secret/basic.cu": "the reference"})
        self.sub.mkdir()
        (self.sub / "basic.cu").symlink_to(self.tmp / "secret" / "basic.cu")
        export_autograder.take_submission(self.chapter, self.sub, self.clean, self.out)
        self.assertEqual(self.read("7.2-basic-1d/basic.cu"), "stub")

    def test_an_empty_or_missing_submission_grades_the_stubs(self):
        notes = export_autograder.take_submission(self.chapter, self.sub, self.clean, self.out)
        self.assertEqual(self.read("7.2-basic-1d/basic.cu"), "stub")
        self.assertTrue(any("empty" in n for n in notes))

    def test_the_previous_tree_is_replaced(self):
        _tree(self.out, {"7.2-basic-1d/basic.cu": "last student's"})
        export_autograder.take_submission(self.chapter, self.sub, self.clean, self.out)
        self.assertEqual(self.read("7.2-basic-1d/basic.cu"), "stub")


class AutograderZip(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="halo-zip-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def test_setup_installs_every_package_the_toolchain_can_ask_for(self):
        wanted = set(re.findall(r'tc\.missing\.append\(\(.*?, "([a-z0-9.+-]+)"\)\)',
                                (REPO_ROOT / "tools" / "halo" / "core" / "toolchain.py").read_text()))
        self.assertGreaterEqual(len(wanted), 5)
        self.assertEqual(wanted - set(apt_packages()), set())
        self.assertIn("python3-pip", apt_packages())

    def test_the_zip_holds_the_scripts_at_its_root_executable_and_halo_without_solutions(self):
        out = self.tmp / "autograder.zip"
        count = export_autograder.build_zip(REPO_ROOT, out)
        with zipfile.ZipFile(out) as z:
            names = set(z.namelist())
            modes = {i.filename: (i.external_attr >> 16) for i in z.infolist()}
        self.assertGreater(count, 50)
        for name in ("setup.sh", "run_autograder", "halo/workbook", "halo/chapters/manifest.toml",
                     "halo/tools/halo/course/autograde.py", "halo/tools/halo/course/export_gradescope.py"):
            self.assertIn(name, names)
        for name in ("setup.sh", "run_autograder", "halo/workbook"):
            self.assertTrue(modes[name] & stat.S_IXUSR, name)
        self.assertFalse([n for n in names if n.startswith("halo/solutions/") or "/build/" in n or n.endswith(".pyc")])
        export_autograder.extract(out, self.tmp / "x")
        self.assertTrue(os.access(self.tmp / "x" / "run_autograder", os.X_OK))

    def _fake_root(self):
        """A fake /autograder with Halo's tools, chapters, stubs and launcher (nothing built)."""
        root = self.tmp / "autograder"
        halo = root / "source" / "halo"
        shutil.copytree(REPO_ROOT / "tools" / "halo", halo / "tools" / "halo",
                        ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(REPO_ROOT / "chapters", halo / "chapters")
        shutil.copytree(stubs(), halo / "exercises")
        shutil.copy(REPO_ROOT / "workbook", halo / "workbook")
        shutil.copy(export_autograder.TEMPLATES / "run_autograder", root / "run_autograder")
        (root / "submission").mkdir()
        return root

    def test_run_autograder_writes_results_even_when_grading_crashes(self):
        root = self._fake_root()
        not_a_folder = self.tmp / "build-is-a-file"
        not_a_folder.write_text("")  # the grade breaks on its first step with a traceback
        p = subprocess.run([str(root / "run_autograder")], cwd=root, capture_output=True, text=True,
                           env=dict(os.environ, AUTOGRADER_ROOT=str(root), HALO_AUTOGRADER_BUILD=str(not_a_folder)))
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads((root / "results" / "results.json").read_text())
        self.assertEqual(validate(doc), [])
        self.assertEqual(doc["score"], 0)
        self.assertIn("halo autograde: grading broke", doc["output"])
        self.assertIn("NotADirectoryError", doc["output"])
        self.assertEqual(doc["output"].count("Files graded"), 1, doc["output"])  # the note, once

    def test_run_autograder_writes_results_when_halo_itself_does_not_start(self):
        root = self._fake_root()
        (root / "source" / "halo" / "workbook").write_text("#!/bin/sh\necho 'Traceback: halo exploded' >&2\nexit 1\n")
        p = subprocess.run([str(root / "run_autograder")], cwd=root, capture_output=True, text=True,
                           env=dict(os.environ, AUTOGRADER_ROOT=str(root)))
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads((root / "results" / "results.json").read_text())
        self.assertEqual(validate(doc), [])
        self.assertEqual(doc["score"], 0)
        self.assertIn("halo exploded", doc["output"])


if __name__ == "__main__":
    unittest.main()
