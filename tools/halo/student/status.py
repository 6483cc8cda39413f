"""`./workbook status`: where the student stands, from every grade run so far.

It reads the student's record (record.py: each section's latest result, whichever run graded
it), or with --build-dir that build's results.json alone, and never builds: a status must come
back instantly. Results older than an edited exercise file are called out as such, since a table
that looks current but is not would mislead more than no table at all.
"""
import json
import os
import sys
from pathlib import Path

from ..core import results as results_mod
from ..core import untouched
from . import record

# Test messages the grader prints for a kernel that is still the generated stub.
STUB_MARKERS = ("has not been written yet", "still a stub")


def results_path(root, build_dir=None):
    return (Path(build_dir).resolve() if build_dir else Path(root) / "build" / "grade") / "results.json"


def _shown(path, root):
    try:
        return os.path.relpath(path, Path.cwd()) if Path(path).is_absolute() else str(path)
    except ValueError:  # another drive (Windows)
        return str(path)


def exercise_files(root, section):
    """The student's files of a section: what grading reads (editor leftovers excluded)."""
    folder = Path(root) / "exercises" / section.folder
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.rglob("*")
                  if p.is_file() and not p.name.startswith(".") and not p.name.endswith(("~", ".swp", ".swo")))


def edited_since(root, section, when):
    """The section's files modified after `when` (a time.time() value), newest first."""
    newer = [(p.stat().st_mtime, p) for p in exercise_files(root, section)]
    return [p for m, p in sorted(newer, reverse=True) if m > when]


