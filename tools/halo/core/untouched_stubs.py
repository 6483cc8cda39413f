"""A kernel section whose files are exactly its stub is judged without building or running it.

Every test of an untouched stub fails the same way ("still a stub: FILE:LINE: TODO ..."), and
building and running them cost most of a first grade, of a class submission that did only some
sections and of every red-team grade. So each grading path (student/grade.py, grade-class's
course/class_submission.py; the Gradescope autograder goes through grade.py) asks `decide`
which sections are untouched, builds and runs only the others, and takes the untouched ones'
results from `results_of`: each of the section's tests failed, naming the TODO lines a run of
the stub reaches (reached_todos).

What is compared is every file of the section's folder in the tree that would be built (the
grader's own copy of a submission; the student's exercises/ for their own grade), answers.toml
aside (answers are checked as always), against the grader's own idea of the stub: a folder it
holds (HEAD's exercises/, the autograder zip's, the class harness's) or, for a student's own
tree, the hashes `./workbook sync` recorded when it wrote the stubs (exercises/.generated.json).
Never anything a submission provides. One byte more or less, another file in the folder (a
header a quoted #include would find first), a link or a folder: the section is built and run.
This can only ever fail a section, never pass one.

HALO_RUN_STUBS=1 turns it off (the proofs compare both ways); a student who sets it only waits
longer for the same verdicts.
"""
import hashlib
import json
import os
import re
import stat
from pathlib import Path

from . import intake, untouched
from .results import parse_name

RUN_STUBS = "HALO_RUN_STUBS"
ANSWERS = "answers.toml"
# The stub's call as sync writes it (regions.py): HALO_TODO("what to do"), on one line.
_TODO = re.compile(r'\bHALO_TODO\("([^"\\\n]*)"\)')
# What the judge says of a test whose launch reached the stub's TODO (launch_check.cpp), and the
# note it adds per TODO reached (stub_notes); core/untouched.py reads the notes back.
NOT_WRITTEN = "the kernel has not been written yet (the file is the untouched stub: not built, not run)"
NOTE = untouched.STUB_NOTE


def enabled(environ=None):
    return (environ if environ is not None else os.environ).get(RUN_STUBS, "") in ("", "0")


def _digest(data):
    return hashlib.sha256(data).hexdigest()


def folder_digests(folder):
    """{name relative to `folder`: sha256} of every file below it but answers.toml, read without
    following a link; None when the folder is missing, or holds anything but regular files and
    folders (a link, a pipe), or a file cannot be read: such a folder is never taken for a stub."""
    folder = Path(folder)
    try:
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            return None
        out = {}
        for dirpath, dirnames, filenames in os.walk(folder):  # never follows a link
            for name in dirnames:
                if os.path.islink(os.path.join(dirpath, name)):
                    return None
            for name in filenames:
                rel = Path(dirpath, name).relative_to(folder)
                if rel != Path(ANSWERS):
                    out[str(rel)] = _digest(intake.read_regular(folder, rel))
        return out
    except (OSError, intake.Refused):
        return None


def stubs_in_folder(stubs, sections):
    """The reference from a folder of stubs the grader holds: {section folder: digests}."""
    return {s.folder: folder_digests(Path(stubs) / s.folder) for s in sections}


