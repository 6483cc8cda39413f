"""Per-student variants: each student's own numbers for the questions that `vary`.

A question's `vary` table (chapters/*/questions.toml) lists, per parameter, the choices a
variant picks from. The pick is a keyed hash: HMAC-SHA-256 keyed by the course secret over
(student ID, section id, vary group or question id, parameter), so it is the same in every
process and on every machine (never Python's salted hash()), and a student who knows only
their ID cannot compute another student's numbers without the secret. Questions of one
`vary_group` share their picks, so "Same array (n = ...)" stays the same array.

The course secret comes from HALO_COURSE_SECRET, else from `course.toml` (`secret = "..."`)
at the repository root or a given path; that file is never committed. With neither, the
secret is "" (self-study): variants still differ by student, but anyone can recompute them.
"""
from __future__ import annotations

import csv
import hashlib
import hmac
import json
import os
from pathlib import Path
from typing import Optional

from .tomlcompat import TOMLDecodeError, load_toml

SECRET_ENV = "HALO_COURSE_SECRET"
COURSE_FILE = "course.toml"
# Roster columns that hold the student ID, in order of preference (headers are compared
# lower-cased, with spaces and dashes read as _).
ID_COLUMNS = ("student_id", "id", "sis_id", "email")


class VariantError(Exception):
    """A roster, course file or student ID that cannot be used; str() says where and why."""


# ---------------------------------------------------------------- the secret

def secret_from_env_or_file(root=None, path=None) -> str:
    """The course secret: $HALO_COURSE_SECRET if set, else `secret` of `path` (or of
    <root>/course.toml when it exists), else "" (self-study)."""
    if os.environ.get(SECRET_ENV) is not None:
        return os.environ[SECRET_ENV]
    if path is None:
        if root is None or not (Path(root) / COURSE_FILE).is_file():
            return ""
        path = Path(root) / COURSE_FILE
    try:
        data = load_toml(path)
    except FileNotFoundError:
        raise VariantError(f"{path}: no such file") from None
    except TOMLDecodeError as e:
        raise VariantError(f"{path}: {e}") from None
    secret = data.get("secret")
    if not isinstance(secret, str):
        raise VariantError(f'{path}: should hold secret = "..." (a string), the course secret')
    return secret


def secret_configured(root=None) -> bool:
    """Whether this machine has a course secret (the course's grader) or not (a student's)."""
    return os.environ.get(SECRET_ENV) is not None or (root is not None and (Path(root) / COURSE_FILE).is_file())


def secret_fingerprint(secret: str) -> str:
    """A short tag of the secret a file was written with, recorded in the file: a grader with
    another secret (a student's machine has none) then knows it cannot verify the numbers,
    rather than calling them edited. 48 bits of an HMAC tell nothing usable about a strong secret."""
    return hmac.new(secret.encode(), b"halo course secret fingerprint", hashlib.sha256).hexdigest()[:12]


# ---------------------------------------------------------------- student IDs

def check_student_id(student: str, where: str = "student ID") -> str:
    """The ID stripped; VariantError if it is empty or cannot name a folder of its own."""
    if not isinstance(student, str):
        raise VariantError(f"{where}: should be a string")
    sid = student.strip()
    if not sid:
        raise VariantError(f"{where}: the student ID is empty")
    if sid in (".", "..") or any(c in sid for c in "/\\") or any(ord(c) < 32 or ord(c) == 127 for c in sid):
        raise VariantError(f"{where}: student ID {sid!r} cannot be a folder name "
                           "(no /, \\, control characters, . or ..)")
    return sid


def read_roster(path) -> list[str]:
    """The student IDs of a class roster: a CSV file with a header row and a column named
    student_id, id, sis_id or email (the first of those found)."""
    shown = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")  # spreadsheets often write a BOM
    except FileNotFoundError:
        raise VariantError(f"{shown}: no such file") from None
    except UnicodeDecodeError:
        raise VariantError(f"{shown}: the roster is not UTF-8 text (save it as CSV UTF-8)") from None
    except OSError as e:
        raise VariantError(f"{shown}: cannot read it: {e.strerror}") from None
    rows = csv.reader(text.splitlines())
    header = next(rows, None)
    if not header:
        raise VariantError(f"{shown}:1: the roster is empty; it needs a header row, like: student_id,name")
    names = [h.strip().lower().replace(" ", "_").replace("-", "_") for h in header]
    column = next((names.index(c) for c in ID_COLUMNS if c in names), None)
    if column is None:
        raise VariantError(f"{shown}:1: no column of student IDs; name one of them "
                           f"{', '.join(ID_COLUMNS)} (the header is: {', '.join(header)})")
    ids: list[str] = []
    first_line: dict[str, int] = {}
    for line, row in enumerate(rows, 2):
        if not any(cell.strip() for cell in row):
            continue  # blank lines are common at the end of exported files
        if column >= len(row) or not row[column].strip():
            raise VariantError(f"{shown}:{line}: no {header[column].strip()} on this row")
        sid = check_student_id(row[column], f"{shown}:{line}")
        if sid in first_line:
            raise VariantError(f"{shown}:{line}: {sid!r} is also on line {first_line[sid]}; "
                               "each student once")
        first_line[sid] = line
        ids.append(sid)
    if not ids:
        raise VariantError(f"{shown}: the roster lists no students")
    return ids


# ---------------------------------------------------------------- picking the numbers

def _pick(choices: list, secret: str, student: str, section_id: str, group: str, param: str):
    message = json.dumps([student, section_id, group, param]).encode()  # unambiguous framing
    digest = hmac.new(secret.encode(), message, hashlib.sha256).digest()
    return choices[int.from_bytes(digest[:8], "big") % len(choices)]


def params_for(question, student: str, secret: str = "") -> dict:
    """The varied parameters of `question` in `student`'s variant ({} when nothing varies)."""
    sid = check_student_id(student)
    group = question.vary_group or question.id
    return {name: _pick(choices, secret, sid, question.section_id, group, name)
            for name, choices in question.vary.items()}


def variant_question(question, student: str, secret: str = ""):
    """The question as `student` gets it: a copy whose expected() and text() use their numbers."""
    params = params_for(question, student, secret)
    return question.with_params(params) if params else question


def chapter_params(chapter, student: str, secret: str = "") -> dict:
    """{(section id, question id): params} for every question that varies: a whole variant."""
    return {(s.id, q.id): params_for(q, student, secret)
            for s in chapter.sections for q in chapter.questions(s.id) if q.vary}