def load_results(path):
    """The results dict, or None when there is no results file; ValueError when it is unreadable."""
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise ValueError(f"cannot read {path}: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("sections"), dict) or \
            not isinstance(data.get("tests"), list):
        raise ValueError(f"{path} is not a results file of ./workbook grade")
    return data


def _number(x):
    return str(int(x)) if abs(x - round(x)) < 1e-9 else f"{x:.1f}"


def earned_points(section, entry):
    """Points of the manifest earned by a graded section, pro rata: the tests share of
    tests passed (nothing when the build failed) plus the answers share of answers right."""
    pts = section.points or {}
    earned = 0.0
    tests = entry["tests"]
    if pts.get("tests") and entry.get("build") == "ok" and tests["total"]:
        earned += pts["tests"] * tests["passed"] / tests["total"]
    answers = entry["answers"]
    if pts.get("answers") and answers["asked"]:
        earned += pts["answers"] * answers["right"] / answers["asked"]
    return earned


def _failed(res, sid):
    return [t for t in res["tests"] if t.get("section") == sid and t.get("status") == "failed"]


def _plural(n, word, many=None):
    return f"{n} {word if n == 1 else (many or word + 's')}"


def next_step(root, section, entry, res):
    """What to do next in a graded section that does not pass yet: one sentence."""
    sid = section.id
    folder = f"exercises/{section.folder}"
    if entry.get("build") == "failed":
        return f"{sid}: make it compile first (./workbook grade {sid} shows the compiler's errors)"
    failed = _failed(res, sid)
    code = [t for t in failed if t.get("kind") != "answers"]
    if code:
        first = code[0]
        files = ", ".join(f"{folder}/{k}" for k in section.kernels) or folder
        if untouched.TODO_LEFT_IN in (first.get("message") or ""):  # before the stub's words, which it has too
            return f"{sid}: delete the HALO_TODO line in {files} (your kernel runs, but that line is still there)"
        if any(m in (first.get("message") or "") for m in STUB_MARKERS):
            return f"{sid}: write the kernel in {files} (it is still the stub)"
        what = results_mod.parse_name(first["name"])["what"]
        more = f", then {_plural(len(code) - 1, 'more failing test')}" if len(code) > 1 else ""
        return f"{sid}: fix '{what}' first{more}"
    if entry.get("has_kernels", True) and entry["tests"]["total"] == 0:
        return f"{sid}: its tests did not run; run ./workbook grade {sid}"
    answers = [t for t in failed if t.get("kind") == "answers"]
    unanswered = [t for t in answers if (t.get("message") or "").splitlines()[:1]
                  and t["message"].splitlines()[0].endswith(": not answered")]
    wrong = len(answers) - len(unanswered)
    parts = []
    if unanswered:
        parts.append(f"answer {_plural(len(unanswered), 'question')}")
    if wrong:
        parts.append(f"fix {_plural(wrong, 'answer')} that {'is' if wrong == 1 else 'are'} not right yet")
    if parts:
        return f"{' and '.join(parts)} of {sid} in {folder}/answers.toml"
    missing = entry["answers"]["asked"] - entry["answers"]["right"]
    if missing > 0:
        return f"answer {_plural(missing, 'question')} of {sid} in {folder}/answers.toml"
    return f"{sid}: run ./workbook grade {sid} for the details"


def report(root, chapter, build_dir=None, out=None):
    """Prints the status table and the next step; returns the exit status (0, or 2 when the
    results file cannot be read)."""
    out = out or sys.stdout
    root = Path(root)
    path = results_path(root, build_dir) if build_dir else record.record_path(root)

    def say(line=""):
        print(line, file=out)

    try:
        res = load_results(path) if build_dir else record.load(root)
    except ValueError as e:
        say(f"halo: {e}")
        say("Next: run ./workbook grade (it writes a fresh results file)")
        return 2

    graded = res["sections"] if res else {}
    stale = {}
    for s in chapter.sections:
        if s.id in graded:
            newer = edited_since(root, s, graded[s.id].get("graded_at") or path.stat().st_mtime)
            if newer:
                stale[s.id] = newer

    w = max(len(s.title) for s in chapter.sections)  # whole titles: a cut one reads as a typo
    say(f"{'section':<8} {'title':<{w}}  {'tests':>8}  {'loads vs formulas':<18} {'answers':>8}  "
        f"{'points':>8}  verdict")
    passing, elsewhere = 0, 0
    earned = total = 0.0
    for s in chapter.sections:
        worth = float(sum((s.points or {}).values()))
        total += worth
        entry = graded.get(s.id)
        if entry is None:
            say(f"{s.id:<8} {s.title:<{w}}  {'-':>8}  {'-':<18} {'-':>8}  {'-/' + _number(worth):>8}  not graded")
            continue
        ok = results_mod.section_passed(entry)
        passing += ok
        got = earned_points(s, entry)
        earned += got
        if not entry.get("has_kernels", True):
            tests = "-"
        elif entry.get("build") == "failed":
            tests = "no build"
        else:
            tests = f"{entry['tests']['passed']}/{entry['tests']['total']}"
        answers = results_mod.answers_cell(entry)
        elsewhere = elsewhere or results_mod.answers_elsewhere(entry)
        verdict = "PASS" if ok else "not yet"
        if s.id in stale:
            verdict += " (edited since)"
        say(f"{s.id:<8} {s.title:<{w}}  {tests:>8}  {results_mod.loads_cell(entry):<18} {answers:>8}  "
            f"{_number(got) + '/' + _number(worth):>8}  {verdict}")

    if elsewhere:
        say(results_mod.ELSEWHERE_NOTE)
    say()
    n = len(chapter.sections)
    if res:
        say(f"Overall: {passing} of {_plural(n, 'section')} pass; {_number(earned)} of {_number(total)} points.")
        say("(Points pro rata: a section's test points by tests passed, its answer points by answers right;")
        say(" a course's platform may count them differently.)")
        if build_dir:
            say(f"From the grade run of {res.get('created', '?')} ({_shown(path, root)}).")
            graded_tree = res.get("exercises")
            if graded_tree and Path(graded_tree).resolve() != (root / "exercises").resolve():
                say(f"Note: that run graded {graded_tree}, not this exercises/ folder.")
        else:
            say(f"Each section as its latest grade run left it; the last run: {res.get('created', '?')}.")
    else:
        say(f"Overall: no grade run yet; 0 of {_number(total)} points so far.")

    say("Next: " + _next(root, chapter, res, graded, stale))
    return 0


def _next(root, chapter, res, graded, stale):
    if not res:
        return "run ./workbook grade (there are no results yet; it builds and grades every section)"
    graded_tree = res.get("exercises")
    if graded_tree and Path(graded_tree).resolve() != (root / "exercises").resolve():
        return "run ./workbook grade to grade your own exercises/"
    if stale:
        ids = [s.id for s in chapter.sections if s.id in stale]
        first = stale[ids[0]][0]
        rel = first.relative_to(root) if first.is_relative_to(root) else first
        return (f"run ./workbook grade {' '.join(ids)} (these results are older than your edits, "
                f"e.g. {rel})")
    s = _first_open(chapter, graded)
    if s is None:
        return "nothing: every section passes. Well done!"
    if s.id in graded:
        return next_step(root, s, graded[s.id], res) + f"  (stuck? ./workbook hint {s.id})"
    return f"go on with {s.id} ({s.title}): ./workbook lesson {s.id}, then ./workbook grade {s.id}"


def walk_order(chapter):
    """The order the README's walkthrough and the assignment take: the kernel sections (7.2 on),
    then the sections of questions only (7.1), whose answers need no kernel and wait for them."""
    return [s for s in chapter.sections if s.kernels] + [s for s in chapter.sections if not s.kernels]


def _first_open(chapter, graded):
    """The section being worked on: the first of walk_order graded and not passing yet, else the
    first not graded yet; None when every section passes."""
    order = walk_order(chapter)
    return next((s for s in order if s.id in graded and not results_mod.section_passed(graded[s.id])),
                next((s for s in order if s.id not in graded), None))


def next_line(root, chapter):
    """"Next: ..." from the student's record (what grade prints last, as status does)."""
    res = record.load(root)
    graded = res["sections"] if res else {}
    stale = {s.id: newer for s in chapter.sections if s.id in graded
             for newer in [edited_since(root, s, graded[s.id].get("graded_at", 0))] if newer}
    return "Next: " + _next(root, chapter, res, graded, stale)


def current_section(root, chapter):
    """The section the student is on, the one "Next:" names: the first of walk_order not passed
    yet; None when every section passes."""
    res = record.load(root)
    return _first_open(chapter, res["sections"] if res else {})


def run(root, chapter, build_dir=None):
    return report(root, chapter, build_dir)
