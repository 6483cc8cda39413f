"""The line a grade prints before a build that compiles the grader's own libraries in the clone
(grader_cache.first_build_note): only then, never when the libraries are imported (the machine's
copy that `sudo ./workbook setup` made, the check's cache) nor once the clone has built them."""
import shutil
import tempfile
import unittest
from pathlib import Path

from halo.core import grader_cache


def _folder(test):
    folder = Path(tempfile.mkdtemp(prefix="halo-note-"))
    test.addCleanup(shutil.rmtree, folder, True)
    return folder


def _build_folder(test, libs_value, built=()):
    folder = _folder(test)
    (folder / "CMakeCache.txt").write_text(f"HALO_MODE:STRING=grade\n{grader_cache.CMAKE_VAR}:STRING={libs_value}\n")
    (folder / "grader").mkdir()
    for name in built:
        (folder / "grader" / f"lib{name}.a").write_bytes(b"!<arch>\n")
    return folder


class FirstBuildNote(unittest.TestCase):
    def test_a_clone_that_builds_its_own_libraries_is_told_once(self):
        note = grader_cache.first_build_note(_build_folder(self, ""))
        self.assertIn("compiles the grader's own libraries", note)
        self.assertIn("sudo ./workbook setup", note)

    def test_no_note_once_they_are_built(self):
        self.assertIsNone(grader_cache.first_build_note(_build_folder(self, "", built=grader_cache.LIBRARIES)))

    def test_no_note_when_they_are_imported(self):
        self.assertIsNone(grader_cache.first_build_note(_build_folder(self, "/var/cache/halo/grader/0123")))

    def test_no_note_before_a_configure(self):
        self.assertIsNone(grader_cache.first_build_note(_folder(self)))


if __name__ == "__main__":
    unittest.main()
