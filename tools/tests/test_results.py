"""Grade results: test names, doctest failure text, CTest's JUnit file, load reports, the per-section
summary and the overall verdict."""
import contextlib
import io
import json
import tempfile
import unittest
from pathlib import Path
from types import SimpleNamespace

from halo.core.chapter_data import load_chapter
from halo.core.results import (answers_cell, collect, failure_message, parse_name, passed, print_summary, read_advice,
                               read_junit, read_loads)
from tests.helpers import REPO_ROOT

DOCTEST_OUTPUT = """\
[doctest] doctest version is "2.4.11"
[doctest] run with "--help" for options
===============================================================================
/work/grader/sections/7.2-basic-1d/test_basic_1d.cpp:30:
TEST CASE:  7.2 basic-1d / correct / small widths

/work/grader/sections/7.2-basic-1d/test_basic_1d.cpp:44: FATAL ERROR: 3 of 7 elements of P are wrong:
    P[0] = 1.5, expected 2.5
    P[1] = 0, expected 4
logged: Width = 7, Mask_Width = 3, seed 12345

===============================================================================
[doctest] test cases: 1 | 0 passed | 1 failed | 0 skipped
[doctest] assertions: 2 | 1 passed | 1 failed |
[doctest] Status: FAILURE!
"""

EXPECTED_MESSAGE = """\
3 of 7 elements of P are wrong:
    P[0] = 1.5, expected 2.5
    P[1] = 0, expected 4
logged: Width = 7, Mask_Width = 3, seed 12345"""

JUNIT = """\
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="Linux-c++" tests="6" failures="1" disabled="0" skipped="1" hostname="" time="3" timestamp="2024-01-01T00:00:00">
\t<testcase name="7.2 basic-1d / correct / small widths" classname="7.2 basic-1d / correct / small widths" time="0.25" status="fail">
\t\t<failure message="Failed"/>
\t\t<system-out>{out}</system-out>
\t</testcase>
\t<testcase name="7.2 basic-1d / loads / each input read once" classname="7.2 basic-1d / loads / each input read once" time="0.5" status="run">
\t\t<system-out>[doctest] Status: SUCCESS!</system-out>
\t</testcase>
\t<testcase name="gpu: 7.2 basic-1d / correct / on the GPU" classname="gpu: 7.2 basic-1d / correct / on the GPU" time="0" status="notrun">
\t\t<skipped message="Disabled"/>
\t\t<system-out></system-out>
\t</testcase>
\t<testcase name="7.2 basic-1d / answers / q_ghosts" classname="7.2 basic-1d / answers / q_ghosts" time="0.1" status="run">
\t\t<system-out>q_ghosts: right</system-out>
\t</testcase>
\t<testcase name="7.2 basic-1d / answers / the file is well-formed" classname="7.2 basic-1d / answers / the file is well-formed" time="0.1" status="run">
\t\t<system-out></system-out>
\t</testcase>
\t<testcase name="runtime / barriers wait for every thread" classname="runtime / barriers wait for every thread" time="" status="run">
\t</testcase>
</testsuite>
"""


class Names(unittest.TestCase):
    def test_plain(self):
        self.assertEqual(parse_name("7.2 basic-1d / loads / x"),
                         {"tree": None, "section": "7.2", "slug": "basic-1d", "kind": "loads", "what": "x"})

    def test_solutions_prefix(self):
        self.assertEqual(parse_name("solutions: 7.2 basic-1d / correct / y"),
                         {"tree": "solutions", "section": "7.2", "slug": "basic-1d", "kind": "correct", "what": "y"})

    def test_gpu_prefix(self):
        self.assertEqual(parse_name("gpu: 7.2 basic-1d / correct / z"),
                         {"tree": "gpu", "section": "7.2", "slug": "basic-1d", "kind": "correct", "what": "z"})
        self.assertEqual(parse_name("gpu solutions: 12.10 tiled-2d / answers / q1")["tree"], "gpu solutions")
        self.assertEqual(parse_name("gpu solutions: 12.10 tiled-2d / answers / q1")["section"], "12.10")

    def test_what_keeps_slashes(self):
        self.assertEqual(parse_name("7.2 basic-1d / correct / Width = 1 / Mask_Width = 3")["what"],
                         "Width = 1 / Mask_Width = 3")

    def test_runtime_has_no_section(self):
        name = "runtime / barriers wait for every thread of the block"
        self.assertEqual(parse_name(name),
                         {"tree": None, "section": None, "slug": None, "kind": None, "what": name})


