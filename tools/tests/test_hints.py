"""`./workbook hint SECTION`: hints unfold one at a time, remembered in a state file between runs;
--all shows every one; --reset forgets."""
import contextlib
import io
import json
import shutil
import tempfile
import unittest
from pathlib import Path

from halo import cli
from halo.student import hints
from halo.core.chapter_data import load_chapter
from tests.helpers import REPO_ROOT, make_chapter

CHAPTER = load_chapter(REPO_ROOT)
HINTS = CHAPTER.section("7.4").hints


class Hints(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory(prefix="halo-hints-")
        self.addCleanup(tmp.cleanup)
        self.state = Path(tmp.name) / ".halo" / "hints.json"
        self.assertGreaterEqual(len(HINTS), 3)  # the tests below unfold three

    def hint(self, section="7.4", **kw):
        out = io.StringIO()
        rc = hints.run(REPO_ROOT, CHAPTER, section, path=self.state, out=out, **kw)
        self.assertEqual(rc, 0)
        return out.getvalue()

    def shown(self, out):
        """The hint texts printed (wrapped lines joined back)."""
        return [h for h in HINTS if " ".join(h.split()) in " ".join(out.split())]

    def test_one_at_a_time_and_remembered(self):
        out = self.hint()
        self.assertEqual(self.shown(out), HINTS[:1])
        self.assertIn("Hint 1 (new):", out)
        self.assertIn(f"{len(HINTS) - 1} more hints for 7.4", out)
        self.assertEqual(hints.read_state(self.state), {"7.4": 1})

        out = self.hint()  # a new run: the state file remembers the first
        self.assertEqual(self.shown(out), HINTS[:2])
        self.assertIn("Hint 1: ", out)
        self.assertIn("Hint 2 (new):", out)
        self.assertNotIn("Hint 1 (new)", out)

        for _ in range(len(HINTS) - 2):
            out = self.hint()
        self.assertEqual(self.shown(out), HINTS)
        self.assertIn("That was the last hint for 7.4", out)
        out = self.hint()
        self.assertEqual(self.shown(out), HINTS)
        self.assertNotIn("(new)", out)
        self.assertIn(f"you have seen all {len(HINTS)}", out)
        self.assertEqual(hints.read_state(self.state), {"7.4": len(HINTS)})

    def test_sections_are_counted_apart(self):
        self.hint("7.4")
        self.hint("7.4")
        out = self.hint("7.2")
        self.assertIn("Hint 1 (new):", out)
        self.assertNotIn("Hint 2", out)
        self.assertEqual(hints.read_state(self.state), {"7.4": 2, "7.2": 1})

    def test_all_and_reset(self):
        self.hint()
        out = self.hint(show_all=True)
        self.assertEqual(self.shown(out), HINTS)
        self.assertNotIn("Hint 1 (new)", out)
        self.assertIn("Hint 2 (new)", out)
        self.assertIn(f"All {len(HINTS)} hints of 7.4 are shown", out)
        out = self.hint(reset=True)
        self.assertIn(f"Forgot the {len(HINTS)} hint(s) of 7.4", out)
        self.assertEqual(hints.read_state(self.state), {})
        out = self.hint()
        self.assertEqual(self.shown(out), HINTS[:1])

    def test_a_damaged_state_file_starts_over(self):
        self.state.parent.mkdir(parents=True)
        self.state.write_text("not json")
        out = self.hint()
        self.assertEqual(self.shown(out), HINTS[:1])
        self.assertEqual(json.loads(self.state.read_text())["revealed"], {"7.4": 1})

    def test_section_without_hints(self):
        root = make_chapter("[formulas.one]\nparams = []\nexpr = '1'\n")
        out = io.StringIO()
        hints.run(root, load_chapter(root), "1.0", path=self.state, out=out)
        self.assertIn("1.0 has no hints", out.getvalue())

    def test_cli_keeps_state_under_the_root(self):
        root = Path(tempfile.mkdtemp(prefix="halo-hints-root-"))
        self.addCleanup(shutil.rmtree, root, True)
        (root / "chapters").symlink_to(REPO_ROOT / "chapters")
        for expected in (1, 2):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(cli.main(root, ["hint", "7.4"]), 0)
            self.assertIn(f"Hint {expected} (new):", out.getvalue())
        self.assertEqual(hints.read_state(root / ".halo" / "hints.json"), {"7.4": 2})
        with self.assertRaises(SystemExit) as ctx:
            cli.main(root, ["hint", "7.7"])
        self.assertIn("the sections are: 7.1", str(ctx.exception.code))

    def test_gitignore_keeps_the_state_out_of_commits(self):
        self.assertIn("/.halo/", (REPO_ROOT / ".gitignore").read_text().splitlines())


if __name__ == "__main__":
    unittest.main()