def stubs_in_record(record_path, sections):
    """The reference from sync's record (exercises/.generated.json: "exercises/<folder>/<file>":
    sha256 of what it wrote); {} when there is none (a course release holds no record)."""
    try:
        files = json.loads(Path(record_path).read_text())["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    out = {}
    for s in sections:
        prefix = f"exercises/{s.folder}/"
        out[s.folder] = {p[len(prefix):]: h for p, h in files.items()
                         if isinstance(p, str) and p.startswith(prefix) and p != prefix + ANSWERS}
    return out


# A student release holds no sync record (sync is the instructor's): it writes this one instead,
# the same layout, of the exercises/ files it hands out, so a release's first grade skips its
# untouched stubs as a clone of the project does. Only ever a reason to fail a section.
HANDED_OUT = "exercises/.handed-out.json"


def record_of(files):
    """The bytes of a record in sync's layout ("files": {path: sha256}) of {path: bytes}."""
    digests = {rel: _digest(data) for rel, data in sorted(files.items())}
    return (json.dumps({"about": "the exercises/ files as the release handed them out; a section still equal "
                                 "to them is its untouched stub, failed without a build", "files": digests},
                       indent=1) + "\n").encode()


def todo_lines(data):
    """[(line number, what)] of the stub's HALO_TODO calls in a kernel file's bytes."""
    lines = data.decode("utf-8", errors="replace").split("\n")  # lines as the compiler counts them
    return [(n, m.group(1)) for n, line in enumerate(lines, 1) for m in _TODO.finditer(line)]


def _in_device_code(lines, index):
    """Whether line `index` lies in a __global__ or __device__ function: the first line above it
    that starts at column 0 (not a comment, a directive or a closing brace) opens the function it
    is in, as the stubs are written (a header's continuation lines are indented)."""
    for line in reversed(lines[:index]):
        if line[:1] and not line[:1].isspace() and not line.startswith(("//", "/*", "#", "}")):
            return "__global__" in line or "__device__" in line
    return False


def reached_todos(kernels):
    """[(file name, line, what)] of the TODOs a run of the stub reaches: the grader calls a
    section's host code (copy the mask, compute the launch) before it launches, and a stub's host
    TODO stops the test there; so the host TODOs where there are any, else the kernels'. What a
    real run reaches is compared with this by `./workbook internal check-untouched-stubs`."""
    found = []
    for name, data in kernels.items():
        lines = data.decode("utf-8", errors="replace").split("\n")
        found += [(name, n, what, _in_device_code(lines, n - 1)) for n, what in todo_lines(data)]
    host = [t for t in found if not t[3]]
    return [t[:3] for t in (host or found)]


def decide(sections, tree, reference):
    """{section id: {kernel file name: its bytes}} of the kernel sections of `tree` whose folder
    equals its stub in `reference` ({folder: digests}) and whose kernels all hold a TODO. The bytes
    are those hashed, read once: what the results then name is what was compared."""
    if not enabled():
        return {}
    out = {}
    for s in sections:
        wanted = reference.get(s.folder)
        if not s.kernels or not wanted or any(k not in wanted for k in s.kernels):
            continue
        folder = Path(tree) / s.folder
        try:
            kernels = {k: intake.read_regular(folder, k) for k in s.kernels}
        except (OSError, intake.Refused):
            continue
        if folder_digests(folder) != wanted or any(_digest(b) != wanted[k] for k, b in kernels.items()):
            continue  # the folder was walked again: a file swapped in between is caught here
        if all(todo_lines(b) for b in kernels.values()):
            out[s.id] = kernels
    return out


def shown_path(path, root):
    """A file as the judge names it: below the source folder, relative to it (source_lines.cpp)."""
    path, top = str(path), str(root).rstrip("/") + "/"
    return path[len(top):] if path.startswith(top) else path


def message(kernels, kernel_dir, root):
    """Every test's message: not written, then one note per TODO a run reaches (reached_todos),
    sorted as the judge sorts the TODOs it reached."""
    notes = sorted(f"{shown_path(f'{kernel_dir}/{name}', root)}:{line}: TODO: {what}"
                   for name, line, what in reached_todos(kernels))
    return "\n".join([NOT_WRITTEN] + [NOTE + n for n in notes])


def results_of(section_id, test_names, kernels, kernel_dir, root):
    """The test records of an untouched section: each of its tests failed, with `message`."""
    text = message(kernels, kernel_dir, root)
    return [{"name": n, "section": section_id, "kind": parse_name(n)["kind"], "status": "failed",
             "message": text, "seconds": 0.0} for n in test_names]
