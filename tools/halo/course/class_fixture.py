"""A generated class of 20 submissions for 7.2 and 7.4, each with the verdict grade-class must
give it: the reference (three students, one with its comments and layout changed), the stubs
(untouched, and an empty submission), known-wrong kernels of grader/wrong, a compile error, an
endless loop, a crash and a hostile submission of grader/redteam. `./workbook check` grades it
and checks every row of the gradebook (verify()); `./workbook bench --class` times it.

Every student answers with the answer key of their own variant (course secret SECRET), so a
section's answers points are full unless the expectation says otherwise; two of the reference
students spoil one answers file each, so that the class shows every status of core/statuses.py
that Halo can set (all but "late"), and verify() checks each student's status cell.
"""
from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

from ..core import statuses
from ..core import wrong_kernels
from . import variant_answers
from .class_harness import write_committed_stubs

SECRET = "halo class fixture secret"
SECTIONS = ("7.2", "7.4")
COURSE_TOML = f'''secret = "{SECRET}"

[assignments.conv1d]
title = "1D convolution (generated class)"
sections = ["7.2", "7.4"]
'''
# (student, section, wrong kernel name): a right other section, this one wrong.
WRONG = [
    ("wrong-ghost-gt", "7.2", "ghost test uses > instead of >="),
    ("wrong-no-guard", "7.2", "no i < Width guard"),
    ("wrong-ghosts-loaded", "7.2", "ghost cells not skipped"),
    ("wrong-start-index", "7.2", "start index i - Mask_Width instead of i - n"),
    ("wrong-no-store-72", "7.2", "result never stored"),
    ("wrong-order", "7.2", "reads the neighbour's output from global memory"),
    ("wrong-no-barrier", "7.4", "no barrier"),
    ("wrong-left-halo", "7.4", "left halo loaded by the wrong threads"),
    ("wrong-tile-size", "7.4", "TILE_SIZE instead of blockDim.x in the indices"),
    ("wrong-global-compute", "7.4", "compute loop reads N from global memory"),
    ("wrong-sum-in-p", "7.4", "sum accumulated in P"),
]
ENDLESS = ("endless-loop", "7.2", "loop counter never advances")
CRASH = ("crash", "7.2", "division by the mask radius")
HOSTILE = ("hostile-exit", "exit-destructor-7.4")   # a destructor that forges exit status 0


def write(root, chapter, out):
    """Writes the submissions into out/submissions/, the course file into out/course.toml;
    returns {student: expectation} (see verify)."""
    root, out = Path(root), Path(out)
    subs = out / "submissions"
    shutil.rmtree(subs, ignore_errors=True)
    subs.mkdir(parents=True)
    (out / "course.toml").write_text(COURSE_TOML)
    sections = {sid: chapter.section(sid) for sid in SECTIONS}
    expected = {}

    def reference(student, skip=()):
        for sid, s in sections.items():
            if sid not in skip:
                shutil.copytree(root / "solutions" / s.folder, subs / student / s.folder,
                                ignore=shutil.ignore_patterns("answers.toml"), dirs_exist_ok=True)

    for student in ("ref-ada", "ref-grace", "ref-alan"):
        reference(student)
        expected[student] = {sid: "full" for sid in SECTIONS}
    _restyle(subs / "ref-alan" / sections["7.4"].folder / sections["7.4"].kernels[0])
    for student, sid, name in WRONG + [ENDLESS, CRASH]:
        reference(student, skip=(sid,))
        s = sections[sid]
        w = next(w for w in wrong_kernels.load(root, s) if w.name == name)
        wrong_kernels.write_tree(root, s, w, subs / student / s.folder)
        (subs / student / s.folder / "answers.toml").unlink(missing_ok=True)  # the key is laid in below
        hangs = student == ENDLESS[0]
        expected[student] = {other: "full" for other in SECTIONS if other != sid}
        # The endless loop runs at the grader's own time limit, not the 0.5 s its check-suite entry sets.
        expected[student].update({sid: "timeout" if hangs else "wrong",
                                  "expect": "launch did not finish" if hangs else w.expect})
    reference("compile-error")
    kernel = subs / "compile-error" / sections["7.4"].folder / sections["7.4"].kernels[0]
    kernel.write_text(kernel.read_text() + "\nthis line is not C++;\n")
    expected["compile-error"] = {"7.2": "full", "7.4": "not-compiled"}
    student, attack = HOSTILE
    shutil.copytree(root / "grader" / "redteam" / attack, subs / student)
    expected[student] = {sid: "zero" for sid in SECTIONS}
    (subs / "stub-empty").mkdir()
    expected["stub-empty"] = {sid: "zero" for sid in SECTIONS}
    stubs = write_committed_stubs(root, out / "stubs")  # never the working tree's exercises/
    for sid, s in sections.items():
        shutil.copytree(stubs / s.folder, subs / "stub-untouched" / s.folder)
    expected["stub-untouched"] = {sid: "zero" for sid in SECTIONS}
    # Each student who answers gets the key of their own variant as their answers files.
    answering = [st for st, e in expected.items() if "zero" not in e.values()]
    keys = out / "keys"
    shutil.rmtree(keys, ignore_errors=True)
    variant_answers.write_variant_answers(chapter, answering, keys, SECRET, with_key=True)
    for st in answering:
        for sid, s in sections.items():
            shutil.copyfile(keys / st / s.folder / "answers.toml", subs / st / s.folder / "answers.toml")
    _answers_statuses(subs, keys, sections, expected)
    for student, exp in expected.items():
        exp.setdefault("status", STATUSES.get(student, statuses.GRADED))
    assert len(expected) == 20, len(expected)
    return expected


