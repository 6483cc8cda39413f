"""core/intake.py: every grading path takes a submission as regular files only, size-limited,
copied into a private folder before anything reads them (issue 32, item 4)."""
import os
import shutil
import tempfile
import unittest
from pathlib import Path
from types import SimpleNamespace

from halo.core import intake
from halo.course import export_autograder


def _chapter():
    """7.2 with one kernel: enough for the intake's rules."""
    return SimpleNamespace(sections=[SimpleNamespace(id="7.2", folder="7.2-basic-1d", kernels=["basic.cu"])])


def _write(root, rel, text):
    p = Path(root) / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


class Intake(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="halo-intake-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.stubs = self.tmp / "stubs"
        _write(self.stubs, "7.2-basic-1d/basic.cu", "stub kernel")
        _write(self.stubs, "7.2-basic-1d/answers.toml", "stub answers")
        self.key = _write(self.tmp, "solutions/7.2-basic-1d/answers.toml", "the key")
        _write(self.tmp, "solutions/7.2-basic-1d/basic.cu", "the reference")
        self.sub, self.out = self.tmp / "sub", self.tmp / "out"
        (self.sub / "7.2-basic-1d").mkdir(parents=True)

    def take(self):
        return intake.take_submission(_chapter(), self.sub, self.stubs, self.out)

    def graded(self, name):
        return (self.out / "7.2-basic-1d" / name).read_text()

    def refused(self, notes, what):
        lines = [n for n in notes if "refused" in n and what in n]
        self.assertEqual(len(lines), 1, notes)
        return lines[0]

    def test_every_path_shares_one_intake(self):
        self.assertIs(export_autograder.take_submission, intake.take_submission)

    def test_a_regular_file_is_copied_in(self):
        _write(self.sub, "7.2-basic-1d/basic.cu", "mine")
        self.take()
        self.assertEqual(self.graded("basic.cu"), "mine")
        self.assertFalse((self.out / "7.2-basic-1d" / "basic.cu").is_symlink())

    def test_a_section_folder_linked_to_solutions_is_refused(self):
        (self.sub / "7.2-basic-1d").rmdir()
        (self.sub / "7.2-basic-1d").symlink_to(self.tmp / "solutions" / "7.2-basic-1d")
        line = self.refused(self.take(), "7.2-basic-1d:")
        self.assertIn("a symbolic link", line)
        self.assertEqual((self.graded("basic.cu"), self.graded("answers.toml")), ("stub kernel", "stub answers"))

    def test_an_answers_file_linked_to_the_key_is_refused(self):
        (self.sub / "7.2-basic-1d" / "answers.toml").symlink_to(self.key)
        self.assertIn("a symbolic link", self.refused(self.take(), "answers.toml"))
        self.assertEqual(self.graded("answers.toml"), "stub answers")

    def test_control_the_link_would_have_handed_over_the_key(self):
        # What the attack above reaches when a reader follows links (as reading in place did).
        (self.sub / "7.2-basic-1d" / "answers.toml").symlink_to(self.key)
        self.assertEqual((self.sub / "7.2-basic-1d" / "answers.toml").read_text(), "the key")

    def test_a_link_to_dev_zero_is_refused_without_reading(self):
        (self.sub / "7.2-basic-1d" / "answers.toml").symlink_to("/dev/zero")
        self.refused(self.take(), "answers.toml")
        self.assertEqual(self.graded("answers.toml"), "stub answers")

    def test_control_dev_zero_has_no_end(self):
        # A reader without a limit would read on until memory ran out (the MemoryError seen).
        with open("/dev/zero", "rb") as f:
            self.assertEqual(len(f.read(4 << 20)), 4 << 20)

    def test_a_named_pipe_is_refused_without_waiting(self):
        os.mkfifo(self.sub / "7.2-basic-1d" / "basic.cu")
        os.mkfifo(self.sub / "7.2-basic-1d" / "answers.toml")
        notes = self.take()  # a reader that opened the pipe would wait here for ever
        self.assertIn("a named pipe", self.refused(notes, "basic.cu"))
        self.assertIn("a named pipe", self.refused(notes, "answers.toml"))
        self.assertEqual(self.graded("basic.cu"), "stub kernel")

    def test_control_a_pipe_has_no_writer_to_wait_for(self):
        # Opening the write end without blocking fails when no reader is there; symmetrically, a
        # blocking reader waits for a writer that never comes: the hang of reading in place.
        fifo = self.tmp / "pipe"
        os.mkfifo(fifo)
        with self.assertRaises(OSError):
            os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)

    def test_a_file_over_the_limit_is_refused_by_its_size(self):
        big = self.sub / "7.2-basic-1d" / "answers.toml"
        with open(big, "wb") as f:
            f.truncate(100 << 20)  # sparse: no 100 MB written
        line = self.refused(self.take(), "answers.toml")
        self.assertIn(f"over the limit of {intake.FILE_BYTES:,} bytes", line)
        self.assertEqual(self.graded("answers.toml"), "stub answers")

    def test_other_files_of_the_section_are_still_taken(self):
        _write(self.sub, "7.2-basic-1d/basic.cu", "mine")
        (self.sub / "7.2-basic-1d" / "answers.toml").symlink_to(self.key)
        self.take()
        self.assertEqual((self.graded("basic.cu"), self.graded("answers.toml")), ("mine", "stub answers"))

    def test_read_regular_follows_no_link_on_the_way(self):
        (self.tmp / "via").symlink_to(self.tmp / "solutions")
        with self.assertRaises(intake.Refused):
            intake.read_regular(self.tmp, "via/7.2-basic-1d/answers.toml")
        self.assertEqual(intake.read_regular(self.tmp, "solutions/7.2-basic-1d/answers.toml"), b"the key")

    def test_a_link_planted_in_the_private_copy_is_replaced_not_written_through(self):
        self.take()
        planted = self.out / "7.2-basic-1d" / "answers.toml"
        planted.unlink()
        planted.symlink_to(self.key)
        _write(self.sub, "7.2-basic-1d/answers.toml", "mine")
        self.take()
        self.assertFalse(planted.is_symlink())
        self.assertEqual((planted.read_text(), self.key.read_text()), ("mine", "the key"))

    def test_an_unchanged_file_keeps_its_time(self):
        _write(self.sub, "7.2-basic-1d/basic.cu", "mine")
        self.take()
        kernel = self.out / "7.2-basic-1d" / "basic.cu"
        os.utime(kernel, (1, 1))
        self.take()
        self.assertEqual(kernel.stat().st_mtime, 1)  # its build stays warm

    def test_the_tree_holds_nothing_else(self):
        self.take()
        _write(self.out, "7.2-basic-1d/left-over.cu", "an earlier grade's")
        self.take()
        self.assertFalse((self.out / "7.2-basic-1d" / "left-over.cu").exists())


if __name__ == "__main__":
    unittest.main()
