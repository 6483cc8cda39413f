"""The gradebook in the import formats of Canvas and Moodle (issue 34, item 8), with each
student's name and email from the course roster.

Canvas ("How do I import grades in the Gradebook?",
https://community.canvaslms.com/t5/Instructor-Guide/How-do-I-import-grades-in-the-Gradebook/ta-p/807):
a CSV whose first columns are Student, ID, SIS User ID, SIS Login ID and Section, then one column
per assignment ("Title" creates an assignment of that name). Canvas matches a row to a student by
ID, SIS User ID or SIS Login ID: ID is Canvas's own user ID (the roster's canvas_id column, when
it has one), SIS User ID is the student ID the class is graded under, SIS Login ID the roster's
login_id, else the email.

Moodle ("Grade import", https://docs.moodle.org/en/Grade_import, CSV file): any columns, one row
per student; at import the teacher maps an identifier column ("Map from" Email address, "Map to"
email address) and the grade column to a grade item, and may map a feedback column. We write
Name, Email address, ID number, the assignment's grade and its feedback (the status, and each
adjustment's comment).

Every cell goes through core/spreadsheet.py: names and emails come from outside.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from ..core import spreadsheet, variants

CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_COLUMNS = ("Name", "Email address", "ID number")


class RosterError(Exception):
    """A roster that cannot be used for an export; str() names the line."""


@dataclass
class Person:
    student: str
    name: str = ""
    email: str = ""
    canvas_id: str = ""
    login_id: str = ""
    section: str = ""


def _key(header):
    return header.strip().lower().replace(" ", "_").replace("-", "_")


def read_roster(path) -> dict:
    """{student id: Person} of a CSV roster: the ID column variants.read_roster reads (student_id,
    id, sis_id or email), a name (name, or first_name and last_name), email, and where present
    canvas_id, login_id and section. A student is also found by their email (Gradescope names an
    account without an ID by its email)."""
    shown = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise RosterError(f"{shown}: no such file") from None
    except UnicodeDecodeError:
        raise RosterError(f"{shown}: the roster is not UTF-8 text (save it as CSV UTF-8)") from None
    rows = csv.reader(text.splitlines())
    header = [_key(h) for h in next(rows, [])]
    id_column = next((c for c in variants.ID_COLUMNS if c in header), None)
    if id_column is None:
        raise RosterError(f"{shown}:1: no column of student IDs; name one of them {', '.join(variants.ID_COLUMNS)}")
    people = {}
    for line, row in enumerate(rows, 2):
        if not any(cell.strip() for cell in row):
            continue
        cells = {h: (row[i].strip() if i < len(row) else "") for i, h in enumerate(header)}
        student = cells.get(id_column, "")
        if not student:
            raise RosterError(f"{shown}:{line}: no {id_column} on this row")
        if student in people:
            raise RosterError(f"{shown}:{line}: {student!r} is listed twice")
        name = cells.get("name") or " ".join(n for n in (cells.get("first_name", ""), cells.get("last_name", "")) if n)
        people[student] = Person(student, " ".join(name.split()), cells.get("email", ""), cells.get("canvas_id", ""),
                                 cells.get("login_id", ""), cells.get("section", ""))
    return people


def person(roster, student) -> Person:
    """The roster's entry of a gradebook student (their ID, else their email); a bare Person
    when the roster does not list them (the export still carries their grade)."""
    if student in roster:
        return roster[student]
    for p in roster.values():
        if p.email and p.email.lower() == student.lower():
            return p
    return Person(student)


def canvas(path, title, worth, grades, roster) -> None:
    """grades: [(student, total text, feedback)] -> Canvas's gradebook import CSV at `path`."""
    with open(path, "w", newline="") as f:
        w = spreadsheet.writer(f)
        w.writerow([*CANVAS_COLUMNS, title])
        # Canvas's own exports carry this row; on import it sets a new assignment's points.
        w.writerow(["Points Possible", "", "", "", "", worth])
        for student, total, _ in grades:
            p = person(roster, student)
            w.writerow([p.name or student, p.canvas_id, p.student, p.login_id or p.email, p.section, total])


def moodle(path, title, grades, roster) -> None:
    """grades: [(student, total text, feedback)] -> a CSV for Moodle's CSV grade import at `path`."""
    with open(path, "w", newline="") as f:
        w = spreadsheet.writer(f)
        w.writerow([*MOODLE_COLUMNS, title, f"Feedback: {title}"])
        for student, total, feedback in grades:
            p = person(roster, student)
            w.writerow([p.name or student, p.email, p.student, total, feedback])


def unlisted(roster, students) -> list:
    """Gradebook students the roster does not name (their rows have no name or email)."""
    listed = {id(p) for p in roster.values()}
    return [s for s in students if id(person(roster, s)) not in listed]