class FailureMessage(unittest.TestCase):
    def test_doctest_error(self):
        self.assertEqual(failure_message(DOCTEST_OUTPUT), EXPECTED_MESSAGE)

    def test_non_fatal_error(self):
        line = "=" * 79
        out = (f"{line}\n/a/b.cpp:12: ERROR: CHECK( x == 1 ) is NOT correct!\n  values: CHECK( 2 == 1 )\n"
               f"{line}\n[doctest] test cases: 1 | 0 passed | 1 failed\n")
        self.assertEqual(failure_message(out), "CHECK( x == 1 ) is NOT correct!\n  values: CHECK( 2 == 1 )")

    def test_only_the_first_prefix_removed(self):
        out = "/a.cpp:1: ERROR: first\n/b.cpp:2: ERROR: second\n"
        self.assertEqual(failure_message(out), "first\n/b.cpp:2: ERROR: second")

    def test_without_doctest_error_the_tail(self):
        self.assertEqual(failure_message("q1: wrong\n  expected 4, got 5\n\n"), "q1: wrong\n  expected 4, got 5")
        long = "\n".join(f"line {k}" for k in range(100))
        self.assertEqual(failure_message(long), "\n".join(f"line {k}" for k in range(70, 100)))


class Junit(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory(prefix="halo-results-")
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)

    def test_read(self):
        from xml.sax.saxutils import escape
        path = self.dir / "junit.xml"
        path.write_text(JUNIT.format(out=escape(DOCTEST_OUTPUT)))
        tests = read_junit(path)
        self.assertEqual([(t["name"], t["section"], t["kind"], t["status"]) for t in tests], [
            ("7.2 basic-1d / correct / small widths", "7.2", "correct", "failed"),
            ("7.2 basic-1d / loads / each input read once", "7.2", "loads", "passed"),
            ("gpu: 7.2 basic-1d / correct / on the GPU", "7.2", "correct", "skipped"),
            ("7.2 basic-1d / answers / q_ghosts", "7.2", "answers", "passed"),
            ("7.2 basic-1d / answers / the file is well-formed", "7.2", "answers", "passed"),
            ("runtime / barriers wait for every thread", None, None, "passed"),
        ])
        self.assertEqual(tests[0]["message"], EXPECTED_MESSAGE)
        self.assertEqual([t["message"] for t in tests[1:]], [""] * 5)
        self.assertEqual([t["seconds"] for t in tests], [0.25, 0.5, 0.0, 0.1, 0.1, 0.0])

    def test_error_element_and_disabled_status(self):
        path = self.dir / "junit.xml"
        path.write_text('<testsuite><testcase name="7.2 basic-1d / build / the tests compiled" time="1" status="fail">'
                        '<error message="x"/><system-out>test_7_2 was not built</system-out></testcase>'
                        '<testcase name="7.2 basic-1d / correct / d" status="disabled"/></testsuite>')
        tests = read_junit(path)
        self.assertEqual([(t["kind"], t["status"]) for t in tests], [("build", "failed"), ("correct", "skipped")])
        self.assertEqual(tests[0]["message"], "test_7_2 was not built")

    def test_missing_file(self):
        self.assertEqual(read_junit(self.dir / "nope.xml"), [])

    def test_loads(self):
        loads = self.dir / "loads"
        loads.mkdir()
        recs = {"b.json": {"section": "7.2", "launch": "second", "rows": []},
                "a.json": {"section": "7.2", "launch": "first", "rows": [{"array": "N"}]},
                "c.json": {"section": "8.1", "launch": "other", "rows": []}}
        for name, rec in recs.items():
            (loads / name).write_text(json.dumps(rec))
        (loads / "broken.json").write_text("{not json")
        (loads / "notes.txt").write_text(json.dumps({"section": "9.9", "launch": "ignored", "rows": []}))
        self.assertEqual(read_loads(self.dir), {"7.2": [recs["a.json"], recs["b.json"]], "8.1": [recs["c.json"]]})

    def test_no_loads(self):
        self.assertEqual(read_loads(self.dir), {})

    def test_order_is_not_the_writers_process_ids(self):
        # A file is named SECTION-PID-SERIAL.json; which test got the lower id changes between two
        # runs of the same grade (the CI once printed 7.2's load reports in another order).
        big = {"section": "7.2", "launch": "Width = 1048576, Mask_Width = 5", "rows": []}
        small = [{"section": "7.2", "launch": f"Width = 8192, {b} threads per block", "rows": []} for b in (128, 32)]
        tip = [{"section": "7.2", "test": t, "text": f"advice {t}"} for t in ("b", "a")]
        seen = []
        for names in (("7.2-5686-0", "7.2-5688-0", "7.2-5688-1"), ("7.2-99-0", "7.2-7-0", "7.2-7-1")):
            with tempfile.TemporaryDirectory() as d:
                for kind, recs in (("loads", [big] + small), ("advice", tip)):
                    (Path(d) / kind).mkdir()
                    for name, rec in zip(names, recs):
                        (Path(d) / kind / f"{name}.json").write_text(json.dumps(rec))
                seen.append((read_loads(d), read_advice(d)))
        self.assertEqual(seen[0], seen[1])
        self.assertEqual(seen[0][0]["7.2"], [big] + small)


