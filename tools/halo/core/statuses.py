"""The status of one student's section, from a fixed vocabulary an instructor can act on
(issue 34, item 2): the gradebook, the feedback and grade-class's last line all say it in
these words, read from a grade run's results.json and nothing else.

Where several hold, the first in VOCABULARY after "graded" is the section's: a section
nothing was submitted for is "missing" whatever its stubs did, a kernel file refused by the
validator "did not compile" too but says why, and so on down to the answers.
"""
from __future__ import annotations

from .answers import UNREADABLE, VARIANT
from .intake import NOTHING_SUBMITTED
from .message_keys import key_and_line

GRADED = "graded"
MISSING = "missing"
REFUSED = "refused: not allowed in a kernel file"
NOT_COMPILED = "did not compile"
TIMED_OUT = "timed out"
VARIANT_MISMATCH = "variant mismatch"
ANSWERS_UNREADABLE = "answers unreadable"
# Set by grade-class on a Classroom clone whose latest commit was graded after its due date under
# a late policy "penalty" (core/due_dates.py, course/adjusted_scores.py).
LATE = "late"

VOCABULARY = (GRADED, MISSING, REFUSED, NOT_COMPILED, TIMED_OUT, VARIANT_MISMATCH, ANSWERS_UNREADABLE, LATE)

# core/validate.py's findings read "<construct> is not allowed in a kernel file: line <N> — ..."
REFUSED_WORDS = "is not allowed in a kernel file"
# answers.Verdict.cause, as answers_phase records it on an answers test
_CAUSES = ((VARIANT, VARIANT_MISMATCH), (UNREADABLE, ANSWERS_UNREADABLE))


def _missing(res, section):
    """Nothing was submitted for the section: the intake's note says so (results without a
    note, as of a student's own tree, had everything there)."""
    return any(line.strip() == f"{section.folder}: {NOTHING_SUBMITTED}" for line in res.get("submission") or [])


def section_status(res, section) -> str:
    """The one status of `section` (of the chapter or an assignment) in a grade run's results."""
    if _missing(res, section):
        return MISSING
    sec = res.get("sections", {}).get(section.id) or {}
    if sec.get("build") == "failed":
        return REFUSED if REFUSED_WORDS in (sec.get("build_output") or "") else NOT_COMPILED
    mine = [t for t in res.get("tests", []) if t.get("section") == section.id]
    if any(t.get("status") == "failed" and t.get("kind") != "answers"
           and key_and_line(t.get("message") or "")[0] == "timeout" for t in mine):
        return TIMED_OUT
    causes = {t.get("cause") for t in mine if t.get("kind") == "answers"}
    for cause, status in _CAUSES:
        if cause in causes:
            return status
    return GRADED


def statuses(res, sections) -> dict:
    """{section id: status} of `sections` in order."""
    return {s.id: section_status(res, s) for s in sections}


def cell(by_section: dict) -> str:
    """The gradebook's status cell: "graded" when every section is, else each other section
    with its status ("7.2 did not compile; 7.4 missing")."""
    others = [f"{sid} {status}" for sid, status in by_section.items() if status != GRADED]
    return "; ".join(others) if others else GRADED


def need_a_look(rows) -> str:
    """grade-class's last line from [(student, status cell)]: who needs a look, and why."""
    flagged = [(student, state) for student, state in rows if state != GRADED]
    if not flagged:
        return f"No student needs a look: all {len(rows)} graded."
    who = "1 student needs" if len(flagged) == 1 else f"{len(flagged)} students need"
    return f"{who} a look: " + ", ".join(f"{student} ({state})" for student, state in flagged)
