"""Points of a graded submission and the class gradebook.

Points come from the Gradescope conversion (export_gradescope.to_gradescope) applied to the
assignment's sections: the gradebook, the feedback files and an upload to Gradescope then give
every student the same number, computed once."""
from __future__ import annotations

from pathlib import Path

from . import adjusted_scores, export_gradescope
from ..core import spreadsheet, statuses
from .assignment import section_points


def scores(res, chapter, assignment):
    """{section id: (points got, points worth)} of one student's results."""
    doc = export_gradescope.to_gradescope(res, chapter, sections=assignment.sections)
    out = {s.id: [0.0, 0.0] for s in assignment.sections}
    for t in doc["tests"]:
        sid = (t.get("tags") or [None])[0]
        if sid in out:
            out[sid][0] += t["score"]
            out[sid][1] += t["max_score"]
    return {sid: (round(got, 2), round(worth, 2)) for sid, (got, worth) in out.items()}


def zero_scores(assignment):
    return {s.id: (0.0, section_points(s)) for s in assignment.sections}


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
