"""A command run on a pseudo-terminal, timed line by line: how long until a student *sees* a
line (grade streams the first failure on a terminal only), not only how long until it exits."""
import os
import pty
import select
import subprocess
import time


def run(cmd, cwd, marker):
    """(seconds until a line holding `marker` was printed, or None; seconds until exit; exit
    status; everything printed)."""
    main, secondary = pty.openpty()
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=secondary, stderr=secondary)
    os.close(secondary)
    seen, chunks = None, []
    while True:
        ready, _, _ = select.select([main], [], [], 0.05)
        if ready:
            try:
                data = os.read(main, 65536)
            except OSError:  # the terminal closed: the command has exited
                break
            if not data:
                break
            chunks.append(data)
            if seen is None and marker.encode() in b"".join(chunks[-2:]):
                seen = time.perf_counter() - start
        elif proc.poll() is not None:
            break
    status = proc.wait()
    os.close(main)
    return seen, time.perf_counter() - start, status, b"".join(chunks).decode(errors="replace")


class Busy:
    """`n` processes that keep a core busy each, for as long as the `with` lasts: the load of a
    student's laptop with a browser and an editor beside the grader."""

    def __init__(self, n):
        self.n, self.procs = n, []

    def __enter__(self):
        self.procs = [subprocess.Popen(["python3", "-c", "while True: pass"]) for _ in range(self.n)]
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            p.kill()
            p.wait()
        return False
