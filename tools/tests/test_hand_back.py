"""grade-class --hand-back: each student's feedback committed into their own Classroom clone (a
real git repository), ready to push; a student's own file at that name is kept aside, a link
planted there is never followed, the clone's hooks never run, and a folder that is no clone is
named and left alone."""
import os
import subprocess
import unittest

from halo.course import hand_back
from halo.course.class_submissions import Submission

from .helpers import scratch_dir

NAME = hand_back.file_name("conv1d")


def _git(clone, *args):
    return subprocess.run(["git", "-C", str(clone), *args], capture_output=True, text=True, check=True).stdout


def _clone(folder, files=None):
    folder.mkdir(parents=True)
    _git(folder, "init", "-q")
    for name, text in (files or {"README.md": "mine\n"}).items():
        (folder / name).write_text(text)
    _git(folder, "add", "-A")
    _git(folder, "-c", "user.name=Ann", "-c", "user.email=ann@uni.edu", "commit", "-q", "-m", "my work")
    return folder


class HandBack(unittest.TestCase):
    def setUp(self):
        self.dir = scratch_dir("halo-handback-")
        self.fb = self.dir / "feedback"
        self.fb.mkdir()

    def _feedback(self, student, text):
        (self.fb / f"{student}.md").write_text(text)

    def test_feedback_is_committed_into_the_clone_and_not_pushed(self):
        clone = _clone(self.dir / "class" / "conv1d-ann")
        self._feedback("ann", "# feedback for ann\n")
        lines = hand_back.hand_back([Submission("ann", clone, clone.name)], self.fb, "conv1d")
        self.assertEqual(_git(clone, "show", f"HEAD:{NAME}"), "# feedback for ann\n")
        self.assertEqual(_git(clone, "log", "-1", "--format=%an <%ae>"),
                         f"{hand_back.AUTHOR_NAME} <{hand_back.AUTHOR_EMAIL}>\n")
        self.assertEqual(_git(clone, "status", "--porcelain"), "")
        self.assertIn("feedback committed into 1 of 1 clones", lines[-1])
        self.assertIn("nothing is pushed", lines[-1])

    def test_a_students_own_file_is_kept_and_a_planted_link_not_followed(self):
        outside = self.dir / "instructor-notes.txt"
        outside.write_text("private\n")
        ann = _clone(self.dir / "class" / "conv1d-ann", {NAME: "my own notes\n"})
        bob = _clone(self.dir / "class" / "conv1d-bob")
        os.symlink(outside, bob / NAME)
        hook = bob / ".git" / "hooks" / "pre-commit"
        hook.write_text(f"#!/bin/sh\ntouch {self.dir / 'hook-ran'}\n")
        hook.chmod(0o755)
        for student in ("ann", "bob"):
            self._feedback(student, f"# feedback for {student}\n")
        subs = [Submission("ann", ann, ann.name), Submission("bob", bob, bob.name)]
        hand_back.hand_back(subs, self.fb, "conv1d")
        self.assertEqual((ann / NAME).read_text(), "# feedback for ann\n")
        self.assertEqual((ann / f"{NAME}.yours-1").read_text(), "my own notes\n")
        self.assertEqual(_git(ann, "show", f"HEAD:{NAME}.yours-1"), "my own notes\n")
        self.assertEqual(outside.read_text(), "private\n")
        self.assertFalse((bob / NAME).is_symlink())
        self.assertTrue((bob / f"{NAME}.yours-1").is_symlink())
        self.assertFalse((self.dir / "hook-ran").exists())

    def test_the_graders_own_feedback_is_replaced_without_a_backup(self):
        clone = _clone(self.dir / "class" / "conv1d-ann")
        sub = [Submission("ann", clone, clone.name)]
        self._feedback("ann", "first\n")
        hand_back.hand_back(sub, self.fb, "conv1d")
        self._feedback("ann", "regraded\n")
        hand_back.hand_back(sub, self.fb, "conv1d")
        self.assertEqual(_git(clone, "show", f"HEAD:{NAME}"), "regraded\n")
        self.assertEqual(sorted(p.name for p in clone.iterdir() if p.name.startswith("FEEDBACK")), [NAME])
        again = hand_back.hand_back(sub, self.fb, "conv1d")
        self.assertIn("already this feedback", again[0])

    def test_a_folder_that_is_no_clone_is_named_and_left_alone(self):
        folder = self.dir / "class" / "submission_101"
        folder.mkdir(parents=True)
        self._feedback("7001", "x\n")
        lines = hand_back.hand_back([Submission("7001", folder, folder.name),
                                     Submission("carl", self.dir / "class" / "none", "none")], self.fb, "conv1d")
        self.assertIn("is not a git clone", lines[0])
        self.assertIn("no feedback (not graded)", lines[1])
        self.assertEqual(list(folder.iterdir()), [])


if __name__ == "__main__":
    unittest.main()
