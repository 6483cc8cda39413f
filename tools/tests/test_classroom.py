"""GitHub Classroom: the autograding workflow (generated from the manifest and the assignment) and
the per-runner results its steps hand Classroom's reporter, scored per test on fabricated grade
runs, with the reporter's arithmetic redone here as its source does it."""
import base64
import json
import os
import re
import shlex
import shutil
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from halo.course import export as halo_export
from halo.core.chapter_data import load_chapter
from halo.cli import _parser
from halo.core import assignment as assignments
from halo.course.export_classroom import (MESSAGE_LIMITS, REPORTER, RESULT_LIMIT, RESULTS, apt_packages, classroom_result,
                                   run, run_result, step_id, workflow)
from halo.course.export_gradescope import to_gradescope

from .helpers import REPO_ROOT, result_test, section_result

try:
    import yaml
except ImportError:  # PyYAML is not a dependency of Halo; the text checks below still run
    yaml = None

# An assignment of two sections whose points make one point per test and per question of 7.2
# (15 CPU tests, 11 questions), so that "14 of 15" is exactly 14 points, not 14/15 rounded.
COURSE = """secret = "not used here"

[assignments.conv1d]
title = "1D convolution"
sections = ["7.2", "7.4"]
points = { "7.2" = { tests = 15, answers = 11 }, "7.4" = { tests = 30, answers = 10 } }
"""
COMPILER = ("FAILED: judge_7_4\n/scratch/tree/7.4-tiled-1d/convolution_1d_tiled.cu:12:5: error: use of undeclared "
            "identifier 'tile'\n    tile[threadIdx.x] = N[i];\n    ^\n1 error generated.\n")


def _test(name, status="passed", message="", seconds=0.25):
    return result_test(name, status, message, seconds)


_section_result = section_result


def fabricated(chapter, failing_72=(6,), wrong_72=("exercise2_p", "loads_total"), build_74="failed",
               answers_74="passed"):
    """A grade run of 7.2 (15 CPU tests, `failing_72` of them failing; the questions `wrong_72`
    wrong), 7.4 (its build `build_74`; its answers `answers_74`) and 7.3 (all right: outside the
    assignment), as `./workbook grade` writes results.json."""
    tests = []
    for k in range(15):
        kind = ("correct", "loads", "diagnostics")[k % 3]
        tests.append(_test(f"7.2 basic-1d / {kind} / case {k}", "failed" if k in failing_72 else "passed",
                           f"P[{k}] = 1, expected 2" if k in failing_72 else ""))
    tests.append(_test("gpu: 7.2 basic-1d / correct / on the GPU", "skipped", seconds=0))
    tests.append(_test("7.2 basic-1d / answers / the file is well-formed"))
    for q in chapter.questions("7.2"):
        wrong = q.id in wrong_72
        tests.append(_test(f"7.2 basic-1d / answers / {q.id}", "failed" if wrong else "passed",
                           f"{q.id}: not right" if wrong else ""))
    if build_74 == "ok":
        tests += [_test(f"7.4 tiled-1d / correct / case {k}") for k in range(6)]
    for q in chapter.questions("7.4"):
        tests.append(_test(f"7.4 tiled-1d / answers / {q.id}", answers_74,
                           "" if answers_74 == "passed" else f"{q.id}: not answered"))
    tests += [_test("7.3 constant-memory / correct / one")]
    tests += [_test(f"7.3 constant-memory / answers / {q.id}") for q in chapter.questions("7.3")]
    return {"version": 1, "seed": "99", "exercises": "/scratch/tree", "tests": tests,
            "sections": {"7.2": _section_result(), "7.3": _section_result(),
                         "7.4": _section_result(build_74, COMPILER if build_74 == "failed" else "")}}


def reporter_grade(env, runners):
    """What classroom-resources/autograding-grading-reporter@v1 posts for Classroom (main.js and
    notify-classroom.js): each runner's <ID>_RESULTS decoded from base64; the points are the sum
    of the tests' scores over the runners whose max_score is not 0, out of those max_scores."""
    total = maximum = 0
    for runner in runners.split(","):
        result = json.loads(base64.b64decode(env[f"{runner.strip().upper()}_RESULTS"]).decode("utf-8"))
        if not result["max_score"]:
            continue
        maximum += result["max_score"]
        total += sum(t["score"] for t in result["tests"])
    return round(total, 2), round(maximum, 2)


def _tests_of(doc, sid, answers=None):
    return [t for t in doc["tests"] if t["name"].startswith(sid + " ")
            and (answers is None or ("/ answers /" in t["name"]) == answers)]