# The gradebook's status cell of each student who is not simply "graded" (core/statuses.py); the
# answers statuses are made by _answers_statuses from students who would otherwise be graded.
STATUSES = {
    "compile-error": f"7.4 {statuses.NOT_COMPILED}",
    ENDLESS[0]: f"7.2 {statuses.TIMED_OUT}",
    HOSTILE[0]: f"7.2 {statuses.MISSING}; 7.4 {statuses.REFUSED}",  # only a 7.4 file, refused by the validator
    "stub-empty": f"7.2 {statuses.MISSING}; 7.4 {statuses.MISSING}",
}


def _answers_statuses(subs, keys, sections, expected):
    """ref-alan hands in ref-ada's 7.2 answers (variant mismatch); ref-grace types an arithmetic
    answer in 7.4 (answers unreadable: that answer only is lost). Their kernels stay the reference."""
    s72, s74 = sections["7.2"], sections["7.4"]
    shutil.copyfile(keys / "ref-ada" / s72.folder / "answers.toml", subs / "ref-alan" / s72.folder / "answers.toml")
    expected["ref-alan"].update({"7.2": "answers-short", "status": f"7.2 {statuses.VARIANT_MISMATCH}"})
    grace = subs / "ref-grace" / s74.folder / "answers.toml"
    lines = grace.read_text().splitlines()
    at = next(k for k, line in enumerate(lines) if re.match(r"^ratio_\w+ = \d", line))
    lines[at] = re.sub(r"= (.*)$", r"= \1 * 100 / 100", lines[at])
    grace.write_text("\n".join(lines) + "\n")
    expected["ref-grace"].update({"7.4": "answers-short", "status": f"7.4 {statuses.ANSWERS_UNREADABLE}"})


def _restyle(path):
    """The same kernel with other comments and layout: the class report must still pair it."""
    text = re.sub(r"//[^\n]*", "", path.read_text())
    path.write_text("/* my own tiled kernel */\n" + re.sub(r"[ \t]+", "  ", text))


def _reference_set_aside(report):
    """The three reference submissions (ref-alan's restyled) are named as the reference solution,
    and never grouped as copies of one another."""
    problems = []
    if not re.search(r"^Kernels the same as the reference solution: .*ref-ada, ref-alan, ref-grace", report, re.M):
        problems.append("the class report does not name the three reference submissions as the reference solution")
    if re.search(r"^- .*\bref-ada\b", report, re.M):
        problems.append("the class report groups the reference submissions as copies")
    return problems


def verify(expected, out_dir, sections):
    """Problems (strings) of the gradebook and results in `out_dir` against `expected`."""
    problems = []
    rows = {r["student"]: r for r in csv.DictReader((Path(out_dir) / "gradebook.csv").read_text().splitlines())}
    worth = {s.id: (float(s.points.get("tests", 0)), float(s.points.get("answers", 0))) for s in sections}
    for student, exp in sorted(expected.items()):
        row = rows.get(student)
        if row is None:
            problems.append(f"{student}: no row in the gradebook")
            continue
        res = json.loads((Path(out_dir) / "work" / "students" / student / "results.json").read_text())
        for s in sections:
            want = exp[s.id]
            got = float(next(v for k, v in row.items() if k.startswith(f"{s.id} (")))
            tests_w, answers_w = worth[s.id]
            sec = res["sections"][s.id]
            failed = "\n".join(t["message"] for t in res["tests"] if t["section"] == s.id and t["status"] == "failed")
            ok = {"full": got == tests_w + answers_w,
                  "answers-short": tests_w <= got < tests_w + answers_w,
                  "zero": got == 0,
                  "not-compiled": sec["build"] == "failed" and got == answers_w,
                  "timeout": got == answers_w and "launch did not finish" in failed,
                  "wrong": answers_w <= got < tests_w + answers_w}[want]
            if want in ("wrong", "timeout") and not re.search(exp["expect"], failed):
                ok = False
                problems.append(f"{student} {s.id}: no failure says /{exp['expect'][:60]}.../")
            if not ok:
                problems.append(f"{student} {s.id}: expected {want}, got {got:g} points "
                                f"(build {sec['build']}, tests {sec['tests']['passed']}/{sec['tests']['total']})")
        if row.get("status") != exp["status"]:
            problems.append(f"{student}: status {row.get('status')!r}, expected {exp['status']!r}")
    if not (Path(out_dir) / "class-report.md").is_file():
        problems.append("no class-report.md")
    else:
        problems += _reference_set_aside((Path(out_dir) / "class-report.md").read_text())
    for student in expected:
        for ext in ("md", "html"):
            if not (Path(out_dir) / "feedback" / f"{student}.{ext}").is_file():
                problems.append(f"{student}: no feedback/{student}.{ext}")
    return problems
