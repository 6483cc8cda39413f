"""Paths a student reads: relative to the repository root, wherever the checkout lives."""
import os
import shutil
import unittest

from halo.core import paths
from halo.core.answers import check_question
from halo.core.chapter_data import load_chapter
from tests.helpers import REPO_ROOT, scratch_dir


class Shown(unittest.TestCase):
    def test_inside_the_root_relative_outside_as_given(self):
        root = scratch_dir()
        (root / "exercises").mkdir()
        self.assertEqual(paths.shown(root / "exercises" / "a.cu", root), "exercises/a.cu")
        self.assertEqual(paths.shown("/elsewhere/a.cu", root), "/elsewhere/a.cu")

    def test_a_relative_path_is_read_from_the_folder_it_is_given_in(self):
        # Kept once a process, but never across a change of folder: the same relative name read
        # from another folder is another file.
        root = scratch_dir()
        for sub in ("a", "b"):
            (root / sub).mkdir()
        self.addCleanup(os.chdir, os.getcwd())
        os.chdir(root / "a")
        self.assertEqual(paths.shown("x.toml", root), "a/x.toml")
        os.chdir(root / "b")
        self.assertEqual(paths.shown("x.toml", root), "b/x.toml")

    def test_compiler_output_loses_the_roots_prefix(self):
        root = scratch_dir()
        out = f"{root}/exercises/7.2-basic-1d/x.cu:3:5: error: expected ';'\n{root}/build/grade/x.o: failed"
        self.assertEqual(paths.without_root(out, root),
                         "exercises/7.2-basic-1d/x.cu:3:5: error: expected ';'\nbuild/grade/x.o: failed")

    def test_an_answers_message_names_the_file_from_the_root(self):
        root = scratch_dir()
        shutil.copytree(REPO_ROOT / "chapters", root / "chapters")
        chapter = load_chapter(root)
        path = root / "exercises" / "7.2-basic-1d" / "answers.toml"
        path.parent.mkdir(parents=True)
        path.write_text("exercise1_p0 = 21\n")
        v = check_question(chapter, "7.2", "exercise1_p0", path)
        self.assertTrue(v.message.startswith("exercises/7.2-basic-1d/answers.toml:1: exercise1_p0 = 21"), v.message)
        self.assertNotIn(str(root), v.message)


if __name__ == "__main__":
    unittest.main()