class Fixture(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)

    def setUp(self):
        self.root = Path(tempfile.mkdtemp(prefix="halo-classroom-"))
        self.addCleanup(shutil.rmtree, self.root, True)
        (self.root / "course.toml").write_text(COURSE)
        self.assignment = assignments.load(self.chapter, self.root)
        # No workflow of ours may leak in when the tests run inside GitHub Actions.
        patcher = mock.patch.dict(os.environ)
        patcher.start()
        self.addCleanup(patcher.stop)
        os.environ.pop("GITHUB_OUTPUT", None)

    def write_results(self, res):
        path = self.root / RESULTS
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(res))
        return path


class Workflow(Fixture):
    def setUp(self):
        super().setUp()
        self.text = workflow(self.chapter, self.assignment)

    def result_steps(self):
        return re.findall(r"    - name: .*\n      id: (\S+)\n      if: \$\{\{ !cancelled\(\) \}\}\n"
                          r"      timeout-minutes: \d+\n      run: \"(.*)\"\n", self.text)

    def test_one_grade_step_for_the_assignments_sections_then_one_result_step_each(self):
        self.assertIn('run: "rm -f build/grade/results.json; ./workbook grade 7.2 7.4 || true"', self.text)
        self.assertRegex(self.text, r'- name: "Grade 7.2 7.4"\n      timeout-minutes: 20\n')
        self.assertEqual(self.result_steps(), [
            (step_id(s), f"./workbook export classroom-result --results {RESULTS} --section {s.id} --assignment conv1d")
            for s in self.assignment.sections])
        self.assertNotIn("7.3", self.text.split("steps:")[1])
        # The all-or-nothing command grader is gone: a section is no longer one pass/fail command.
        self.assertNotIn("autograding-command-grader", self.text)
        self.assertNotIn("max-score", self.text)

    def test_the_reporter_reads_every_runner(self):
        reporter = self.text[self.text.index("    - name: Autograding Reporter"):]
        ids = [sid for sid, _ in self.result_steps()]
        self.assertEqual(re.search(r"runners: (\S+)", reporter).group(1).split(","), ids)
        self.assertEqual(re.findall(r"        (\S+)_RESULTS: \"\$\{\{steps\.(\S+)\.outputs\.result\}\}\"", reporter),
                         [(i.upper(), i) for i in ids])
        self.assertIn(f"uses: {REPORTER}", reporter)
        self.assertIn("if: ${{ !cancelled() }}", reporter)  # a grade step that timed out still reports

    def test_the_whole_chapter_without_a_course_file(self):
        text = workflow(self.chapter)
        graded = [s for s in self.chapter.sections if assignments.section_points(s)]
        self.assertIn(f"./workbook grade {' '.join(s.id for s in graded)} || true", text)
        self.assertEqual(re.search(r"runners: (\S+)", text).group(1).split(","), [step_id(s) for s in graded])
        self.assertNotIn("--assignment", text)  # no file names it in the student's repository

    def test_step_ids_are_what_github_accepts(self):
        for s in self.chapter.sections:
            self.assertRegex(step_id(s), r"^[A-Za-z_][A-Za-z0-9_-]*$")

    def test_classroom_names_and_the_toolchain(self):
        self.assertIn("name: Autograding Tests\n", self.text)
        self.assertIn("  run-autograding-tests:\n", self.text)
        self.assertIn("'on':", self.text)  # a bare on: is the boolean true in YAML 1.1
        self.assertIn(" ".join(apt_packages()), self.text)
        self.assertIn("clang", apt_packages())

    def test_run_writes_the_assignments_workflow(self):
        out = self.root / "classroom.yml"
        with mock.patch("sys.stdout"), mock.patch("sys.stderr"):
            self.assertEqual(run(self.root, self.chapter, out), 0)
            self.assertEqual(out.read_text(), self.text)
            self.assertEqual(run(self.root, self.chapter, out, "no-such-assignment"), 2)

    @unittest.skipIf(yaml is None, "PyYAML is not installed")
    def test_it_is_yaml_with_the_structure_classroom_expects(self):
        doc = yaml.safe_load(self.text)
        self.assertEqual(doc["name"], "Autograding Tests")
        self.assertEqual(doc["on"], ["push", "repository_dispatch"])
        self.assertEqual(list(doc["jobs"]), ["run-autograding-tests"])
        steps = doc["jobs"]["run-autograding-tests"]["steps"]
        grade = [st for st in steps if "./workbook grade" in st.get("run", "")]
        self.assertEqual(len(grade), 1)
        self.assertTrue(grade[0]["run"].endswith("./workbook grade 7.2 7.4 || true"))
        self.assertGreater(grade[0]["timeout-minutes"], 0)
        results = [st for st in steps if "classroom-result" in st.get("run", "")]
        self.assertEqual([st["id"] for st in results], ["section-7-2", "section-7-4"])
        self.assertTrue(all(st["if"] == "${{ !cancelled() }}" for st in results))
        reporter = steps[-1]
        self.assertEqual(reporter["uses"], REPORTER)
        self.assertEqual(reporter["with"]["runners"].split(","), [st["id"] for st in results])
        self.assertEqual(reporter["env"], {f"{st['id'].upper()}_RESULTS": f"${{{{steps.{st['id']}.outputs.result}}}}"
                                           for st in results})


