"""The submissions of a class, found in the folder an instructor has:

- a folder of student folders (each a tree shaped like exercises/, the kernel files on their own,
  or a whole clone of the repository): the folder's name is the student;
- a Gradescope export ("Export Submissions"): submission_<n>/ folders beside
  submission_metadata.yml, which names each folder's submitters; the student is the first
  submitter's student ID, else their email (what variants and rosters use);
- a GitHub Classroom clone set (folders <assignment>-<username>): the prefix all folders share
  is dropped, so the student is the username.

A .zip of any of these is unpacked first (zipfile never writes outside the target folder).
"""
from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

GRADESCOPE_METADATA = "submission_metadata.yml"
SAFE = re.compile(r"[^A-Za-z0-9@._+-]+")


class SubmissionsError(Exception):
    """The submissions folder cannot be read (the message is for the instructor)."""


@dataclass
class Submission:
    student: str     # the gradebook's name for the student (unique in the class)
    path: Path       # what the student submitted
    folder: str      # the folder it came from


def find(path, unpack_to=None):
    """[Submission] sorted by student, from a folder (or a .zip unpacked into `unpack_to`)."""
    path = Path(path)
    if path.is_file() and zipfile.is_zipfile(path):
        if unpack_to is None:
            raise SubmissionsError(f"{path} is a zip: give a folder to unpack it into")
        unpack_to = Path(unpack_to)
        if not unpack_to.exists():
            with zipfile.ZipFile(path) as z:
                z.extractall(unpack_to)
        path = _single_top_folder(unpack_to)
    if not path.is_dir():
        raise SubmissionsError(f"{path}: no such folder (give a folder of submissions, one folder per student)")
    folders = sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith((".", "__MACOSX")))
    if not folders:
        raise SubmissionsError(f"{path} holds no submission folders (one folder per student)")
    metadata = path / GRADESCOPE_METADATA
    names = gradescope_submitters(metadata.read_text(errors="replace")) if metadata.is_file() else {}
    if not names:
        names = _without_common_prefix([f.name for f in folders])
    subs, seen = [], {}
    for f in folders:
        student = SAFE.sub("_", names.get(f.name) or f.name).strip("._") or "student"
        if student in seen:  # two submissions of one student (or names equal once made safe)
            seen[student] += 1
            student = f"{student}~{seen[student]}"
        else:
            seen[student] = 1
        subs.append(Submission(student, f, f.name))
    return sorted(subs, key=lambda s: s.student)


def _single_top_folder(folder):
    entries = [p for p in Path(folder).iterdir() if not p.name.startswith((".", "__MACOSX"))]
    return entries[0] if len(entries) == 1 and entries[0].is_dir() and not (entries[0] / "exercises").exists() \
        and not any(entries[0].glob("*.cu")) else Path(folder)


def gradescope_submitters(text):
    """{folder: student} from the text of Gradescope's submission_metadata.yml. Read line by line
    (no YAML library needed): a top-level key `submission_<n>:` opens a submission, and the first
    `:sid:` (else `:email:`) under it names the student."""
    out, current, found = {}, None, {}
    for line in text.splitlines():
        top = re.match(r"^(submission_\w+):\s*$", line)
        if top:
            current = top.group(1)
            found[current] = {}
            continue
        field = re.match(r"^\s+-?\s*:(sid|email):\s*(.*?)\s*$", line)
        if current and field:
            value = field.group(2).strip("'\"")
            if value and field.group(1) not in found[current]:
                found[current][field.group(1)] = value
    for folder, fields in found.items():
        if fields.get("sid") or fields.get("email"):
            out[folder] = fields.get("sid") or fields["email"]
    return out


def _without_common_prefix(names):
    """{name: name without the `<assignment>-` prefix every name shares} (Classroom's clones)."""
    if len(names) < 2:
        return {}
    prefix = names[0]
    for n in names[1:]:
        while not n.startswith(prefix):
            prefix = prefix[:-1]
    cut = prefix.rfind("-") + 1
    if cut == 0 or any(len(n) <= cut for n in names):
        return {}
    return {n: n[cut:] for n in names}
