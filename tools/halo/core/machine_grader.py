"""`./workbook setup` as root: the grader's libraries and judges of this tree built once for the machine.

The Dev Container's image runs it at build time, and `sudo ./workbook setup` does on Linux. The
libraries go into grader_cache.machine_folder() (/var/cache/halo/grader), under the hash of their
inputs, and every section's judge beside them (core/judge_cache.py), root's and read-only to
everyone else; a later first grade of any clone of the same sources imports them instead of
compiling them (core/grader_cache.py says when a grade trusts them). Nothing of a student's is
compiled here: the build is configured on an empty exercises folder and makes the libraries' and
the judges' targets alone.
"""
import os
import tempfile
import time
from pathlib import Path

from . import build, grader_cache, judge_cache


def prebuild(root, toolchain) -> str:
    """Builds and publishes the libraries and the judges when they are missing; returns the line
    setup prints."""
    root = Path(root).resolve()
    if not (root / "grader" / "cpu").is_dir():
        return "the grader's sources are not here: its libraries are built by the first grade"
    folder = grader_cache.machine_folder()
    if os.geteuid() != 0:
        return (f"the grader's libraries are built by the first grade, which takes longer for it; `sudo ./workbook "
                f"setup` builds them once for this machine, in {folder}")
    entries = (grader_cache.entry_for(folder, root, toolchain), judge_cache.entry_for(folder, root, toolchain))
    if None in entries:
        return "the chapter does not load: the grader's libraries are built by the first grade"
    if all(e.is_dir() for e in entries):
        return f"the grader's libraries and judges of these sources are built already ({folder})"
    started = time.monotonic()
    for p in (folder.parent, folder):  # made here: root's, readable by all (what a grade trusts)
        if not p.is_dir():               # one that exists (/tmp, say) keeps its modes
            p.mkdir(parents=True)
            p.chmod(0o755)
    with tempfile.TemporaryDirectory(prefix="halo-setup-") as tmp:
        empty, build_dir = Path(tmp) / "exercises", Path(tmp) / "build"
        empty.mkdir()
        # Libraries already there (a setup of an older Halo made no judges) are imported.
        if build.configure(root, build_dir, toolchain, "grade", exercises_dir=empty):
            if not entries[0].is_dir():
                grader_cache.publish(toolchain, build_dir, cache=str(folder))
            judge_cache.publish(toolchain, build_dir, cache=str(folder))
    made = [e.is_dir() and grader_cache.only_root_can_change(e) for e in entries]
    took = f"{time.monotonic() - started:.0f} s ({folder})"
    if all(made):
        return f"the grader's libraries and judges built once for this machine in {took}"
    if made[0]:
        return (f"the grader's libraries built once for this machine in {took}; its judges could not be built: "
                "the first grade compiles them")
    return "the grader's libraries could not be built here: the first grade builds them"
