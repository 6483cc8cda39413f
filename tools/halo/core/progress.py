"""Feedback while something takes more than a moment: a line that counts elapsed seconds (and,
when known, items done of the total) on a terminal, and plain start and end lines otherwise, so
that logs and CI output stay readable."""
import sys
import threading
import time


class Progress:
    """with Progress("building 7.2 basic-1d") as p: ...   p.update(done, total) where counts exist."""

    def __init__(self, label, stream=None, interval=0.5, idle_note=None, idle_seconds=5.0):
        """idle_note: said once when nothing has moved for idle_seconds (on a terminal, after the
        line; elsewhere, a line of its own), so that a long wait never looks like a stuck tool."""
        self.label = label
        self.idle_note, self.idle_seconds = idle_note, idle_seconds
        self._moved = 0.0
        self._noted = False
        self.stream = stream or sys.stdout
        self.live = self.stream.isatty()
        self.interval = interval
        self.done = self.total = None
        self._start = 0.0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = None

    def _idle(self):
        return self.idle_note and time.monotonic() - self._moved > self.idle_seconds

    def _line(self):
        counts = f" {self.done} of {self.total} run" if self.total else ""  # run, not passed
        note = f": {self.idle_note}" if self.live and self._idle() else ""
        return f"{self.label}{counts} ({time.monotonic() - self._start:.0f} s){note}"

    def _draw(self):
        with self._lock:
            self.stream.write("\r\033[K" + self._line())
            self.stream.flush()

    def _tick(self):
        while not self._stop.wait(self.interval):
            if self.live:
                self._draw()
            elif self._idle() and not self._noted:
                self._noted = True
                with self._lock:
                    self.stream.write(f"  ({self.idle_note})\n")
                    self.stream.flush()

    def update(self, done, total):
        self.done, self.total = done, total
        self._moved = time.monotonic()
        if self.live:
            self._draw()

    def say(self, text):
        """Prints `text` (lines of its own) while the progress line goes on below it."""
        with self._lock:
            self.stream.write(("\r\033[K" if self.live else "") + text.rstrip("\n") + "\n")
            self.stream.flush()
        if self.live:
            self._draw()

    def __enter__(self):
        self._start = self._moved = time.monotonic()
        if not self.live:
            self.stream.write(self.label + "...\n")
            self.stream.flush()
        if self.live or self.idle_note:
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread:
            self._thread.join()
        if self.live:
            end = "\r\033[K" + self._line() + (" interrupted" if exc[0] else "")
        else:  # the start line is already there: say how it ended
            counts = f"{self.done} of {self.total} run, " if self.total else ""
            end = f"{self.label}: {counts}{'interrupted after' if exc[0] else 'done in'} " \
                  f"{time.monotonic() - self._start:.0f} s"
        self.stream.write(end + "\n")
        self.stream.flush()
        return False
