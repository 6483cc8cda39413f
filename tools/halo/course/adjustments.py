"""Manual adjustments from a CSV an instructor keeps (issue 34, item 8): a regrade, a bonus, an
academic-integrity deduction, each with the comment the student reads.

    student,section,points,comment
    erin,7.4,+2,"regrade: the test's tolerance was too tight for her (correct) order of sums"
    frank,,-1,"late answers sheet"

`section` is a section of the assignment or empty (the whole assignment). Points are exact
(cents.exact), positive or negative. A malformed row is named by its line and costs only that
row; a student or section the class does not have is named, never applied silently.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

COLUMNS = ("student", "section", "points", "comment")


@dataclass
class Adjustment:
    student: str
    section: str      # "" for the whole assignment
    points: Fraction
    comment: str
    line: int


def read(path, students, sections):
    """([Adjustment], [problem]) of the CSV at `path`: every good row, and one line per row left
    out ("adjustments.csv:4: ..."). `students` and `sections` are the class's and the assignment's."""
    shown = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")  # spreadsheets often write a BOM
    except FileNotFoundError:
        return [], [f"{shown}: no such file"]
    except UnicodeDecodeError:
        return [], [f"{shown}: not UTF-8 text (save it as CSV UTF-8)"]
    rows = csv.reader(text.splitlines())
    header = [h.strip().lower() for h in next(rows, [])]
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        return [], [f"{shown}:1: the header needs the columns {', '.join(COLUMNS)} "
                    f"(missing: {', '.join(missing)})"]
    at = {c: header.index(c) for c in COLUMNS}
    known_students, known_sections = set(students), set(sections)
    found, problems = [], []
    for line, row in enumerate(rows, 2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) < len(header):
            problems.append(f"{shown}:{line}: {len(row)} cells, the header has {len(header)}; row left out")
            continue
        student, section, points, comment = (row[at[c]].strip() for c in COLUMNS)
        if student not in known_students:
            problems.append(f"{shown}:{line}: no student {student!r} in this class; row left out")
            continue
        if section and section not in known_sections:
            problems.append(f"{shown}:{line}: section {section!r} is not in the assignment "
                            f"({', '.join(sections)}); row left out")
            continue
        try:
            value = Fraction(points)
        except (ValueError, ZeroDivisionError):
            problems.append(f"{shown}:{line}: points {points!r} is not a number like 2, -1.5 or +0.5; row left out")
            continue
        if value * 100 != int(value * 100):
            problems.append(f"{shown}:{line}: points {points!r} has more than two decimals; row left out")
            continue
        if not comment:
            problems.append(f"{shown}:{line}: no comment: the student is owed a reason; row left out")
            continue
        found.append(Adjustment(student, section, value, comment, line))
    return found, problems

