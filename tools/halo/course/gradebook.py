"""Points of a graded submission and the class gradebook.

Points come from core/scoring.py (the tests' scores of core/points.py summed per section of the
assignment), as the Gradescope export's do: the gradebook, the feedback files and an upload to
Gradescope then give every student the same number."""
from __future__ import annotations

from pathlib import Path

from . import adjusted_scores
from ..core import spreadsheet, statuses
from ..core.assignment import section_points
# Re-exported: the course's modules score through the gradebook; the scores are core's (scoring.py).
from ..core.scoring import scores, zero_scores  # noqa: F401


def status(res, sections, error=None):
    """The status cell of one student: "graded", or each section that needs a look with its
    status from the fixed vocabulary (core/statuses.py); "error: ..." when the grader failed."""
    if error:
        return f"error: {error}"
    return statuses.cell(statuses.statuses(res or {}, sections))


def write(path, assignment, rows, book=None, extras=None):
    """rows: [(student, {section: (got, worth)} or None, status)] -> a CSV with one column per section;
    with `book` (adjusted_scores.Book) its columns too, from `extras` ({student: Extras})."""
    extra_columns = book.columns() if book else []
    extras = extras or {}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".partial")
    with open(tmp, "w", newline="") as f:
        w = spreadsheet.writer(f)  # student names and statuses come from outside: no formulas
        w.writerow(["student"] + [f"{s.id} ({section_points(s):g})" for s in assignment.sections]
                   + extra_columns + [f"total ({assignment.total():g})", "status"])
        for student, sc, state in rows:
            if sc is None:  # not graded (a shard that did not finish): empty cells, never 0 points
                w.writerow([student] + [""] * (len(assignment.sections) + len(extra_columns) + 1) + [state])
                continue
            mine = extras.get(student)
            cells = book.cells(mine or adjusted_scores.Extras()) if book else []
            w.writerow([student] + [f"{sc[s.id][0]:g}" for s in assignment.sections] + cells
                       + [f"{float(adjusted_scores.total(sc, mine)):g}", state])
    tmp.replace(path)
