"""`./workbook sync` on a copy of the repository: the committed tree is in sync, edited stubs are
kept unless --force (and then backed up), and missing stubs are simply written."""
import contextlib
import io
import re
import shutil
import tempfile
import unittest
from pathlib import Path

from halo.core import sync
from halo.core.chapter_data import load_chapter
from halo.core.regions import make_stub
from tests.helpers import committed_tree

FOLDER = "7.2-basic-1d"
KERNEL = Path("exercises") / FOLDER / "convolution_1d_basic.cu"
ANSWERS = Path("exercises") / FOLDER / "answers.toml"


class Sync(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory(prefix="halo-sync-")
        self.addCleanup(tmp.cleanup)
        self.root = Path(tmp.name)
        # All three as committed: the generator's output is compared with the stubs it wrote.
        for tree in ("chapters", "solutions", "exercises"):
            shutil.copytree(committed_tree(tree), self.root / tree)
        self.chapter = load_chapter(self.root)

    def run_sync(self, **kw):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = sync.run(self.root, self.chapter, **kw)
        return rc, out.getvalue()

    # ------------------------------------------------------------ the plan

    def test_planned_files(self):
        files = sync.planned_files(self.root, self.chapter)
        mine = {f for f in files if FOLDER in f.parts}  # other sections plan their own files
        self.assertEqual(mine, {KERNEL, ANSWERS, Path("solutions") / FOLDER / "answers.toml"})
        solution = (self.root / "solutions" / FOLDER / "convolution_1d_basic.cu").read_text()
        self.assertEqual(files[KERNEL], make_stub(solution))
        self.assertNotIn("BEGIN SOLUTION", files[KERNEL])
        self.assertIn("HALO_TODO(", files[KERNEL])
        self.assertIn("# This copy is the answer key.", files[Path("solutions") / FOLDER / "answers.toml"])
        self.assertNotIn("# This copy is the answer key.", files[ANSWERS])

    def test_committed_tree_is_in_sync(self):
        self.assertEqual(sync.out_of_date(self.root, self.chapter), [])
        rc, out = self.run_sync(check=True)
        self.assertEqual(rc, 0, out)
        self.assertIn("exercises/ and solutions/*/answers.toml are what the generator writes.", out)
        rc, out = self.run_sync()
        self.assertEqual(rc, 0, out)
        self.assertIn("Everything is up to date.", out)

    # ------------------------------------------------------------ someone's work

    def edit_kernel(self):
        path = self.root / KERNEL
        generated = path.read_text()
        edited = generated + "// my own work\n"
        path.write_text(edited)
        return path, generated, edited

    def test_check_reports_an_edited_file(self):
        self.edit_kernel()
        stale = sync.out_of_date(self.root, self.chapter)
        self.assertEqual([rel for rel, _, _ in stale], [KERNEL])
        rc, out = self.run_sync(check=True)
        self.assertEqual(rc, 1)
        self.assertIn(f"  {KERNEL}\n", out)
        self.assertIn("-// my own work", out)  # the diff shows the line the generator would drop
        self.assertIn("Run `./workbook sync` after editing", out)

    def test_edited_file_kept_without_force(self):
        path, _, edited = self.edit_kernel()
        rc, out = self.run_sync()
        self.assertEqual(rc, 1)
        self.assertEqual(path.read_text(), edited)
        self.assertIn("Not overwriting files", out)
        self.assertIn(f"  {KERNEL}\n", out)
        self.assertIn("sync --force", out)
        self.assertFalse((self.root / ".halo-backups").exists())

    def test_force_backs_up_and_restores(self):
        path, generated, edited = self.edit_kernel()
        rc, out = self.run_sync(force=True)
        self.assertEqual(rc, 0, out)
        self.assertEqual(path.read_text(), generated)
        self.assertIn(f"wrote {KERNEL}", out)
        stamps = list((self.root / ".halo-backups").iterdir())
        self.assertEqual(len(stamps), 1)
        self.assertRegex(stamps[0].name, r"^\d{8}-\d{6}-\d{6}$")
        backup = stamps[0] / KERNEL
        self.assertTrue(backup.is_file(), f"no backup at {backup}")
        self.assertEqual(backup.read_text(), edited)
        self.assertIn(f"Backed up 1 file(s) to .halo-backups/{stamps[0].name}/", out)
        # only the edited file is backed up
        self.assertEqual([p.relative_to(stamps[0]) for p in stamps[0].rglob("*") if p.is_file()], [KERNEL])
        # and now everything is in sync again
        self.assertEqual(self.run_sync(check=True)[0], 0)

    def test_edited_answers_file_is_protected_too(self):
        path = self.root / ANSWERS
        text = path.read_text()
        self.assertRegex(text, r'\n\w+ = ""\n')
        answered = re.sub(r'(\n\w+ = )""', r"\g<1>42", text, count=1)
        path.write_text(answered)
        rc, out = self.run_sync()
        self.assertEqual(rc, 1)
        self.assertIn(f"  {ANSWERS}\n", out)
        self.assertEqual(path.read_text(), answered)

    def test_missing_file_is_recreated(self):
        path = self.root / KERNEL
        generated = path.read_text()
        path.unlink()
        rc, out = self.run_sync(check=True)
        self.assertEqual(rc, 1)
        self.assertIn(f"  {KERNEL} (missing)", out)
        rc, out = self.run_sync()
        self.assertEqual(rc, 0, out)
        self.assertEqual(path.read_text(), generated)
        self.assertIn(f"wrote {KERNEL}", out)
        self.assertFalse((self.root / ".halo-backups").exists())

    def test_missing_folder_is_recreated(self):
        shutil.rmtree(self.root / "exercises")
        rc, out = self.run_sync()
        self.assertEqual(rc, 0, out)
        self.assertIn(f"wrote {KERNEL}", out)
        self.assertIn(f"wrote {ANSWERS}", out)
        committed = committed_tree("exercises")
        self.assertEqual((self.root / KERNEL).read_text(), (committed / KERNEL.relative_to("exercises")).read_text())
        self.assertEqual((self.root / ANSWERS).read_text(), (committed / ANSWERS.relative_to("exercises")).read_text())

    def test_stale_answer_key_is_rewritten_without_force(self):
        key = self.root / "solutions" / FOLDER / "answers.toml"
        generated = key.read_text()
        key.write_text(generated + "# stale\n")
        rc, out = self.run_sync()
        self.assertEqual(rc, 0, out)
        self.assertEqual(key.read_text(), generated)
        self.assertIn(f"wrote solutions/{FOLDER}/answers.toml", out)

    def edit_solution(self):
        sol = self.root / "solutions" / FOLDER / "convolution_1d_basic.cu"
        sol.write_text(sol.read_text().replace("// Grade with:", "// New note.\n// Grade with:"))

    def test_solution_change_flows_into_the_stub_with_force(self):
        self.edit_solution()
        rc, out = self.run_sync(check=True)
        self.assertEqual(rc, 1)
        self.assertIn("+// New note.", out)
        rc, out = self.run_sync(force=True)
        self.assertEqual(rc, 0, out)
        self.assertIn("// New note.\n// Grade with:", (self.root / KERNEL).read_text())
        self.assertEqual(self.run_sync(check=True)[0], 0)

    def test_solution_change_flows_into_the_stub(self):
        # An untouched stub (its hash is in exercises/.generated.json) is regenerated without --force.
        self.edit_solution()
        rc, out = self.run_sync()
        self.assertEqual(rc, 0, out)
        self.assertIn("// New note.\n// Grade with:", (self.root / KERNEL).read_text())


if __name__ == "__main__":
    unittest.main()
