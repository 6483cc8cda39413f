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


# Question ids as the chapter has them: 7.1 and 7.2 share the exercise-4 ones.
_QUESTIONS = {"7.1": ["exercise4_ghost_cells", "exercise3_width"],
              "7.2": ["exercise4_ghost_cells", "loads_total", "exercise1_p0"],
              "7.4": ["tile_loads"]}


def _chapter():
    """7.2 with one kernel, and two sections of questions beside it: enough for the intake's rules."""
    sections = [SimpleNamespace(id="7.1", folder="7.1-basics", kernels=[]),
                SimpleNamespace(id="7.2", folder="7.2-basic-1d", kernels=["basic.cu"]),
                SimpleNamespace(id="7.4", folder="7.4-tiled-1d", kernels=[])]
    return SimpleNamespace(sections=sections,
                           questions=lambda sid: [SimpleNamespace(id=q) for q in _QUESTIONS[sid]])


def _write(root, rel, text):
    p = Path(root) / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


class FlatAnswers(unittest.TestCase):
    """Gradescope's drag-and-drop flattens folders: an answers file outside every section folder
    is placed by its questions when they are one section's alone, and named otherwise (issue 34,
    item 4)."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="halo-intake-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.stubs = self.tmp / "stubs"
        for folder in ("7.1-basics", "7.2-basic-1d", "7.4-tiled-1d"):
            _write(self.stubs, f"{folder}/answers.toml", f"stub answers {folder}")
        _write(self.stubs, "7.2-basic-1d/basic.cu", "stub kernel")
        self.sub, self.out = self.tmp / "sub", self.tmp / "out"
        self.sub.mkdir()

    def take(self):
        return intake.take_submission(_chapter(), self.sub, self.stubs, self.out)

    def test_two_flat_answers_files_go_to_the_sections_their_questions_name(self):
        _write(self.sub, "answers.toml", "loads_total = 12\nexercise4_ghost_cells = 4\n")
        _write(self.sub, "answers (1).toml", "tile_loads = 3\n")
        notes = self.take()
        self.assertEqual((self.out / "7.2-basic-1d/answers.toml").read_text(), "loads_total = 12\nexercise4_ghost_cells = 4\n")
        self.assertEqual((self.out / "7.4-tiled-1d/answers.toml").read_text(), "tile_loads = 3\n")
        self.assertTrue(any("answers.toml (from answers.toml, 7.2's by its questions)" in n for n in notes), notes)
        self.assertFalse([n for n in notes if n.strip().startswith("ignored")], notes)

    def test_a_file_whose_questions_fit_two_sections_is_not_guessed_at(self):
        _write(self.sub, "answers.toml", "exercise4_ghost_cells = 4\n")
        notes = self.take()
        self.assertEqual((self.out / "7.1-basics/answers.toml").read_text(), "stub answers 7.1-basics")
        self.assertEqual((self.out / "7.2-basic-1d/answers.toml").read_text(), "stub answers 7.2-basic-1d")
        line = [n for n in notes if "ignored answers.toml" in n]
        self.assertEqual(len(line), 1, notes)
        self.assertIn("7.1-basics and in 7.2-basic-1d alike", line[0])

    def test_a_file_of_two_sections_questions_or_unknown_ones_is_named(self):
        _write(self.sub, "answers.toml", "loads_total = 1\ntile_loads = 2\n")
        _write(self.sub, "notes.toml", "favourite_colour = 3\n")
        notes = self.take()
        self.assertTrue(any("ignored answers.toml" in n and "more than one section" in n for n in notes), notes)
        self.assertTrue(any("ignored notes.toml" in n and "favourite_colour is no question" in n for n in notes), notes)

    def test_a_typo_does_not_hide_which_section_a_file_is(self):
        _write(self.sub, "answers.toml", "exercise1_p0 = 337/37\nexercise4_ghost_cells = 4\n")
        notes = self.take()
        self.assertIn("337/37", (self.out / "7.2-basic-1d/answers.toml").read_text())

    def test_a_file_in_its_section_folder_wins_over_a_flat_one(self):
        _write(self.sub, "7.2-basic-1d/answers.toml", "loads_total = 1\n")
        _write(self.sub, "answers.toml", "loads_total = 2\n")
        self.take()
        self.assertEqual((self.out / "7.2-basic-1d/answers.toml").read_text(), "loads_total = 1\n")


class Intake(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="halo-intake-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.stubs = self.tmp / "stubs"
        _write(self.stubs, "7.2-basic-1d/basic.cu", "stub kernel")
        _write(self.stubs, "7.2-basic-1d/answers.toml", "stub answers")
        _write(self.stubs, "7.1-basics/answers.toml", "stub answers 7.1")
        _write(self.stubs, "7.4-tiled-1d/answers.toml", "stub answers 7.4")
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
