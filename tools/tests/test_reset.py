"""`./workbook reset SECTION` on a copy of the repository: the stub and blank answers come back
exactly as sync writes them, and the student's files are in a backup first, byte for byte."""
import contextlib
import io
import shutil
import tempfile
import unittest
from pathlib import Path

from halo import cli
from halo.student import reset
from halo.core import sync
from halo.core.chapter_data import load_chapter
from tests.helpers import source_tree

FOLDER = "7.2-basic-1d"
KERNEL = Path("exercises") / FOLDER / "convolution_1d_basic.cu"
ANSWERS = Path("exercises") / FOLDER / "answers.toml"
# Not UTF-8 clean on purpose, and with a CR: the backup must be the bytes, not a re-encoding.
EDITED = b"// my kernel \xe2\x9c\x93 caf\xe9\r\n__global__ void k() { int i = threadIdx.x; }\n"


class Reset(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory(prefix="halo-reset-")
        self.addCleanup(tmp.cleanup)
        self.root = Path(tmp.name)
        for tree in ("chapters", "solutions", "exercises"):
            shutil.copytree(source_tree(tree), self.root / tree)
        self.chapter = load_chapter(self.root)
        self.planned = sync.planned_files(self.root, self.chapter)

    def reset(self, *args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = cli.main(self.root, ["reset", *args])
        return rc, out.getvalue()

    def backups(self):
        base = self.root / ".halo-backups"
        return sorted(base.iterdir()) if base.exists() else []

    def test_restores_the_stub_and_keeps_a_backup(self):
        (self.root / KERNEL).write_bytes(EDITED)
        answered = self.planned[ANSWERS].replace('exercise1_p0 = ""', "exercise1_p0 = 57")
        (self.root / ANSWERS).write_text(answered)
        notes = self.root / "exercises" / FOLDER / "notes.md"
        notes.write_text("my notes\n")
        other = self.root / "exercises" / "7.4-tiled-1d" / "convolution_1d_tiled.cu"
        other.write_text("// 7.4 work in progress\n")

        rc, out = self.reset("7.2")
        self.assertEqual(rc, 0, out)
        # The section is what sync would write, byte for byte.
        self.assertEqual((self.root / KERNEL).read_text(), self.planned[KERNEL])
        self.assertEqual((self.root / ANSWERS).read_text(), self.planned[ANSWERS])
        self.assertEqual(sync.out_of_date(self.root, self.chapter), [(other.relative_to(self.root),
                                                                      "// 7.4 work in progress\n",
                                                                      self.planned[other.relative_to(self.root)])])
        # The student's work is in one backup, byte for byte; nothing else is.
        [stamp] = self.backups()
        self.assertRegex(stamp.name, r"^\d{8}-\d{6}-\d{6}$")
        self.assertEqual((stamp / KERNEL).read_bytes(), EDITED)
        self.assertEqual((stamp / ANSWERS).read_text(), answered)
        self.assertEqual(sorted(p.relative_to(stamp) for p in stamp.rglob("*") if p.is_file()),
                         sorted([KERNEL, ANSWERS]))
        # Files that are not part of the stub, and other sections, are left alone.
        self.assertEqual(notes.read_text(), "my notes\n")
        self.assertEqual(other.read_text(), "// 7.4 work in progress\n")
        # It says where the backup is, and that path exists.
        self.assertIn(f"Backed up 2 file(s) of yours to .halo-backups/{stamp.name}/", out)
        self.assertIn(f"Your previous files are in .halo-backups/{stamp.name}/{Path('exercises') / FOLDER}/", out)
        self.assertIn(f"restored {KERNEL}", out)
        self.assertIn("left exercises/7.2-basic-1d/notes.md alone", out)

        # A second reset has nothing to do and makes no second backup.
        rc, out = self.reset("7.2")
        self.assertEqual(rc, 0)
        self.assertIn("nothing to reset", out)
        self.assertEqual(len(self.backups()), 1)

    def test_untouched_files_are_not_backed_up(self):
        (self.root / KERNEL).write_bytes(EDITED)
        rc, out = self.reset("7.2")
        self.assertEqual(rc, 0, out)
        [stamp] = self.backups()
        self.assertEqual([p.relative_to(stamp) for p in stamp.rglob("*") if p.is_file()], [KERNEL])
        self.assertNotIn(f"restored {ANSWERS}", out)

    def test_missing_file_is_written_without_backup(self):
        (self.root / KERNEL).unlink()
        rc, out = self.reset("7.2")
        self.assertEqual(rc, 0, out)
        self.assertEqual((self.root / KERNEL).read_text(), self.planned[KERNEL])
        self.assertEqual(self.backups(), [])

    def test_dry_run_changes_nothing(self):
        (self.root / KERNEL).write_bytes(EDITED)
        (self.root / ANSWERS).unlink()
        rc, out = self.reset("7.2", "--dry-run")
        self.assertEqual(rc, 0)
        self.assertIn(f"back up and restore {KERNEL}", out)
        self.assertIn(f"write {ANSWERS} (missing)", out)
        self.assertIn("Nothing was changed (--dry-run).", out)
        self.assertEqual((self.root / KERNEL).read_bytes(), EDITED)
        self.assertFalse((self.root / ANSWERS).exists())
        self.assertEqual(self.backups(), [])

    def test_unknown_section_lists_the_sections(self):
        with self.assertRaises(SystemExit) as ctx:
            self.reset("7.7")
        self.assertIn("unknown section '7.7'", str(ctx.exception.code))
        self.assertIn("7.2 (7.2-basic-1d)", str(ctx.exception.code))
        self.assertEqual(self.backups(), [])

    def test_by_folder_name_too(self):
        (self.root / KERNEL).write_bytes(EDITED)
        out = io.StringIO()
        self.assertEqual(reset.run(self.root, self.chapter, FOLDER, out=out), 0)
        self.assertEqual((self.root / KERNEL).read_text(), self.planned[KERNEL])


if __name__ == "__main__":
    unittest.main()
