"""Assignments: which sections a course hands out together, and what they are worth.

The course file (course.toml at the repository root, git-ignored because it also holds the
course secret) names each assignment:

    secret = "something long"

    [assignments.conv1d]
    title = "1D convolution"
    sections = ["7.2", "7.4"]
    release = "formative"          # students check answers locally; "summative": only the grader
    due = "2026-12-04 23:59"       # shown to students; optional
    points = { "7.4" = { tests = 20, answers = 5 } }    # optional: replaces the manifest's
    visibility = { "7.4" = "after_due_date" }             # optional: replaces the manifest's

A student release (`./workbook release`) carries its assignment, without the secret, in
assignment.toml at its root, in the same [assignments.NAME] form.

Everything that scores (grade, the exports, the autograder, grade-class) scores out of the
assignment's sections and points. With no assignment, the whole chapter is the assignment,
with the manifest's points: self-study and the workbook's own tests work as before.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from .chapter_data import VISIBILITIES
from .tomlcompat import TOMLDecodeError, load_toml
from . import due_dates
from .table_keys import unknown_keys

COURSE_FILE = "course.toml"
# What a student release carries instead: its one assignment, without the secret.
RELEASE_FILE = "assignment.toml"
MODES = ("formative", "summative")
KEYS = {"title", "sections", "release", "due", "points", "visibility", "late", "extensions"}
NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")


class AssignmentError(Exception):
    """A course file or assignment that cannot be used; str() says where and why."""


@dataclass
class Assignment:
    name: str
    title: str
    sections: list                # Section objects, in the order the assignment lists them
    release: str = "formative"
    due: Optional[str] = None
    whole_chapter: bool = False   # no course file: every section with the manifest's points
    # The due date as grading uses it (due_dates.py), or why it cannot: a due date written
    # without a time zone is still shown to students, but grade-class refuses to grade by it.
    deadline: Optional[object] = None
    deadline_problem: Optional[str] = None

    @property
    def ids(self) -> list:
        return [s.id for s in self.sections]

    def section(self, section_id):
        for s in self.sections:
            if s.id == section_id:
                return s
        raise KeyError(f"section {section_id} is not part of assignment {self.name}")

    def total(self) -> float:
        return sum(section_points(s) for s in self.sections)


def section_points(section) -> float:
    """What one section is worth in all: its tests and answers points."""
    return float(sum(float(v or 0) for v in (section.points or {}).values()))


def whole_chapter(chapter) -> Assignment:
    return Assignment("chapter", "the whole chapter", list(chapter.sections), whole_chapter=True)


def course_file(root, path=None) -> Optional[Path]:
    """The course file to read: `path` when given, else course.toml at the root (the
    instructor's), else assignment.toml (a student release's), whichever exists first."""
    if path is not None:
        return Path(path)
    for name in (COURSE_FILE, RELEASE_FILE):
        candidate = Path(root) / name
        if candidate.is_file():
            return candidate
    return None


def names(root, path=None) -> list:
    found = course_file(root, path)
    return sorted(_read(found).get("assignments", {})) if found else []


def load(chapter, root, name=None, path=None) -> Assignment:
    """The assignment `name` of the course file (the only one when `name` is None), or the whole
    chapter when there is no course file or it names no assignment and none was asked for."""
    found = course_file(root, path)
    data = _read(found) if found else {}
    table = data.get("assignments", {})
    where = str(found) if found else COURSE_FILE
    if not isinstance(table, dict):
        raise AssignmentError(f"{where}: 'assignments' should be a table of tables ([assignments.NAME])")
    if name is None:
        if not table:
            return whole_chapter(chapter)
        if len(table) > 1:
            raise AssignmentError(f"{where} names {len(table)} assignments ({', '.join(sorted(table))}): "
                                  "choose one with --assignment NAME")
        name = next(iter(table))
    if name not in table:
        known = ", ".join(sorted(table)) or "none"
        raise AssignmentError(f"{where}: no assignment named {name!r} (it names: {known})")
    assignment = parse(chapter, name, table[name], f"{where}: [assignments.{name}]")
    _deadline(assignment, table[name], data.get("timezone"), f"{where}: [assignments.{name}]")
    return assignment


def _deadline(assignment, raw, zone, where):
    """Sets the assignment's deadline from its table; a late policy or extensions that cannot be
    used stop here, a due date without a time zone only when grading by it (grade-class)."""
    try:
        assignment.deadline = due_dates.parse(raw, zone, where)
    except due_dates.DueDateError as e:
        if "late" in raw or "extensions" in raw or zone is not None:
            raise AssignmentError(str(e)) from None
        assignment.deadline_problem = str(e)


def parse(chapter, name, raw, where) -> Assignment:
    if not NAME.match(name):
        raise AssignmentError(f"{where}: an assignment name is letters, digits, - and _ (a letter first)")
    if not isinstance(raw, dict):
        raise AssignmentError(f"{where} should be a table")
    stray = unknown_keys(raw, KEYS)
    if stray:
        raise AssignmentError(f"{where}: {stray}")
    ids = raw.get("sections")
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
        raise AssignmentError(f'{where}: sections should be a list of section ids, e.g. ["7.2", "7.4"]')
    if len(set(ids)) != len(ids):
        raise AssignmentError(f"{where}: a section is listed twice in sections")
    known = {s.id: s for s in chapter.sections}
    missing = [i for i in ids if i not in known]
    if missing:
        raise AssignmentError(f"{where}: no section {', '.join(missing)} in chapters/manifest.toml "
                              f"(sections: {', '.join(known)})")
    release = raw.get("release", "formative")
    if release not in MODES:
        raise AssignmentError(f"{where}: release should be one of {', '.join(MODES)}")
    due = raw.get("due")
    if due is not None and not isinstance(due, str):
        due = str(due)  # a TOML date or datetime: shown as written
    points = _per_section(raw.get("points", {}), ids, where, "points")
    visibility = _per_section(raw.get("visibility", {}), ids, where, "visibility")
    sections = []
    for i in ids:
        s = known[i]
        changes = {}
        if i in points:
            changes["points"] = _points(points[i], s, where)
        if i in visibility:
            if visibility[i] not in VISIBILITIES:
                raise AssignmentError(f"{where}: visibility of {i} should be one of {', '.join(VISIBILITIES)}")
            changes["visibility"] = visibility[i]
        sections.append(dataclasses.replace(s, **changes) if changes else s)
    title = raw.get("title", name)
    if not isinstance(title, str):
        raise AssignmentError(f"{where}: title should be a string")
    return Assignment(name, title, sections, release, due)


def _per_section(table, ids, where, key):
    if not isinstance(table, dict):
        raise AssignmentError(f'{where}: {key} should be a table keyed by section id, e.g. {{ "7.2" = ... }}')
    stray = [i for i in table if i not in ids]
    if stray:
        raise AssignmentError(f"{where}: {key} names {', '.join(stray)}, which is not in the assignment's sections")
    return table


def _points(value, section, where):
    if (not isinstance(value, dict) or not value or set(value) - {"tests", "answers"}
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value.values())):
        raise AssignmentError(f"{where}: points of {section.id} should be a table like {{ tests = 10, answers = 5 }} "
                              "of whole numbers >= 0")
    if not section.kernels and value.get("tests"):
        raise AssignmentError(f"{where}: section {section.id} has questions only: no tests to give points to")
    return dict(value)


def _read(path) -> dict:
    try:
        return load_toml(path)
    except FileNotFoundError:
        raise AssignmentError(f"{path}: no such file") from None
    except TOMLDecodeError as e:
        raise AssignmentError(f"{path}: {e}") from None


def _toml_string(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_toml(assignment, secret=None) -> str:
    """The course file of one assignment (its points and visibility written out per section), with
    the secret when given: what the Gradescope zip carries, and (without the secret) a release."""
    lines = [f"secret = {_toml_string(secret)}", ""] if secret is not None else []
    lines += [f"[assignments.{assignment.name}]", f"title = {_toml_string(assignment.title)}",
              "sections = [" + ", ".join(_toml_string(i) for i in assignment.ids) + "]",
              f"release = {_toml_string(assignment.release)}"]
    if assignment.due:
        lines.append(f"due = {_toml_string(assignment.due)}")
    points = ", ".join(f"{_toml_string(s.id)} = {{ " + ", ".join(f"{k} = {v}" for k, v in s.points.items()) + " }"
                       for s in assignment.sections if s.points)
    lines.append(f"points = {{ {points} }}")
    lines.append("visibility = { " + ", ".join(f"{_toml_string(s.id)} = {_toml_string(s.visibility)}"
                                               for s in assignment.sections) + " }")
    return "\n".join(lines) + "\n"
