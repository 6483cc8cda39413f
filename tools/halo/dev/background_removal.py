"""Folders removed by a thread while the caller goes on (the red-team runner's resets).

Between two grades the red-team runner puts back a built tree (the fake /autograder root, the
grade build) from its pristine copy. Copying is quick; removing the used tree is not (about
0.6 s for the fake root's 700 files on this machine's disk, some 80 times an entry). Moved aside
under `folder` first (a rename: the path is free at once), it is removed here while the next
grade runs.

A thread of the caller's process, not a child process: the runner takes every process still
running after a grade for one the grade left behind."""
from __future__ import annotations

import os
import queue
import shutil
import tempfile
import threading
from pathlib import Path


class BackgroundRemoval:
    def __init__(self, folder: Path):
        self.folder = Path(folder)  # on the same file system as what is discarded (a rename)
        self.pending: queue.Queue = queue.Queue()
        self.thread = None

    def discard(self, path: Path):
        """Frees `path` now (renamed into `folder`) and removes what was there later. A link or
        a file is removed at once: only a folder is worth a rename."""
        path = Path(path)
        if path.is_symlink() or path.is_file():
            path.unlink()
            return
        if not path.exists():
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        aside = Path(tempfile.mkdtemp(dir=self.folder)) / path.name
        os.rename(path, aside)
        self.pending.put(aside.parent)
        if self.thread is None:
            self.thread = threading.Thread(target=self._work, name="background removal", daemon=True)
            self.thread.start()

    def _work(self):
        while True:
            item = self.pending.get()
            if item is None:
                return
            shutil.rmtree(item, ignore_errors=True)

    def close(self):
        """Waits until everything discarded is gone, and removes `folder` (left by an earlier
        run that stopped half-way, too)."""
        if self.thread is not None:
            self.pending.put(None)
            self.thread.join()
            self.thread = None
        shutil.rmtree(self.folder, ignore_errors=True)
