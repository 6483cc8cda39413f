"""Who a platform's account is, in the roster's terms: a platform names a student its own way
(Gradescope by `sid` or email, GitHub Classroom by the clone owner's GitHub username), but each
variant is keyed by the roster's student ID (variants.py). A roster row may carry, besides the
ID, an `email` and a `github_username` column (Classroom's roster export names it so); any of
them finds the row. Emails and GitHub usernames are compared without case, as both services do."""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Optional

from .variants import ID_COLUMNS, VariantError, read_roster

# Columns that name another identity of the same student (headers normalised as read_roster does).
EMAIL_COLUMNS = ("email", "email_address")
GITHUB_COLUMNS = ("github_username", "github", "github_login")


def _rows(path):
    """(normalised header, [(line, row, student ID)]) of a roster read_roster accepts."""
    ids = iter(read_roster(path))  # checks the file and the ID column, with their messages
    rows = list(csv.reader(Path(path).read_text(encoding="utf-8-sig").splitlines()))
    header = [h.strip().lower().replace(" ", "_").replace("-", "_") for h in rows[0]]
    return header, [(line, row, next(ids)) for line, row in enumerate(rows[1:], 2)
                    if any(cell.strip() for cell in row)]


def _cell(row, column):
    return row[column].strip().lower() if column < len(row) else ""


def identities(path) -> dict:
    """{identity (lower-cased) -> roster student ID} for every row: the ID itself, its email and
    its GitHub username. One identity claimed by two students is an error naming both lines."""
    header, rows = _rows(path)
    columns = [next(header.index(c) for c in ID_COLUMNS if c in header)]
    columns += [header.index(c) for c in EMAIL_COLUMNS + GITHUB_COLUMNS if c in header]
    out: dict[str, str] = {}
    line_of: dict[str, int] = {}
    for line, row, sid in rows:
        for value in filter(None, (_cell(row, c) for c in columns)):
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


def github_usernames(path) -> dict:
    """{GitHub username (lower-cased) -> roster student ID}; VariantError if the roster has no
    GitHub column (a Classroom course needs one to know whose clone is whose)."""
    header, rows = _rows(path)
    column = next((header.index(c) for c in GITHUB_COLUMNS if c in header), None)
    if column is None:
        raise VariantError(f"{path}:1: no column of GitHub usernames; add one named github_username "
                           "(GitHub Classroom's roster export has it) to tell whose clone is whose")
    identities(path)  # a username of two students is refused here too
    return {_cell(row, column): sid for _, row, sid in rows if _cell(row, column)}


def clone_owner(repository_name: str, usernames) -> Optional[str]:
    """The GitHub username that owns a Classroom clone, from the repository's name
    (`<assignment>-<username>`): the longest of `usernames` the name ends with after a dash.
    The assignment's name may itself hold dashes, so the roster, not a split, decides."""
    name = repository_name.strip().lower()
    if name.endswith(".git"):
        name = name[:-4]
    fits = [u for u in usernames if u and name.endswith("-" + u.lower())]
    return max(fits, key=len) if fits else None
