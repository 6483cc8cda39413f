"""grade's build folder remembers the chapter it checked (load_chapter's checked_in): the same
chapter is read again without its checks, and any changed byte of the chapter's files or of the
code that checks them is checked again, so that a broken question never hides behind the record."""
import shutil
import tempfile
import unittest
import unittest.mock
from pathlib import Path

from halo.core import chapter_data
from tests.helpers import REPO_ROOT


class CheckedOnce(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="halo-chapter-checked-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.root = self.tmp / "repo"
        shutil.copytree(REPO_ROOT / "chapters", self.root / "chapters")
        self.build = self.tmp / "build" / "grade"
        self.build.mkdir(parents=True)  # grade's build made it; a missing folder is never made (below)
        self.code = self.tmp / "code.py"
        self.code.write_text("# stands for chapter_data.py and expressions.py\n")
        patch = unittest.mock.patch.object(chapter_data, "CHECK_CODE", (*chapter_data.CHECK_CODE, self.code))
        patch.start()
        self.addCleanup(patch.stop)

    def checks_run(self, checked_in):
        """How many questions' answers one load evaluated at their varied choices."""
        with unittest.mock.patch.object(chapter_data, "_check_vary", wraps=chapter_data._check_vary) as spy:
            chapter_data.load_chapter(self.root, checked_in)
        return spy.call_count

    def test_a_build_folder_that_does_not_exist_is_not_made(self):
        # A grade stopped before its build (limits too tight, test_limits) leaves no folder.
        missing = self.tmp / "not-built"
        self.assertGreater(self.checks_run(missing), 0)
        self.assertFalse(missing.exists())

    def questions_file(self):
        return next(p for p in sorted((self.root / "chapters").glob("*/questions.toml")) if "vary" in p.read_text())

    def test_the_same_chapter_is_checked_once(self):
        self.assertGreater(self.checks_run(self.build), 0)
        self.assertTrue((self.build / chapter_data.CHECKED_FILE).is_file())
        self.assertEqual(self.checks_run(self.build), 0)

    def test_a_command_line_process_takes_the_folder_from_its_environment(self):
        # ./workbook check names its build folder for its tests' commands (cli._chapter).
        from halo import cli
        def loads():
            with unittest.mock.patch.object(chapter_data, "_check_vary", wraps=chapter_data._check_vary) as spy:
                cli._chapter(self.root)
            return spy.call_count
        with unittest.mock.patch.dict("os.environ", {chapter_data.CHECKED_IN_ENV: str(self.build)}):
            self.assertGreater(loads(), 0)
            self.assertEqual(loads(), 0)
        with unittest.mock.patch.dict("os.environ"):
            import os
            os.environ.pop(chapter_data.CHECKED_IN_ENV, None)
            self.assertGreater(loads(), 0)  # the control: without it, every load checks

    def test_without_a_folder_it_is_checked_every_time(self):
        self.assertGreater(self.checks_run(None), 0)
        self.assertGreater(self.checks_run(None), 0)
        self.assertFalse((self.build / chapter_data.CHECKED_FILE).exists())

    def test_a_changed_question_is_checked_again_and_a_broken_one_refused(self):
        self.checks_run(self.build)
        path = self.questions_file()
        path.write_text(path.read_text() + "\n")
        self.assertGreater(self.checks_run(self.build), 0)
        text = path.read_text()
        # An answer that names no formula: only the checks find it (the load alone would not).
        broken = text.replace('answer = "', 'answer = "no_such_formula() + ', 1)
        self.assertNotEqual(broken, text)
        path.write_text(broken)
        with self.assertRaises(chapter_data.ChapterError):
            chapter_data.load_chapter(self.root, self.build)

    def test_changed_code_is_checked_again(self):
        self.checks_run(self.build)
        self.code.write_text("# another version of the checks\n")
        self.assertGreater(self.checks_run(self.build), 0)

    def test_a_record_that_is_not_this_chapter_s_hash_is_checked(self):
        for text in ("", "garbage\n", "0" * 64 + "\n", "\xff"):
            with self.subTest(text):
                (self.build / chapter_data.CHECKED_FILE).write_text(text, encoding="latin-1")
                self.assertGreater(self.checks_run(self.build), 0)


if __name__ == "__main__":
    unittest.main()
