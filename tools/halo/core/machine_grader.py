"""`./workbook setup` as root: the grader's libraries of this tree built once for the machine.

The Dev Container's image runs it at build time, and `sudo ./workbook setup` does on Linux. The
libraries go into grader_cache.machine_folder() (/var/cache/halo/grader), under the hash of their
inputs, root's and read-only to everyone else; a later first grade of any clone of the same
sources imports them instead of compiling them (core/grader_cache.py says when a grade trusts
them). Nothing of a student's is compiled here: the build is configured on an empty exercises
folder and makes the libraries' targets alone.
"""
import os
import tempfile
import time
from pathlib import Path

from . import build, grader_cache


def prebuild(root, toolchain) -> str:
    """Builds and publishes the libraries when they are missing; returns the line setup prints."""
    root = Path(root).resolve()
    if not (root / "grader" / "cpu").is_dir():
        return "the grader's sources are not here: its libraries are built by the first grade"
    folder = grader_cache.machine_folder()
    if os.geteuid() != 0:
        return (f"the grader's libraries are built by the first grade, which takes longer for it; `sudo ./workbook "
                f"setup` builds them once for this machine, in {folder}")
    entry = grader_cache.entry_for(folder, root, toolchain)
    if entry is None:
        return "the chapter does not load: the grader's libraries are built by the first grade"
    if entry.is_dir():
        return f"the grader's libraries of these sources are built already ({entry})"
    started = time.monotonic()
    for p in (folder.parent, folder):  # made here: root's, readable by all (what a grade trusts)
        if not p.is_dir():               # one that exists (/tmp, say) keeps its modes
            p.mkdir(parents=True)
            p.chmod(0o755)
    with tempfile.TemporaryDirectory(prefix="halo-setup-") as tmp:
        empty, build_dir = Path(tmp) / "exercises", Path(tmp) / "build"
        empty.mkdir()
        made = build.configure(root, build_dir, toolchain, "grade", exercises_dir=empty) and \
            grader_cache.publish(toolchain, build_dir, cache=str(folder))
    if not made or not grader_cache.only_root_can_change(entry):
        return "the grader's libraries could not be built here: the first grade builds them"
    return f"the grader's libraries built once for this machine in {time.monotonic() - started:.0f} s ({entry})"
