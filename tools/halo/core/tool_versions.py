"""Tool versions asked once per build folder. `clang++ --version` and `cmake --version` took 34 ms
of every grade at load 3 (docs/results/grade-start-times.md) to learn what does not change between
two grades of one build folder.

Each answer is kept under the tool as it is on disk: its resolved path, size, modification and
change times and inode. An upgraded compiler, a link moved to another one or a file replaced by
another of the same size and date is a new key, and is asked again; a key never goes stale, so
none is ever removed. Only answers that were read are kept: a tool that could not say its version
is asked again next time. The file is a convenience, never a verdict: an unreadable or malformed
one is ignored (and rewritten)."""
import json
import os

FILE = "halo-tool-versions.json"


def _identity(cmd):
    """What the answer of `cmd --version` is kept under; None when `cmd` is not a file."""
    try:
        real = os.path.realpath(cmd)
        st = os.stat(real)
    except OSError:
        return None
    return f"{real}|{st.st_size}|{st.st_mtime_ns}|{st.st_ctime_ns}|{st.st_ino}"


class Versions:
    """`version(cmd, pattern)`: the answer of `ask(cmd, pattern)`, asked only when no answer for
    this very file and pattern is kept in `folder` (None: keep nothing, ask every time)."""

    def __init__(self, ask, folder=None):
        self.ask, self.path = ask, os.path.join(folder, FILE) if folder else None
        self.kept, self.changed = self._read(), False

    def _read(self):
        try:
            with open(self.path, encoding="utf-8") as f:
                kept = json.load(f)
        except (TypeError, OSError, ValueError):
            return {}
        if not isinstance(kept, dict):
            return {}
        return {k: tuple(v) for k, v in kept.items()
                if isinstance(v, list) and len(v) == 2 and all(type(x) is int for x in v)}

    def version(self, cmd, pattern):
        who = _identity(cmd)
        key = f"{who}|{pattern}"
        if who is not None and key in self.kept:
            return self.kept[key]
        found = self.ask(cmd, pattern)
        if who is not None and found is not None and _identity(cmd) == who:  # not changed while asked
            self.kept[key], self.changed = tuple(found), True
        return found

    def save(self):
        """Writes the answers asked for this time beside the others (whole, or not at all)."""
        if not (self.path and self.changed):
            return
        from .results import write_atomically  # only when there is something to write
        try:
            write_atomically(self.path, json.dumps({k: list(v) for k, v in self.kept.items()}, indent=1,
                                                   sort_keys=True))
        except OSError:
            pass  # a read-only build folder: the versions are asked again next time
