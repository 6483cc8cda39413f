"""The red-team runner's cheaper resets and shared autograder passes (issue 36, item 5): a used
tree is freed at once and removed by a thread while the next grade runs (never by a child
process, which the runner would take for one the grade left running), and the pass without
bubblewrap is a pass of the autograder mode, named by attack."""
import argparse
import contextlib
import io
import os
import shutil
import tempfile
import unittest
import zipfile
from pathlib import Path

from halo.dev import redteam
from halo.dev.background_removal import BackgroundRemoval


class Removal(unittest.TestCase):
    def setUp(self):
        self.work = Path(tempfile.mkdtemp(prefix="halo-removal-test-"))
        self.addCleanup(shutil.rmtree, self.work, True)

    def tree(self, name, files=50):
        top = self.work / name
        (top / "sub").mkdir(parents=True)
        for k in range(files):
            (top / "sub" / f"f{k}").write_bytes(b"x" * 1000)
        return top

    def test_the_path_is_free_at_once_and_everything_goes_by_close(self):
        removal = BackgroundRemoval(self.work / "discarded")
        first, second = self.tree("build"), self.tree("other")
        removal.discard(first)
        self.assertFalse(first.exists(), "the path must be free for the copy that replaces it")
        first.mkdir()  # reused at once, as a reset does
        removal.discard(second)
        removal.discard(self.work / "never-there")  # nothing to do
        removal.close()
        self.assertEqual(sorted(p.name for p in self.work.iterdir()), ["build"])
        self.assertEqual(list(first.iterdir()), [], "what was made at the freed path is kept")

    def test_a_file_or_a_link_is_removed_at_once(self):
        removal = BackgroundRemoval(self.work / "discarded")
        (self.work / "file").write_text("x")
        os.symlink(self.work / "file", self.work / "link")
        removal.discard(self.work / "link")
        removal.discard(self.work / "file")
        self.assertEqual(list(self.work.iterdir()), [])
        removal.close()

    def test_no_process_is_left_running_while_it_removes(self):
        """The runner's own check: a removal as a child process would fail every grade."""
        marks = redteam._process_marks()
        removal = BackgroundRemoval(self.work / "discarded")
        removal.discard(self.tree("build", files=2000))
        self.assertEqual(redteam._leftovers(marks, self.work, None), [])
        removal.close()

    def test_copy_tree_hands_the_old_tree_to_the_removal(self):
        removal = BackgroundRemoval(self.work / "discarded")
        pristine, target = self.tree("pristine", files=3), self.tree("target", files=7)
        seen = []
        redteam._copy_tree(pristine, target, lambda p: (seen.append(p), removal.discard(p)))
        self.assertEqual(seen, [target])
        self.assertEqual(sorted(p.name for p in (target / "sub").iterdir()), ["f0", "f1", "f2"])
        removal.close()


class WithoutBubblewrap(unittest.TestCase):
    def run_main(self, *argv):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            status = redteam.main(list(argv))
        return status, err.getvalue()

    def test_only_the_autograder_mode_has_the_pass(self):
        status, err = self.run_main("--mode", "grade", "--without-bubblewrap", "fork-bomb")
        self.assertEqual(status, 2)
        self.assertIn("--without-bubblewrap is a pass of --mode autograder", err)

    def test_an_unknown_attack_is_named(self):
        status, err = self.run_main("--mode", "autograder", "--without-bubblewrap", "no-such-attack")
        self.assertEqual(status, 2)
        self.assertIn("no attack is named no-such-attack", err)

    def test_a_later_pass_starts_from_the_first_pass_s_built_root_with_the_fallback_sandbox(self):
        work = Path(tempfile.mkdtemp(prefix="halo-passes-test-"))
        self.addCleanup(shutil.rmtree, work, True)
        zip_path = work / "autograder.zip"
        with zipfile.ZipFile(zip_path, "w") as z:
            z.writestr("run_autograder", "#!/bin/sh\n")
            z.writestr("halo/workbook", "")
        args = argparse.Namespace(seed="1", tmp="shared", checkout=None)
        runner = redteam.Runner(Path("."), work, args)
        self.addCleanup(runner.removal.close)
        envs, found = [], []

        def grade(cmd, cwd, env, *rest, **kw):
            envs.append(env)
            judge = Path(cwd) / "halo-work" / "build" / "judge"
            found.append(judge.read_text() if judge.exists() else None)
            judge.parent.mkdir(parents=True, exist_ok=True)
            judge.write_text(f"built by grade {len(found)}")
            return redteam.Outcome(score=0.0)
        runner.grade_once = grade
        runner.baseline_report = lambda *a: None
        runner._run_autograder([], [], "self", zip_path)
        zip_path.unlink()  # the later pass must not need it: it starts from the built root
        # What a grade after the first pass's stub baseline left is put back (tree_reset.py).
        (work / "autograder" / "halo-work" / "build" / "judge").write_text("left by an attack")
        runner._run_autograder([], [], "self", zip_path, sandbox=redteam.FALLBACK_SANDBOX)
        self.assertNotIn("HALO_SANDBOX", envs[0])
        self.assertEqual(envs[1]["HALO_SANDBOX"], "rlimits-only")
        self.assertEqual(envs[1]["AUTOGRADER_ROOT"], envs[0]["AUTOGRADER_ROOT"], "one fake root: the build is warm")
        self.assertEqual(found, [None, "built by grade 1"])

if __name__ == "__main__":
    unittest.main()
