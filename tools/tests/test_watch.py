"""`./workbook watch` in a pseudo-terminal: a save regrades within seconds, Ctrl-C quits cleanly
and stops a grade in progress. A fake grade command stands in for the real one (no C++ build)."""
import os
import pty
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
from pathlib import Path

from halo.student import watch
from halo.core.workbook_argv import workbook_argv
from tests.helpers import REPO_ROOT, source_tree

# How long a test waits for something watch must print or do: long, so that a loaded machine never
# fails it (how fast watch reacts is measured by bench, never decided by a test).
PATIENCE = 120

KERNEL = Path("exercises") / "7.2-basic-1d" / "convolution_1d_basic.cu"

FAST_FAKE = """\
import pathlib, sys
last = pathlib.Path("{kernel}").read_text().splitlines()[-1]
print("building 7.2 basic-1d...")
print("FAILED fake grade of " + " ".join(sys.argv[1:]) + ": last line " + repr(last))
sys.exit(1)
"""

SLOW_FAKE = """\
import os, pathlib, time
pathlib.Path("fake.pid").write_text(str(os.getpid()))
time.sleep(60)
"""


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is not alive: /proc says so on Linux
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return True


def _ctrl_c_as_a_terminal_gives_it():
    """SIGINT back to its default in the child: a test run started in the background by a shell
    without job control inherits it ignored, and so would the watch (Python keeps an ignored
    SIGINT ignored), which a student's terminal never does."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Terminal:
    """`./workbook watch ...` run on a pseudo-terminal, as a student runs it."""

    def __init__(self, root, args):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become the workbook
            try:
                _ctrl_c_as_a_terminal_gives_it()
                os.chdir(root)
                os.execv(sys.executable, [sys.executable, str(root / "workbook"), *args])
            finally:
                os._exit(127)
        self.output = b""
        self.status = None

    def read(self, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.fd], [], [], 0.05)
            if ready:
                try:
                    data = os.read(self.fd, 65536)
                except OSError:  # EIO: the child is gone
                    return
                if not data:
                    return
                self.output += data

    def wait_for(self, text, seconds):
        deadline = time.monotonic() + seconds
        while text.encode() not in self.output and time.monotonic() < deadline:
            self.read(0.05)
        return text.encode() in self.output

    def wait_exit(self, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.read(0.05)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.read(0.2)
                self.status = os.waitstatus_to_exitcode(status)
                return self.status
        return None

    def close(self):
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        os.close(self.fd)


class Watch(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory(prefix="halo-watch-")
        self.addCleanup(tmp.cleanup)
        self.root = Path(tmp.name)
        # The launcher finds its root beside itself; the package is the repository's own.
        shutil.copy2(REPO_ROOT / "workbook", self.root / "workbook")
        (self.root / "tools").symlink_to(REPO_ROOT / "tools")
        for tree in ("chapters", "exercises"):
            shutil.copytree(source_tree(tree), self.root / tree)
        self.fast = self.root / "fast_fake.py"
        self.fast.write_text(FAST_FAKE.format(kernel=KERNEL))
        self.slow = self.root / "slow_fake.py"
        self.slow.write_text(SLOW_FAKE)

    def start(self, fake, *sections):
        term = Terminal(self.root, ["watch", *sections, "--grade-command", f"{sys.executable} {fake}"])
        self.addCleanup(term.close)
        return term

    def save(self, text):
        with open(self.root / KERNEL, "a") as f:
            f.write(text + "\n")

    def test_a_save_regrades_and_ctrl_c_quits_cleanly(self):
        term = self.start(self.fast, "7.2")
        self.assertTrue(term.wait_for("FAILED fake grade of 7.2: last line '}'", PATIENCE), term.output)
        self.assertTrue(term.wait_for("save a file to grade again; Ctrl-C quits", PATIENCE), term.output)
        self.assertIn(watch.CLEAR.encode(), term.output)  # a terminal: the screen is cleared
        self.assertNotIn(b"building 7.2", term.output)  # progress lines are trimmed

        self.save("// saved 1")
        self.assertTrue(term.wait_for("last line '// saved 1'", PATIENCE), term.output)
        self.save("// saved 2")
        self.assertTrue(term.wait_for("last line '// saved 2'", PATIENCE), term.output)
        self.assertIn(b"not yet (the grade exited with status 1)", term.output)

        os.write(term.fd, b"\x03")  # Ctrl-C, through the terminal
        self.assertEqual(term.wait_exit(PATIENCE), 0, term.output)
        self.assertNotIn(b"Traceback", term.output)
        self.assertIn(b"Stopped watching.", term.output)

    def test_other_sections_files_do_not_regrade(self):
        term = self.start(self.fast, "7.2")
        self.assertTrue(term.wait_for("Ctrl-C quits", PATIENCE), term.output)
        count = term.output.count(b"FAILED fake grade")
        with open(self.root / "exercises" / "7.4-tiled-1d" / "convolution_1d_tiled.cu", "a") as f:
            f.write("// 7.4 work\n")
        term.read(1.5)
        self.assertEqual(term.output.count(b"FAILED fake grade"), count)
        os.kill(term.pid, signal.SIGINT)
        self.assertEqual(term.wait_exit(PATIENCE), 0, term.output)

    def test_ctrl_c_stops_a_grade_in_progress(self):
        term = self.start(self.slow, "7.2")
        pidfile = self.root / "fake.pid"
        deadline = time.monotonic() + PATIENCE
        while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < deadline:
            term.read(0.05)
        grade_pid = int(pidfile.read_text())
        self.assertTrue(_alive(grade_pid))
        self.assertTrue(term.wait_for("grading 7.2...", PATIENCE), term.output)  # the spinner, on a terminal
        term.read(1.2)
        self.assertIn(b"grading 7.2... 1 s", term.output)  # and the seconds it has run
        os.write(term.fd, b"\x03")
        self.assertEqual(term.wait_exit(PATIENCE), 0, term.output)
        self.assertNotIn(b"Traceback", term.output)
        deadline = time.monotonic() + PATIENCE
        while _alive(grade_pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertFalse(_alive(grade_pid), "the grade command outlived the watch")

    def test_not_a_terminal_no_clear_no_spinner(self):
        proc = subprocess.Popen([sys.executable, str(self.root / "workbook"), "watch", "7.2",
                                 "--grade-command", f"{sys.executable} {self.fast}"],
                                cwd=self.root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                preexec_fn=_ctrl_c_as_a_terminal_gives_it)
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        first = b""
        while b"Ctrl-C quits" not in first:  # the watch is in its loop: the grade has been shown
            line = proc.stdout.readline()
            self.assertTrue(line, first)
            first += line
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=10)
        out = first + out
        self.assertEqual(proc.returncode, 0, out)
        self.assertIn(b"FAILED fake grade of 7.2", out)
        self.assertNotIn(b"\033[", out)
        self.assertNotIn(b"\r", out)
        self.assertNotIn(b"Traceback", out)

    def test_unknown_section(self):
        proc = subprocess.run([sys.executable, str(self.root / "workbook"), "watch", "7.7"],
                              cwd=self.root, capture_output=True, text=True, timeout=30)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("unknown section '7.7'", proc.stderr)


class Trim(unittest.TestCase):
    def test_long_output_keeps_the_start_and_the_verdict(self):
        text = "building 7.2...\n" + "\n".join(f"line {k}" for k in range(200)) + "\nNot everything passes yet."
        lines = watch.trimmed(text)
        self.assertLessEqual(len(lines), watch.MAX_LINES)
        self.assertEqual(lines[0], "line 0")
        self.assertEqual(lines[-1], "Not everything passes yet.")
        self.assertIn("more lines", " ".join(lines))

    def test_command(self):
        from halo.core.chapter_data import load_chapter
        chapter = load_chapter(REPO_ROOT)
        sections = [chapter.section("7.2"), chapter.section("7.4")]
        self.assertEqual(watch.grade_command(REPO_ROOT, sections), workbook_argv(REPO_ROOT, "grade", "7.2", "7.4"))
        self.assertEqual(watch.grade_command(REPO_ROOT, sections, "fake --x"), ["fake", "--x", "7.2", "7.4"])


if __name__ == "__main__":
    unittest.main()
