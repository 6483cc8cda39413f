"""What a student's gradebook row adds beyond their sections' points (issue 34, item 8): the
late penalty of the assignment's late policy (due_dates.py) and the instructor's manual
adjustments (adjustments.py), each its own column, so that the row still adds up: sections +
adjustments - late penalty = total, all in hundredths (the rule of cents.py).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional

from ..core import statuses
from ..core import cents
from ..core.due_dates import Deadline

DUE_FILE = "due.json"   # in a student's folder: which commit was graded, and how late it was
PENALTY = "late penalty"
ADJUSTMENTS = "adjustments"
COMMENTS = "adjustment comments"


def hundredths(points) -> Fraction:
    """Points (float, text or Fraction) as an exact number of hundredths, rounded halves up."""
    exact = points if isinstance(points, Fraction) else cents.exact(points)
    return Fraction(cents.half_up(exact * 100), 100)


@dataclass
class Extras:
    days_late: int = 0
    penalty: Fraction = Fraction(0)       # points off, >= 0, in hundredths
    adjustments: list = field(default_factory=list)

    @property
    def adjusted(self) -> Fraction:
        return sum((a.points for a in self.adjustments), Fraction(0))

    @property
    def points(self) -> Fraction:
        return self.adjusted - self.penalty

    def feedback_lines(self, due_note=""):
        lines = [due_note] if due_note else []
        if self.days_late:  # said even when nothing was left to take off
            lines.append(f"late by {self.days_late} day(s): {float(self.penalty):g} points off")
        lines += [f"{'the assignment' if not a.section else a.section}: {float(a.points):+g} points: {a.comment}"
                  for a in self.adjustments]
        return lines


@dataclass
class Book:
    """The class's late policy and adjustments, as the gradebook and the feedback use them."""
    deadline: Optional[Deadline] = None
    adjustments: Optional[list] = None    # None: no adjustments file was given
    worth: Fraction = Fraction(0)         # the assignment's points (a percentage penalty is of these)

    def columns(self):
        out = [PENALTY] if self.deadline and self.deadline.policy == "penalty" else []
        return out + ([ADJUSTMENTS, COMMENTS] if self.adjustments is not None else [])

    def extras(self, home, student, earned) -> Extras:
        """The Extras of `student` whose sections earned `earned` points; `home` is their folder."""
        out = Extras(adjustments=[a for a in self.adjustments or [] if a.student == student])
        due = read_due(home)
        if self.deadline and self.deadline.policy == "penalty" and due.get("days_late"):
            out.days_late = due["days_late"]
            off = self.deadline.per_day.points(self.worth) * out.days_late
            if self.deadline.cap is not None:
                off = min(off, self.deadline.cap.points(self.worth))
            out.penalty = min(hundredths(off), hundredths(earned))  # a penalty never takes more than was earned
        return out

    def cells(self, extras: Extras):
        out = [f"{float(-extras.penalty) + 0.0:g}"] if PENALTY in self.columns() else []  # + 0.0: never "-0"
        if self.adjustments is not None:
            out += [f"{float(extras.adjusted):g}" if extras.adjustments else "",
                    " | ".join(f"{a.section or 'all'} {float(a.points):+g}: {a.comment}" for a in extras.adjustments)]
        return out


def read_due(home) -> dict:
    f = home / DUE_FILE
    return json.loads(f.read_text()) if f.is_file() else {}


def late_status(cell, extras: Extras) -> str:
    """The status cell with "late" added when the graded work was late under a penalty policy."""
    if not extras.days_late:
        return cell
    return statuses.LATE if cell == statuses.GRADED else f"{cell}; {statuses.LATE}"


def total(scores, extras: Optional[Extras] = None) -> Fraction:
    """A row's total: its sections' points ({section: (got, worth)}) plus its extras, exactly."""
    return sum((hundredths(got) for got, _ in scores.values()), Fraction(0)) + (extras.points if extras else 0)


def book(assignment, adjustments_path, students):
    """(Book, [problem lines]) of a class: the assignment's deadline and the adjustments file."""
    from . import adjustments
    found, problems = (None, [])
    if adjustments_path:
        found, problems = adjustments.read(adjustments_path, students, assignment.ids)
    return Book(assignment.deadline, found, cents.exact(assignment.total())), problems