class PartialCredit(Fixture):
    def result(self, res, sections=None):
        return classroom_result(res, self.chapter, sections or self.assignment.sections)

    def test_14_of_15_tests_score_14_of_15_of_the_tests_points_and_answers_per_question(self):
        doc = self.result(fabricated(self.chapter), [self.assignment.section("7.2")])
        tests = _tests_of(doc, "7.2", answers=False)
        self.assertEqual(len(tests), 15)  # the GPU test not run and the well-formed check are worth nothing
        self.assertEqual(sum(t["max_score"] for t in tests), 15)
        self.assertEqual(sum(t["score"] for t in tests), 14)
        failed = [t for t in tests if t["status"] != "pass"]
        self.assertEqual([(t["name"], t["status"], t["score"], t["message"]) for t in failed],
                         [("7.2 basic-1d / correct / case 6", "fail", 0, "P[6] = 1, expected 2")])
        answers = _tests_of(doc, "7.2", answers=True)
        self.assertEqual(len(answers), 11)
        self.assertEqual(sum(t["score"] for t in answers), 9)  # 2 of the 11 questions wrong
        self.assertEqual(doc["max_score"], 26)
        self.assertEqual(doc["status"], "fail")
        self.assertTrue(all(t["line_no"] == 0 for t in doc["tests"]))  # else the log prints "- line undefined"

    def test_with_the_manifests_points_the_share_is_to_the_hundredth(self):
        section = self.chapter.section("7.2")  # tests = 10 over 15 tests: 0.67 or 0.66 each
        doc = self.result(fabricated(self.chapter), [section])
        got = sum(t["score"] for t in _tests_of(doc, "7.2", answers=False))
        self.assertAlmostEqual(got, 10 * 14 / 15, delta=0.01)

    def test_the_same_points_as_the_gradescope_export(self):
        for res in (fabricated(self.chapter), fabricated(self.chapter, failing_72=(0, 1, 14), build_74="ok")):
            for sections in (self.assignment.sections, self.chapter.sections):
                gradescope = [(t["name"], t["score"], t["max_score"])
                              for t in to_gradescope(res, self.chapter, sections=sections)["tests"] if t["max_score"]]
                classroom = [(t["name"], t["score"], t["max_score"]) for t in self.result(res, sections)["tests"]]
                self.assertEqual(classroom, gradescope)

    def test_extra_loads_scored_partial_keep_half_the_share(self):
        res = fabricated(self.chapter, failing_72=())
        res["tests"][1]["advice"] = "threads with no output loaded 12 elements of N"
        part = assignments.parse(self.chapter, "x", {"sections": ["7.2"], "points": {"7.2": {"tests": 15,
                                                                                        "answers": 11}}}, "test")
        part.sections[0].extra_loads = "partial"
        t = next(t for t in self.result(res, part.sections)["tests"] if t["name"] == res["tests"][1]["name"])
        self.assertEqual((t["status"], t["score"], t["max_score"]), ("pass", 0.5, 1))
        self.assertIn("half the points", t["message"])

    def test_a_section_that_does_not_compile_loses_its_tests_points_with_the_compilers_message(self):
        doc = self.result(fabricated(self.chapter), [self.assignment.section("7.4")])
        build = [t for t in doc["tests"] if "/ build /" in t["name"]]
        self.assertEqual(len(build), 1)
        self.assertEqual((build[0]["status"], build[0]["score"], build[0]["max_score"]), ("error", 0, 30))
        # The reporter prints an error's message (not its name): the name leads it, then clang's line.
        self.assertTrue(build[0]["message"].startswith("7.4 tiled-1d / build / the exercise compiled: "))
        self.assertIn("exercises/7.4-tiled-1d/convolution_1d_tiled.cu:12:5: error: use of undeclared identifier",
                      build[0]["message"])
        self.assertNotIn("/scratch/tree", build[0]["message"])
        # Its answers are scored on their own, as on Gradescope; unanswered, the section scores 0.
        self.assertEqual(sum(t["score"] for t in doc["tests"]), 10)
        doc = self.result(fabricated(self.chapter, answers_74="failed"), [self.assignment.section("7.4")])
        self.assertEqual((sum(t["score"] for t in doc["tests"]), doc["max_score"]), (0, 40))
        self.assertEqual(doc["status"], "error")

    def test_everything_right_passes(self):
        doc = self.result(fabricated(self.chapter, failing_72=(), wrong_72=(), build_74="ok"))
        self.assertEqual(doc["status"], "pass")
        self.assertEqual(sum(t["score"] for t in doc["tests"]), doc["max_score"])
        self.assertEqual(doc["max_score"], self.assignment.total())

    def test_the_assignments_sections_only(self):
        doc = self.result(fabricated(self.chapter))
        self.assertEqual({t["name"].split(" ")[0] for t in doc["tests"]}, {"7.2", "7.4"})
        self.assertEqual(doc["max_score"], 66)

    def test_long_messages_are_cut_to_fit_an_environment_variable(self):
        res = fabricated(self.chapter, failing_72=tuple(range(15)))
        for t in res["tests"]:
            t["message"] = "x" * 50_000
        res["tests"] += [_test(f"7.2 basic-1d / loads / more {k}", "failed", "y" * 50_000) for k in range(300)]
        self.write_results(res)
        with mock.patch("sys.stdout") as out, mock.patch("sys.stderr"):
            self.assertEqual(run_result(self.root, self.chapter, section_id="7.2"), 0)
        encoded = out.write.call_args_list[0].args[0]
        self.assertLessEqual(len(encoded), RESULT_LIMIT)
        doc = json.loads(base64.b64decode(encoded))
        self.assertEqual(len(_tests_of(doc, "7.2", answers=False)), 315)
        self.assertLessEqual(max(len(t["message"]) for t in doc["tests"]), MESSAGE_LIMITS[0] + 50)


