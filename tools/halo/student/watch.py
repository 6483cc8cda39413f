"""`./workbook watch [SECTION...]`: grade again every time a file of the section is saved.

The grading is `./workbook grade SECTION...` run as a child process (never a second grader),
started in its own process group so that Ctrl-C stops it and everything it started (the
build, ctest) at once. Files are polled by modification time: no dependency, and it works the
same on Linux and macOS.
"""
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

from .status import exercise_files
from ..core.workbook_argv import workbook_argv

POLL_SECONDS = 0.3
CLEAR = "\033[2J\033[H"
SPINNER = "|/-\\"
MAX_LINES = 60  # of the grade's output shown; the rest is one `./workbook grade` away


def snapshot(root, sections):
    """{path: (mtime_ns, size)} of the watched files; a difference means a save."""
    files = {}
    for s in sections:
        for p in exercise_files(root, s):
            try:
                st = p.stat()
            except OSError:  # removed between the listing and the stat (an editor's save)
                continue
            files[p] = (st.st_mtime_ns, st.st_size)
    return files


def grade_command(root, sections, override=None):
    ids = [s.id for s in sections]
    if override:
        return shlex.split(override) + ids
    return [*workbook_argv(Path(root)), "grade"] + ids


def trimmed(text, limit=MAX_LINES):
    """The grade's output without its progress lines, cut in the middle when long: the first
    diagnostics come first and the verdict last, and both are kept."""
    lines = [l for l in text.rstrip().splitlines()
             if not l.startswith(("building ", "running the tests"))]
    if len(lines) <= limit:
        return lines
    head, tail = limit - 12, 11
    return lines[:head] + [f"    ... {len(lines) - head - tail} more lines (./workbook grade shows them all) ..."] + \
        lines[-tail:]


def _stop(proc):
    """Stops the child and its process group: politely, then firmly."""
    if proc is None or proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, 3), (signal.SIGKILL, 3)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


class Watcher:
    def __init__(self, root, sections, command, out=None):
        self.root, self.sections, self.command = Path(root), sections, command
        self.out = out or sys.stdout
        self.tty = self.out.isatty()
        self.proc = None

    def write(self, text):
        self.out.write(text)
        self.out.flush()

    def grade_once(self):
        """Runs the grade command; returns (exit status, output, seconds)."""
        start = time.monotonic()
        self.proc = subprocess.Popen(self.command, cwd=self.root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        chunks = []
        reader = threading.Thread(target=lambda: chunks.append(self.proc.stdout.read()), daemon=True)
        reader.start()
        ids = " ".join(s.id for s in self.sections)
        if not self.tty:
            self.write(f"grading {ids}...\n")
        k = 0
        while self.proc.poll() is None:
            if self.tty:
                self.write(f"\r{SPINNER[k % len(SPINNER)]} grading {ids}... {time.monotonic() - start:.0f} s ")
            k += 1
            time.sleep(0.1)
        reader.join(5)  # a grandchild still holding the pipe must not hang the watch
        rc, self.proc = self.proc.returncode, None
        output = b"".join(chunks).decode("utf-8", "replace")
        return rc, output, time.monotonic() - start

    def show(self, rc, output, seconds):
        if self.tty:
            self.write(CLEAR)
        ids = " ".join(s.id for s in self.sections)
        self.write(f"halo watch {ids}: graded at {datetime.now():%H:%M:%S} in {seconds:.1f} s\n\n")
        self.write("\n".join(trimmed(output)) + "\n\n")
        verdict = "PASS: everything here passes." if rc == 0 else f"not yet (the grade exited with status {rc})"
        self.write(f"{verdict}\n")
        folders = ", ".join(f"exercises/{s.folder}/" for s in self.sections)
        self.write(f"Watching {folders}: save a file to grade again; Ctrl-C quits.\n")

    def loop(self, poll=POLL_SECONDS):
        seen = snapshot(self.root, self.sections)
        rc, output, seconds = self.grade_once()
        self.show(rc, output, seconds)
        while True:
            time.sleep(poll)
            now = snapshot(self.root, self.sections)
            if now == seen:
                continue
            time.sleep(0.05)  # an editor may write a file in several steps
            seen = snapshot(self.root, self.sections)
            rc, output, seconds = self.grade_once()
            self.show(rc, output, seconds)


def run(root, chapter, section_ids, grade_command_override=None):
    sections = [chapter.section(s) for s in section_ids] if section_ids else list(chapter.sections)
    missing = [s for s in sections if not (Path(root) / "exercises" / s.folder).is_dir()]
    if missing:
        print(f"halo: exercises/{missing[0].folder} does not exist (./workbook sync writes it)", file=sys.stderr)
        return 2
    watcher = Watcher(root, sections, grade_command(root, sections, grade_command_override))
    try:
        watcher.loop()
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the cleanup short
        _stop(watcher.proc)
        watcher.write("\nStopped watching.\n")
    return 0
