"""chapter_data.load_chapter_once: the chapter read once a process (the autograder's process
takes, grades and exports), and read again as soon as one of its files changes (the control)."""
import shutil
import tempfile
import unittest
from pathlib import Path

from halo.core import chapter_data
from tests.helpers import REPO_ROOT


class Once(unittest.TestCase):
    def setUp(self):
        self.root = Path(tempfile.mkdtemp(prefix="halo-chapter-once-"))
        self.addCleanup(shutil.rmtree, self.root, True)
        shutil.copytree(REPO_ROOT / "chapters", self.root / "chapters")

    def test_read_once_while_the_files_stay(self):
        first = chapter_data.load_chapter_once(self.root)
        self.assertIs(chapter_data.load_chapter_once(self.root), first)

    def test_the_build_folder_however_named(self):
        # The autograder's take and export name it from the environment (a string), its grade
        # resolved (student/grade.build_folder): one read for the three.
        build = self.root / "work" / ".." / "build"
        first = chapter_data.load_chapter_once(self.root, str(build))
        self.assertIs(chapter_data.load_chapter_once(self.root, build.resolve()), first)
        self.assertIsNot(chapter_data.load_chapter_once(self.root, self.root / "other"), first)

    def test_a_changed_file_is_read_again(self):
        first = chapter_data.load_chapter_once(self.root)
        path = next(self.root.glob("chapters/*/questions.toml"))
        path.write_text(path.read_text() + "\n# changed\n")
        again = chapter_data.load_chapter_once(self.root)
        self.assertIsNot(again, first)
        self.assertEqual([s.id for s in again.sections], [s.id for s in first.sections])


if __name__ == "__main__":
    unittest.main()
