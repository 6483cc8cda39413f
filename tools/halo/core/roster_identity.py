"""Who a platform's account is, in the roster's terms: a platform names a student its own way
(Gradescope by `sid` or email, GitHub Classroom by the clone owner's GitHub username), but each
variant is keyed by the roster's student ID (variants.py). A roster row may carry, besides the
ID, an `email` and a `github_username` column (Classroom's roster export names it so); any of
them finds the row. Emails and GitHub usernames are compared without case, as both services do."""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Optional

from .variants import ID_COLUMNS, VariantError, check_student_id, read_roster

# Columns that name another identity of the same student (headers normalised as read_roster does).
EMAIL_COLUMNS = ("email", "email_address")
GITHUB_COLUMNS = ("github_username", "github", "github_login")


def _normal(header):
    return header.strip().lower().replace(" ", "_").replace("-", "_")


def identities(path) -> dict:
    """{identity (lower-cased) -> roster student ID} for every row: the ID itself, its email and
    its GitHub username. One identity claimed by two students is an error naming both lines."""
    ids = read_roster(path)  # checks the file and the ID column, with their messages
    text = Path(path).read_text(encoding="utf-8-sig")
    rows = list(csv.reader(text.splitlines()))
    names = [_normal(h) for h in rows[0]]
    id_column = next(names.index(c) for c in ID_COLUMNS if c in names)
    others = [names.index(c) for c in EMAIL_COLUMNS + GITHUB_COLUMNS if c in names]
    out: dict[str, str] = {}
    line_of: dict[str, int] = {}
    students = iter(ids)
    for line, row in enumerate(rows[1:], 2):
        if not any(cell.strip() for cell in row):
            continue
        sid = next(students)
        for column in [id_column] + others:
            value = row[column].strip().lower() if column < len(row) else ""
            if not value:
                continue
            if out.get(value, sid) != sid:
                raise VariantError(f"{path}:{line}: {value!r} names {out[value]!r} on line {line_of[value]} "
                                   f"and {sid!r} here; each account belongs to one student")
            out[value], line_of[value] = sid, line
    return out


def student_for(path, *accounts) -> Optional[str]:
    """The roster's student ID of the first of `accounts` (an ID, an email, a GitHub username)
    that the roster knows, else None."""
    known = identities(path)
    for account in accounts:
        if isinstance(account, str) and account.strip().lower() in known:
            return known[account.strip().lower()]
    return None


def clone_owner(repository_name: str, usernames) -> Optional[str]:
    """The GitHub username that owns a Classroom clone, from the repository's name
    (`<assignment>-<username>`): the longest of `usernames` the name ends with after a dash.
    The assignment's name may itself hold dashes, so the roster, not a split, decides."""
    name = repository_name.strip().lower()
    if name.endswith(".git"):
        name = name[:-4]
    fits = [u for u in usernames if u and name.endswith("-" + u.lower())]
    return max(fits, key=len) if fits else None


def github_usernames(path) -> dict:
    """{GitHub username (lower-cased) -> roster student ID}; VariantError if the roster has no
    GitHub column (a Classroom course needs one to know whose clone is whose)."""
    text = Path(path).read_text(encoding="utf-8-sig")
    header = [_normal(h) for h in (next(csv.reader(text.splitlines()), None) or [])]
    column = next((c for c in GITHUB_COLUMNS if c in header), None)
    if column is None:
        raise VariantError(f"{path}:1: no column of GitHub usernames; add one named github_username "
                           "(GitHub Classroom's roster export has it) to tell whose clone is whose")
    index = header.index(column)
    ids = read_roster(path)
    out, students = {}, iter(ids)
    for row in list(csv.reader(text.splitlines()))[1:]:
        if not any(cell.strip() for cell in row):
            continue
        sid = next(students)
        if index < len(row) and row[index].strip():
            out[row[index].strip().lower()] = check_student_id(sid)
    return out