def _chapter(questions):
    sections = [SimpleNamespace(id=sid, title=f"title {sid}") for sid in questions]
    return SimpleNamespace(sections=sections, questions=lambda sid: list(questions[sid])), sections


def _test(name, status):
    info = parse_name(name)
    return {"name": name, "section": info["section"], "kind": info["kind"], "status": status,
            "message": "", "seconds": 0.0}


class Collect(unittest.TestCase):
    def setUp(self):
        self.chapter, self.sections = _chapter({"7.2": ["q1", "q2", "q3"], "8.1": ["q1"]})
        self.tests = [
            _test("7.2 basic-1d / correct / a", "passed"),
            _test("7.2 basic-1d / correct / b", "failed"),
            _test("7.2 basic-1d / loads / c", "passed"),
            _test("gpu: 7.2 basic-1d / correct / d", "skipped"),
            _test("gpu: 7.2 basic-1d / loads / e", "skipped"),
            _test("7.2 basic-1d / answers / q1", "passed"),
            _test("7.2 basic-1d / answers / q2", "failed"),
            _test("7.2 basic-1d / answers / q3", "passed"),
            _test("7.2 basic-1d / answers / the file is well-formed", "passed"),
            _test("8.1 tiled / correct / a", "passed"),
            _test("runtime / barriers", "passed"),
        ]
        self.loads = {"7.2": [{"section": "7.2", "launch": "L", "rows": []}]}

    def collect(self, failures=None, tests=None):
        return collect(self.chapter, self.sections, self.tests if tests is None else tests, self.loads,
                       failures or {}, "42", Path("/tmp/ex"))

    def test_summary(self):
        res = self.collect()
        self.assertEqual(res["version"], 1)
        self.assertEqual(res["seed"], "42")
        self.assertEqual(res["exercises"], "/tmp/ex")
        self.assertIs(res["tests"], self.tests)
        self.assertRegex(res["created"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$")
        s = res["sections"]["7.2"]
        self.assertEqual(s["title"], "title 7.2")
        self.assertEqual(s["build"], "ok")
        self.assertEqual(s["build_output"], "")
        self.assertEqual(s["tests"], {"passed": 2, "total": 3, "not_run": 2})
        self.assertEqual(s["answers"], {"right": 2, "asked": 3, "elsewhere": 0})
        self.assertEqual(s["loads"], self.loads["7.2"])
        t = res["sections"]["8.1"]
        self.assertEqual(t["tests"], {"passed": 1, "total": 1, "not_run": 0})
        self.assertEqual(t["answers"], {"right": 0, "asked": 1, "elsewhere": 0})
        self.assertEqual(t["loads"], [])
        self.assertEqual(list(res["sections"]), ["7.2", "8.1"])
        json.dumps(res)  # results.json must be writable

    def test_a_kernel_file_with_its_own_tile_size_hears_that_the_section_fixes_it(self):
        chapter = load_chapter(REPO_ROOT)
        section = chapter.section("7.4")
        with tempfile.TemporaryDirectory() as ex:
            folder = Path(ex) / section.folder
            folder.mkdir()
            (folder / section.kernels[0]).write_text("constexpr int TILE_SIZE = 128;\n")
            res = collect(chapter, [section], [], {}, {}, "1", ex)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                print_summary(res)
        self.assertIn("advice (7.4, not a failure): your file declares its own TILE_SIZE (128), and your kernel "
                      "uses it; section 7.4 fixes TILE_SIZE at 256", out.getvalue())

    def test_only_selected_sections(self):
        res = collect(self.chapter, self.sections[1:], self.tests, {}, {}, "1", "ex")
        self.assertEqual(list(res["sections"]), ["8.1"])

    def test_answers_sent_on_to_the_autograder_are_neither_right_nor_failed(self):
        ok = [dict(t, status="passed") if t["status"] == "failed" else t for t in self.tests]
        ok = [dict(t, status="skipped") if t["name"].endswith("/ q2") else t for t in ok]  # a summative release
        ok.append(_test("8.1 tiled / answers / q1", "passed"))
        res = self.collect(tests=ok)
        s = res["sections"]["7.2"]
        self.assertEqual(s["answers"], {"right": 2, "asked": 3, "elsewhere": 1})
        self.assertEqual(answers_cell(s), "2+1*/3")
        self.assertTrue(passed(res))

    def test_build_failure(self):
        res = self.collect({"8.1": "kernel.cu:3: error: expected ';'"})
        self.assertEqual(res["sections"]["8.1"]["build"], "failed")
        self.assertEqual(res["sections"]["8.1"]["build_output"], "kernel.cu:3: error: expected ';'")
        self.assertEqual(res["sections"]["7.2"]["build"], "ok")

    def test_passed(self):
        ok = [dict(t, status="passed") if t["status"] == "failed" else t for t in self.tests]
        ok.append(_test("8.1 tiled / answers / q1", "passed"))  # every question answered right
        res = self.collect(tests=ok)
        self.assertEqual(res["sections"]["7.2"]["answers"], {"right": 3, "asked": 3, "elsewhere": 0})
        self.assertTrue(passed(res))
        # a failing test, answers included
        self.assertFalse(passed(self.collect()))
        only_answer_wrong = [dict(t, status="failed") if t["name"].endswith("/ q2") else t for t in ok]
        self.assertFalse(passed(self.collect(tests=only_answer_wrong)))
        # a failing test outside any section
        self.assertFalse(passed(self.collect(tests=ok + [_test("runtime / x", "failed")])))
        # a section that did not build
        self.assertFalse(passed(self.collect({"7.2": "error"}, tests=ok)))
        # a section without tests, or whose tests were all skipped
        no_81 = [t for t in ok if t["section"] != "8.1"]
        self.assertFalse(passed(self.collect(tests=no_81)))
        skipped_81 = no_81 + [_test("8.1 tiled / correct / a", "skipped")]
        res = self.collect(tests=skipped_81)
        self.assertEqual(res["sections"]["8.1"]["tests"], {"passed": 0, "total": 0, "not_run": 1})
        self.assertFalse(passed(res))


class Advice(unittest.TestCase):
    def test_advice_is_read_once_per_text_and_marks_the_test_that_gave_it(self):
        import json
        import tempfile
        from pathlib import Path

        from halo.core.results import mark_advised, read_advice
        with tempfile.TemporaryDirectory() as d:
            folder = Path(d, "advice")
            folder.mkdir()
            rec = {"section": "7.2", "test": "7.2 basic-1d / loads / a", "text": "threads with no output loaded 4"}
            for k in range(2):
                (folder / f"7.2-1-{k}.json").write_text(json.dumps(rec))
            (folder / "broken.json").write_text("{")
            self.assertEqual(read_advice(d), {"7.2": ["threads with no output loaded 4"]})
            tests = mark_advised([{"name": "7.2 basic-1d / loads / a"}, {"name": "7.2 basic-1d / loads / b"}], d)
            self.assertEqual([t.get("advice") for t in tests], ["threads with no output loaded 4", None])


if __name__ == "__main__":
    unittest.main()


class PrintFailures(unittest.TestCase):
    def test_an_answers_file_that_does_not_parse_is_said_once(self):
        import contextlib
        import io
        from halo.core.results import print_failures
        detail = "exercises/7.2-basic-1d/answers.toml:4: Invalid value"
        tests = [{"name": f"7.2 basic-1d / answers / q{k}", "section": "7.2", "kind": "answers", "status": "failed",
                  "message": f"q{k}: invalid\n{detail}"} for k in range(12)]
        tests.append({"name": "7.2 basic-1d / answers / q12", "section": "7.2", "kind": "answers", "status": "failed",
                      "message": "q12: wrong\nanswers.toml:9: q12 = 3, which is not right"})
        results = {"tests": tests, "sections": {"7.2": {"build": "ok"}}}
        with contextlib.redirect_stdout(io.StringIO()) as out:
            print_failures(results)
        lines = [line for line in out.getvalue().splitlines() if line.startswith("FAILED")]
        self.assertEqual(len(lines), 2, out.getvalue())
        self.assertIn("(and 11 more answers tests: the same cause): " + detail, lines[0])
        self.assertIn("q12 = 3, which is not right", lines[1])

    def test_right_ratios_not_checked_against_the_kernels_say_so_in_plain_words(self):
        import contextlib
        import io
        from halo.core.answers import UNMEASURED
        from halo.core.results import print_unmeasured
        msg = f"ratio_limit: right\nmatches the formula, but was {UNMEASURED}: they need to pass in the same run " \
              "(./workbook grade 7.2 7.4)"
        tests = [{"name": f"7.4 tiled-1d / answers / r{k}", "section": "7.4", "kind": "answers", "status": "passed",
                  "message": msg} for k in range(2)]
        with contextlib.redirect_stdout(io.StringIO()) as out:
            print_unmeasured({"tests": tests, "sections": {"7.4": {}}})
        self.assertEqual(out.getvalue().strip(), f"note (7.4): 2 answers match the formula but were {UNMEASURED}: "
                         "they need to pass in the same run (./workbook grade 7.2 7.4)")
        self.assertNotIn("@", out.getvalue())  # no internal load tags


STUB = ("launch with Width = 7: the kernel has not been written yet\nstill a stub: "
        "exercises/7.2-basic-1d/convolution_1d_basic.cu:15: TODO: write the kernel, then delete this line")


def _printed(results, fn=None):
    import contextlib
    import io
    from halo.core.results import print_failures
    with contextlib.redirect_stdout(io.StringIO()) as out:
        (fn or print_failures)(results)
    return out.getvalue()


def _failed(name, message):
    return {"name": name, "section": name.split()[0], "kind": name.split(" / ")[1], "status": "failed",
            "message": message}


class FirstRun(unittest.TestCase):
    """What a first grade of untouched stubs prints: one line a section, not a screen per stub."""

    def test_a_stub_and_its_unanswered_questions_are_one_line(self):
        tests = [_failed(f"7.2 basic-1d / correct / w{k}", STUB) for k in range(15)]
        tests += [_failed(f"7.2 basic-1d / answers / q{k}", f"q{k}: not answered\n"
                          f"exercises/7.2-basic-1d/answers.toml:{k + 3}: q{k} is not answered yet") for k in range(3)]
        out = _printed({"tests": tests, "sections": {"7.2": {"build": "ok", "answers": {"asked": 3}}}})
        self.assertEqual(out, "7.2 basic-1d: still a stub — open exercises/7.2-basic-1d/convolution_1d_basic.cu, TODO "
                              "at line 15; its 3 questions to answer in exercises/7.2-basic-1d/answers.toml\n")

    def test_several_files_and_todos_of_a_section_are_named_in_its_line(self):
        other = STUB.replace("convolution_1d_basic.cu:15", "helpers.cu:9")
        tests = [_failed("7.2 basic-1d / correct / a", STUB + "\n" + STUB.splitlines()[1].replace(":15:", ":30:")),
                 _failed("7.2 basic-1d / correct / b", other)]
        out = _printed({"tests": tests, "sections": {"7.2": {"build": "ok", "answers": {"asked": 0}}}})
        self.assertEqual(out, "7.2 basic-1d: still a stub — open exercises/7.2-basic-1d/convolution_1d_basic.cu, TODOs "
                              "at lines 15, 30 and exercises/7.2-basic-1d/helpers.cu, TODO at line 9\n")

    def test_a_kernel_written_beside_its_todo_line_is_no_stub(self):
        left_in = ("launch with Width = 7: the kernel does work, but its HALO_TODO line is still there: delete that "
                   "line\n" + STUB.splitlines()[1])
        out = _printed({"tests": [_failed("7.2 basic-1d / correct / a", left_in)],
                        "sections": {"7.2": {"build": "ok", "answers": {"asked": 0}}}})
        self.assertIn("FAILED 7.2 basic-1d / correct / a", out)
        self.assertIn("HALO_TODO line is still there", out)
        self.assertNotIn("still a stub —", out)

    def test_the_table_keeps_its_columns_for_a_section_that_did_not_build(self):
        from halo.core.results import print_summary
        sections = {sid: {"title": title, "has_kernels": True, "build": build, "build_output": "",
                          "tests": {"passed": 0, "total": 15, "not_run": 0}, "answers": {"right": 0, "asked": 11},
                          "loads": [], "advice": []}
                    for sid, title, build in [("7.2", "1D convolution: the basic kernel", "failed"),
                                              ("7.3", "Short", "ok")]}
        lines = _printed({"tests": [], "sections": sections}, print_summary).splitlines()
        header = next(line for line in lines if line.startswith("section"))
        row = next(line for line in lines if line.startswith("7.2"))
        end = header.index("tests") + len("tests")
        self.assertEqual(row[end - len("no build") - 2:end], "  no build")  # a gap, never the title's last word

    def test_a_section_that_does_not_compile_has_its_tests_not_run(self):
        from halo.core.results import not_compiled
        (t,) = not_compiled(["7.2 basic-1d / correct / a"])
        self.assertEqual((t["section"], t["kind"], t["status"]), ("7.2", "correct", "failed"))
        self.assertTrue(t["message"].startswith("not run: "))
