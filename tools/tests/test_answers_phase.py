"""grade's answers phase, checked in one process, says exactly what the CTest answers tests say
(`internal check-answer`, `internal check-answers-file`): same names' shape, verdicts, messages."""
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from halo.core import answers_phase, results
from halo.core.chapter_data import load_chapter
from tests.helpers import REPO_ROOT, stubs


class AnswersPhase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)
        cls.tmp = tempfile.TemporaryDirectory()
        cls.tree = Path(cls.tmp.name)
        # A tree with one right, one wrong and one malformed-file section, the rest untouched.
        for s in cls.chapter.sections:
            (cls.tree / s.folder).mkdir()
            (cls.tree / s.folder / "answers.toml").write_text(
                (stubs() / s.folder / "answers.toml").read_text())
        (cls.tree / "7.2-basic-1d" / "answers.toml").write_text(
            (REPO_ROOT / "solutions" / "7.2-basic-1d" / "answers.toml").read_text())
        section = cls.chapter.section("7.4")
        text = (REPO_ROOT / "solutions" / section.folder / "answers.toml").read_text()
        (cls.tree / section.folder / "answers.toml").write_text(text + "\nnot_a_question = 3\n")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def cli(self, *args):
        p = subprocess.run([sys.executable, str(REPO_ROOT / "workbook"), "internal", *args],
                           capture_output=True, text=True)
        return p.returncode == 0, results.failure_message(p.stdout) if p.returncode else ""

    def test_every_question_and_file_of_every_section_is_a_named_answers_test(self):
        tests = answers_phase.run(self.chapter, self.chapter.sections, self.tree, None)
        expected = sum(len(self.chapter.questions(s.id)) + 1 for s in self.chapter.sections)
        self.assertEqual(len(tests), expected)
        for t in tests:
            info = results.parse_name(t["name"])
            self.assertEqual((info["section"], info["kind"]), (t["section"], "answers"), t["name"])
        statuses = {t["name"]: t["status"] for t in tests}
        self.assertEqual(statuses["7.2 basic-1d / answers / the file is well-formed"], "passed")
        self.assertEqual(statuses["7.4 tiled-1d / answers / the file is well-formed"], "failed")
        self.assertTrue(any(s == "failed" for n, s in statuses.items() if n.startswith("7.3 ")))

    def test_verdicts_and_messages_are_those_of_the_ctest_commands(self):
        tests = {t["name"]: t for t in answers_phase.run(self.chapter, self.chapter.sections, self.tree, None)}
        picks = [("7.2", self.chapter.questions("7.2")[0].id), ("7.3", self.chapter.questions("7.3")[0].id)]
        for sid, qid in picks:
            s = self.chapter.section(sid)
            ok, message = self.cli("check-answer", "--section", sid, "--question", qid,
                                   "--file", str(self.tree / s.folder / "answers.toml"))
            t = tests[f"{sid} {s.slug} / answers / {qid}"]
            self.assertEqual((t["status"] == "passed", t["message"]), (ok, message))
        s = self.chapter.section("7.4")
        ok, message = self.cli("check-answers-file", "--section", "7.4", "--file", str(self.tree / s.folder / "answers.toml"))
        t = tests[f"7.4 {s.slug} / answers / the file is well-formed"]
        self.assertEqual((t["status"] == "passed", t["message"]), (ok, message))
        self.assertIn("not_a_question", message)


if __name__ == "__main__":
    unittest.main()
