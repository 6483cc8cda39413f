"""An answers file cannot take the grade down: size, nesting depth and number of values are
limited, each failure is that file's verdict, and the other sections are graded (issue 32, item 5).
No test here times anything: the limits are counts, and the one bound on parse time is a CPU
limit on a subprocess."""
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from halo.core import answers, answers_phase, results
from halo.core.chapter_data import load_chapter
from halo.core.tomlcompat import loads_toml

from .helpers import REPO_ROOT, stubs

TOOLS = Path(__file__).resolve().parents[1]


class Limits(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="halo-answers-limits-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def file(self, text, name="answers.toml"):
        p = self.tmp / name
        p.write_text(text)
        return p

    def refused(self, path, words):
        with self.assertRaises(answers.AnswersError) as e:
            answers.parse_answers(path)
        self.assertIn(words, str(e.exception))
        return str(e.exception)

    def test_a_file_over_the_size_limit_is_not_read(self):
        p = self.tmp / "answers.toml"
        with open(p, "wb") as f:
            f.truncate(100 << 20)  # sparse: 100 MB that cost nothing to make
        self.refused(p, f"larger than {answers.MAX_BYTES:,} bytes")

    def test_a_pipe_or_a_device_is_not_read(self):
        os.mkfifo(self.tmp / "pipe.toml")
        self.refused(self.tmp / "pipe.toml", "not a regular file")  # and no wait for a writer
        (self.tmp / "zero.toml").symlink_to("/dev/zero")
        self.refused(self.tmp / "zero.toml", "not a regular file")

    def test_deep_nesting_is_refused_before_parsing_with_its_line(self):
        deep = 20000  # under the size limit: the depth limit, not the size, refuses it
        message = self.refused(self.file(f"a1 = 1\nx = {'[' * deep}{']' * deep}\n"), f"more than {answers.MAX_DEPTH} deep")
        self.assertIn(":2:", message)

    def test_control_the_parser_itself_crashes_on_deep_nesting(self):
        # Without the limit: the crash that took the whole grade down.
        with self.assertRaises(RecursionError):
            loads_toml(f"x = {'[' * 20000}{']' * 20000}\n")

    def test_a_nesting_the_scan_misses_is_still_a_verdict(self):
        with mock.patch.object(answers, "MAX_DEPTH", 10 ** 6):
            self.refused(self.file(f"x = {'[' * 20000}{']' * 20000}\n"), "nested too deep")

    def test_brackets_in_strings_and_comments_do_not_count(self):
        text = ("a = \"[[[[[[[[[[[[[[[[\" # {{{{{{{{{{{{{{{{{{{\n"
                "b = '[[[[[[[[[[[[[[[[[['\nc = \"\"\"\n[[[[[[[[[[[[[[[[[[[[\n\"\"\"\nd = [[1, 2], [3]]\n")
        self.assertEqual(answers.parse_answers(self.file(text)).values["d"], [[1, 2], [3]])

    def test_too_many_values_are_refused(self):
        self.refused(self.file("".join(f"k{i} = {i}\n" for i in range(answers.MAX_VALUES + 1))),
                     f"more than {answers.MAX_VALUES:,} keys and values")

    def test_parse_time_is_bounded_by_the_limits(self):
        # The costliest file within every limit, read as a grade reads one section's file (once per question
        # and once for the whole file), under a CPU limit rather than a clock.
        per_key = answers.MAX_BYTES // (answers.MAX_VALUES - 1) - 12
        text = "".join(f"k{i:03} = \"{'x' * per_key}\"\n" for i in range(answers.MAX_VALUES - 1))
        path = self.file(text[:answers.MAX_BYTES])
        code = ("import sys; from halo.core import answers\n"
                "for _ in range(12): answers.parse_answers(sys.argv[1])\n")

        def limit():
            resource.setrlimit(resource.RLIMIT_CPU, (60, 60))
        p = subprocess.run([sys.executable, "-c", code, str(path)], cwd=TOOLS, preexec_fn=limit,
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])

    def test_a_refused_file_is_its_sections_verdict_and_the_others_are_graded(self):
        chapter = load_chapter(REPO_ROOT)
        tree = self.tmp / "exercises"
        shutil.copytree(stubs(), tree)
        broken = tree / "7.2-basic-1d" / "answers.toml"
        broken.write_text(broken.read_text() + f"\nx = {'[' * 20000}{']' * 20000}\n")
        sections = [chapter.section("7.1"), chapter.section("7.2")]
        report = self.tmp / "report"
        report.mkdir()
        tests = answers_phase.run(chapter, sections, tree, report)
        mine = [t for t in tests if t["section"] == "7.2"]
        self.assertTrue(mine and all(t["status"] == "failed" and "deep" in t["message"] for t in mine))
        well_formed = [t for t in tests if t["section"] == "7.1" and t["name"].endswith("the file is well-formed")]
        self.assertEqual([t["status"] for t in well_formed], ["passed"])


class ResultsFiles(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="halo-results-file-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def test_saved_whole_and_nothing_left_beside(self):
        results.save({"a": 1}, self.tmp / "results.json")
        self.assertEqual(sorted(p.name for p in self.tmp.iterdir()), ["results.json"])
        self.assertEqual((self.tmp / "results.json").read_text(), '{\n  "a": 1\n}\n')

    def test_a_failed_write_keeps_the_old_file_whole_and_leaves_no_temporary(self):
        results.save({"a": 1}, self.tmp / "results.json")
        with mock.patch.object(os, "replace", side_effect=OSError("stopped")), self.assertRaises(OSError):
            results.save({"b": 2}, self.tmp / "results.json")
        self.assertEqual(sorted(p.name for p in self.tmp.iterdir()), ["results.json"])

    def test_discard_removes_the_last_grades_files(self):
        for name in ("results.json", "junit.xml"):
            (self.tmp / name).write_text("old")
        results.discard(self.tmp / "results.json", self.tmp / "junit.xml", self.tmp / "never-there")
        self.assertEqual(list(self.tmp.iterdir()), [])


if __name__ == "__main__":
    unittest.main()
