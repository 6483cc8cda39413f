"""The Classroom part of the term check (issue 34, item 8): three clones of the generated class
with dated commits, graded by course.toml's due date, late policy and extension, with an
adjustment and the Canvas and Moodle imports. term_check.py lays it out before the page's
commands run and checks what `grade-class ../conv1d-classroom ...` (docs/instructor.md, step 5)
wrote after.

- ref-ada: the reference on time, then a commit two days late: graded at that commit, `late`,
  20% off (per_day 10%);
- ref-grace: one commit two days after the due date, within her 3-day extension: not late;
- stub-empty: nothing but a README before the due date, and an adjustment of +1.5 with its comment.
"""
from __future__ import annotations

import csv
import os
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

from ..core import spreadsheet, statuses

CLASS = "conv1d-classroom"
OUT = Path("build") / "class" / "classroom"
DUE = '''timezone = "UTC"
'''
LATE = '''due = "2026-12-04 23:59"
late = { policy = "penalty", per_day = "10%", cap = "30%" }
extensions = { ref-grace = 3 }
'''
ADJUSTMENT = ("stub-empty", "", "1.5", "regrade: the README shows the work was started")
ROSTER = [("ref-ada", "Ada Lovelace", "ada@uni.edu"), ("ref-grace", "Grace Hopper", "grace@uni.edu"),
          ("stub-empty", "Sam Empty", "sam@uni.edu")]


def _commit(clone, when, message):
    env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when, "GIT_AUTHOR_NAME": "Student",
           "GIT_AUTHOR_EMAIL": "student@uni.edu", "GIT_COMMITTER_NAME": "Student",
           "GIT_COMMITTER_EMAIL": "student@uni.edu"}
    for args in (["add", "-A"], ["commit", "-q", "--allow-empty", "-m", message]):
        subprocess.run(["git", "-C", str(clone), *args], check=True, capture_output=True, env=env)


def lay_out(work, submissions, course_toml):
    """The clones (from the generated class in `submissions`), adjustments.csv and roster.csv in
    `work`, and the due date, late policy and extension added to `course_toml`."""
    work = Path(work)
    shutil.rmtree(work / CLASS, ignore_errors=True)
    for student, _, _ in ROSTER:
        clone = work / CLASS / f"conv1d-{student}"
        shutil.copytree(Path(submissions) / student, clone)
        (clone / "README.md").write_text(f"{student}'s conv1d\n")
        subprocess.run(["git", "init", "-q", str(clone)], check=True, capture_output=True)
    ada, grace, empty = (work / CLASS / f"conv1d-{s}" for s, _, _ in ROSTER)
    _commit(ada, "2026-12-04T20:00:00+00:00", "on time")
    (ada / "README.md").write_text("ref-ada's conv1d, tidied after the due date\n")
    _commit(ada, "2026-12-06T10:00:00+00:00", "two days late")
    _commit(grace, "2026-12-06T20:00:00+00:00", "within the extension")
    _commit(empty, "2026-12-03T09:00:00+00:00", "started")
    text = Path(course_toml).read_text()
    head, assignment = text.split("[assignments.conv1d]", 1)
    Path(course_toml).write_text(DUE + head + "[assignments.conv1d]" + assignment.rstrip("\n") + "\n" + LATE)
    with open(work / "adjustments.csv", "w", newline="") as f:
        spreadsheet.writer(f).writerows([("student", "section", "points", "comment"), ADJUSTMENT])
    with open(work / "roster.csv", "w", newline="") as f:
        spreadsheet.writer(f).writerows([("student_id", "name", "email"), *ROSTER])


def _table(path):
    with open(path, newline="") as f:
        return {row["student"] if "student" in row else row["SIS User ID"]: row for row in csv.DictReader(f)}


def check(repo, expected):
    """Problems (strings) of what grade-class wrote into repo/build/class/classroom."""
    out = Path(repo) / OUT
    problems = []
    if not (out / "canvas.csv").is_file() or not (out / "moodle.csv").is_file():
        return [f"{OUT}: no canvas.csv or moodle.csv"]
    book = _table(out / "gradebook.csv")
    total = next(k for k in next(iter(book.values())) if k.startswith("total ("))
    for student, row in book.items():
        parts = [Fraction(row[k]) for k in row if (k[:1].isdigit() or k in ("late penalty", "adjustments")) and row[k]]
        if sum(parts, Fraction(0)) != Fraction(row[total]):
            problems.append(f"{student}: the row does not add up to its total {row[total]}")
    ada, grace, empty = (book.get(s, {}) for s, _, _ in ROSTER)
    want = expected["ref-ada"]["status"]
    if ada.get("status") != (statuses.LATE if want == statuses.GRADED else f"{want}; {statuses.LATE}"):
        problems.append(f"ref-ada: status {ada.get('status')!r}, expected late")
    if not ada.get("late penalty", "0").startswith("-"):
        problems.append(f"ref-ada: late penalty {ada.get('late penalty')!r}, expected points off")
    if grace.get("status") != expected["ref-grace"]["status"] or grace.get("late penalty") != "0":
        problems.append(f"ref-grace: {grace.get('status')!r}, penalty {grace.get('late penalty')!r}: "
                        "her extension should make her on time")
    if empty.get("adjustments") != ADJUSTMENT[2] or ADJUSTMENT[3] not in empty.get("adjustment comments", ""):
        problems.append(f"stub-empty: adjustments {empty.get('adjustments')!r}, expected {ADJUSTMENT[2]} with its comment")
    canvas = _table(out / "canvas.csv")
    for student, name, email in ROSTER:
        row = canvas.get(student, {})
        if row.get("Student") != name or row.get("SIS Login ID") != email:
            problems.append(f"canvas.csv: {student} should be {name} <{email}>, is {row}")
        elif list(row.values())[-1] != book.get(student, {}).get(total):  # the grade: the last column
            problems.append(f"canvas.csv: {student}'s grade is not the gradebook's total")
    return problems
