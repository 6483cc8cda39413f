"""Feedback while something takes more than a moment: a line that counts elapsed seconds (and,
when known, items done of the total) on a terminal, and plain start and end lines otherwise, so
that logs and CI output stay readable."""
import sys
import threading
import time


class Progress:
    """with Progress("building 7.2 basic-1d") as p: ...   p.update(done, total) where counts exist."""

    def __init__(self, label, stream=None, interval=0.5):
        self.label = label
        self.stream = stream or sys.stdout
        self.live = self.stream.isatty()
        self.interval = interval
        self.done = self.total = None
        self._start = 0.0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = None

    def _line(self):
        counts = f" {self.done}/{self.total}" if self.total else ""
        return f"{self.label}{counts} ({time.monotonic() - self._start:.0f} s)"

    def _draw(self):
        with self._lock:
            self.stream.write("\r\033[K" + self._line())
            self.stream.flush()

    def _tick(self):
        while not self._stop.wait(self.interval):
            self._draw()

    def update(self, done, total):
        self.done, self.total = done, total
        if self.live:
            self._draw()

    def __enter__(self):
        self._start = time.monotonic()
        if self.live:
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()
        else:
            self.stream.write(self.label + "...\n")
            self.stream.flush()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread:
            self._thread.join()
        if self.live:
            end = "\r\033[K" + self._line() + (" interrupted" if exc[0] else "")
        else:  # the start line is already there: say how it ended
            counts = f"{self.done}/{self.total}, " if self.total else ""
            end = f"{self.label}: {counts}{'interrupted after' if exc[0] else 'done in'} " \
                  f"{time.monotonic() - self._start:.0f} s"
        self.stream.write(end + "\n")
        self.stream.flush()
        return False
