"""The second check before a summative release is written: no withheld answer's value in any file.

A summative release leaves the answers of its questions out of questions.toml (files.py), but
a value can be quoted elsewhere: docs/results/ once printed 7.2's load-count answers. So each
withheld answer's value (its right answer for the book's parameters, as the course's autograder
checks it for a student without a variant) is searched for in every text file the release keeps,
written the ways a page or a comment writes numbers (12345, 12,345, 12 345; 0.4321, 0.43).

Only values that tell something are searched for: an integer of three digits or more, or a number
with a fraction of two significant digits or more. "5" or "0.5" is in every file and proves nothing.
What cannot be hidden is said in release.py's doc: the formulas the judges need are handed out.
"""
import math
import re

MIN_INTEGER = 100

# Numbers that are in a kept file for a reason of their own, by (path, written form): each one was
# looked at, and is not the answer it happens to equal. A new hit stops the release until it is
# either reworded or listed here with its reason.
COINCIDENCES = {
    ("grader/cmake/HaloSections.cmake", "3600"): "a test's timeout in seconds",
    ("grader/platform/linux/worker_process.cpp", "3600"): "an hour in seconds",
    ("tools/halo/bench/bench_collect.py", "3600"): "an hour in seconds",
    ("tools/halo/course/slurm_local.py", "3600"): "a Slurm setting in seconds",
    ("tools/halo/site/figures.py", "420"): "a figure's width in pixels",
    ("docs/diagnostics.md", "324"): "an element index of an 18 x 18 tile in a quoted run, not a load count",
}
THIS_FILE = "tools/halo/course/release/withheld.py"  # it names the coincidences above


def _forms(value):
    """The ways a file may write `value`, or [] when it is too common to mean anything."""
    if not math.isfinite(value):
        return []
    if float(value).is_integer():
        n = int(abs(value))
        if n < MIN_INTEGER:
            return []
        return sorted({f"{n}", f"{n:,}", f"{n:,}".replace(",", " "), f"{n:,}".replace(",", "\u202f")})
    text = f"{abs(value):.6g}"
    fraction = text.split(".", 1)[1] if "." in text else ""
    if len(fraction.lstrip("0")) < 2 or "e" in text:
        return []
    shown = {text} | {f"{abs(value):.{d}f}" for d in range(2, len(fraction))}
    return sorted(s for s in shown if len(s.split(".", 1)[1].lstrip("0")) >= 2)


def _numbers(value):
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [float(value)]
    if isinstance(value, (list, tuple)):
        return [n for v in value for n in _numbers(v)]
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    return []


def given_numbers(chapter):
    """The numbers the release hands out as inputs: the #defines, the examples' and measurements'
    fields and the questions' parameters (choices of variants included). An answer equal to one of
    them (threads per block = TILE_SIZE) is no secret a file can leak."""
    out = set()
    for value, _section in chapter.defines.values():
        out.update(_numbers(float(value) if str(value).lstrip("-").replace(".", "", 1).isdigit() else None))
    for table in (chapter.examples, chapter.measurements):
        for item in table.values():
            out.update(_numbers(item.fields))
    for s in chapter.sections:
        for q in chapter.questions(s.id):
            out.update(_numbers(q.params))
            out.update(_numbers(q.vary))
    return out


def withheld_values(chapter, withheld):
    """{written form: "section question-id"} of every withheld answer ({section: [question ids]})
    that is not one of the numbers handed out as inputs."""
    given = given_numbers(chapter)
    out = {}
    for sid, ids in withheld.items():
        for q in chapter.questions(sid):
            if q.id not in ids:
                continue
            value = q.expected()
            for v in _numbers(value):
                if v in given:
                    continue
                for form in _forms(v):
                    out.setdefault(form, f"{sid} {q.id}")
    return out


def find(tree, values):
    """[(path, line number, form, question)] for each withheld value written in a text file of the
    release ({path: bytes}): the form with no digit, point or comma right before or after it."""
    hits = []
    patterns = {form: re.compile(r"(?<![\d.,])" + re.escape(form) + r"(?![\d]|[.,]\d)") for form in values}
    for rel, data in sorted(tree.items()):
        if b"\0" in data or rel == THIS_FILE:
            continue
        text = data.decode("utf-8", errors="replace")
        # A form a file does not hold as plain text cannot match on any of its lines: the regular
        # expressions run only for the few forms that are there (a release is thousands of files).
        present = [(form, p) for form, p in patterns.items() if form in text and (rel, form) not in COINCIDENCES]
        if not present:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            hits += [(rel, number, form, values[form]) for form, p in present if form in line and p.search(line)]
    return hits