class ThroughTheWorkflow(Fixture):
    """Each result step of the generated workflow run as the workflow runs it (its command line,
    $GITHUB_OUTPUT), then the reporter's points from the workflow's env and runners."""

    def run_workflow(self, res=None):
        if res is not None:
            self.write_results(res)
        text = workflow(self.chapter, self.assignment)
        cwd = os.getcwd()
        self.addCleanup(os.chdir, cwd)
        os.chdir(self.root)  # the workflow runs at the repository root; --results is relative to it
        outputs = {}
        for sid, command in re.findall(r"      id: (\S+)\n(?:      .*\n)*?      run: \"(.*)\"\n", text):
            argv = shlex.split(command)
            self.assertEqual(argv[:3], ["./workbook", "export", "classroom-result"])
            github_output = self.root / f"output-{sid}"
            github_output.write_text("")
            with mock.patch.dict(os.environ, {"GITHUB_OUTPUT": str(github_output)}), \
                    mock.patch("sys.stdout"), mock.patch("sys.stderr"):
                self.assertEqual(halo_export.run(self.root, self.chapter, _parser().parse_args(argv[1:])), 0)
            lines = github_output.read_text().splitlines()
            self.assertEqual(len(lines), 1)
            self.assertTrue(lines[0].startswith("result="))
            outputs[sid] = lines[0][len("result="):]
        env = {name: outputs[sid] for name, sid in
               re.findall(r"        (\S+_RESULTS): \"\$\{\{steps\.(\S+)\.outputs\.result\}\}\"", text)}
        return reporter_grade(env, re.search(r"runners: (\S+)", text).group(1))

    def test_classroom_records_partial_credit(self):
        # 7.2: 14 of 15 tests, 9 of 11 answers; 7.4: no build (0 of 30), 10 of 10 answers.
        self.assertEqual(self.run_workflow(fabricated(self.chapter)), (14 + 9 + 10, 66))

    def test_no_results_json_scores_0_with_a_reason(self):
        self.assertEqual(self.run_workflow(), (0, 66))
        with mock.patch("sys.stdout") as out, mock.patch("sys.stderr"):
            self.assertEqual(run_result(self.root, self.chapter, section_id="7.4"), 0)
        doc = json.loads(base64.b64decode(out.write.call_args_list[0].args[0]))
        self.assertEqual(doc["status"], "error")
        self.assertEqual([(t["status"], t["score"], t["max_score"]) for t in doc["tests"]], [("error", 0, 40)])
        self.assertIn("results.json could not be read", doc["tests"][0]["message"])

    def test_a_damaged_results_json_or_a_section_outside_the_assignment_still_leaves_a_result(self):
        self.write_results({"sections": {"7.2": {}}, "tests": [{"section": "7.2", "kind": "correct"}]})
        for section in ("7.2", "7.3"):
            with mock.patch("sys.stdout") as out, mock.patch("sys.stderr"):
                self.assertEqual(run_result(self.root, self.chapter, section_id=section), 0)
            doc = json.loads(base64.b64decode(out.write.call_args_list[0].args[0]))
            self.assertEqual((doc["status"], sum(t["score"] for t in doc["tests"])), ("error", 0))
        self.assertIn("not part of assignment conv1d", doc["tests"][0]["message"])


if __name__ == "__main__":
    unittest.main()
