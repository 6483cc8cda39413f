"""`./workbook export gradescope`: a grade run's results.json turned into Gradescope's
results.json (https://gradescope-autograders.readthedocs.io/en/latest/specs/).

One Gradescope test per Halo test. Points come from the sections scored (an assignment's, else
the manifest's), never from test code, split over the tests by core/points.py, the one split
every platform uses: a section's `tests` points evenly over its CPU tests (kinds correct,
loads, diagnostics) and its `answers` points over its questions; visibility is the section's.
A section that did not compile is one failed test carrying all its tests points, with the
compiler's errors as output. GPU tests that could not run are reported as not run (worth
nothing), never as failures: the grading machine simply has no GPU.
"""
import json
import math
import sys
from pathlib import Path

from ..core.results import write_atomically
from ..core import points
# Re-exported: callers and tests name them here, where Gradescope's scores are made.
from ..core.points import CPU_KINDS, NOT_RUN_ON_GPU  # noqa: F401

VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
OUTPUT_LIMIT = 6000  # characters of one test's output; a runaway log must not bury the rest

# The fields of Gradescope's specification, with the types it gives them.
TOP_FIELDS = {"score": "number", "execution_time": "number", "output": str, "output_format": str,
              "test_output_format": str, "test_name_format": str, "visibility": str,
              "stdout_visibility": str, "extra_data": dict, "tests": list, "leaderboard": list}
TEST_FIELDS = {"score": "number", "max_score": "number", "status": str, "name": str, "name_format": str,
               "number": str, "output": str, "output_format": str, "tags": list, "visibility": str,
               "extra_data": dict}
TEST_STATUSES = ("passed", "failed")
FORMATS = ("text", "html", "simple_format", "md", "ansi")


def _clip(text):
    text = (text or "").rstrip()
    if len(text) <= OUTPUT_LIMIT:
        return text
    return text[:OUTPUT_LIMIT] + f"\n... ({len(text) - OUTPUT_LIMIT} more characters cut)"


def _entry(section, number, t):
    """Gradescope's test for one Scored test (core/points.py) of `section`."""
    entry = {"name": t.name, "number": f"{section.id}.{number}", "score": t.score, "max_score": t.max_score,
             "output": _clip(t.output), "visibility": section.visibility, "tags": [section.id, t.kind]}
    if t.status in TEST_STATUSES:
        # No status for a test that did not run (Gradescope infers nothing from 0/0) nor for a
        # partial one: its outputs are right, its points partial (Gradescope shows the score).
        entry["status"] = t.status
    return entry


def to_gradescope(results, chapter, execution_time=None, preamble="", sections=None):
    """Gradescope's results.json (a dict) from Halo's results.json (a dict) and the chapter;
    `sections` (an assignment's, with its points) are scored, by default every section."""
    all_tests, lines, later = [], [], []
    for s, scored in points.per_section(results, chapter, chapter.sections if sections is None else sections):
        tests = [_entry(s, k, t) for k, t in enumerate(scored, 1)]
        all_tests += tests
        got = sum(t["score"] for t in tests)
        worth = sum(t["max_score"] for t in tests)
        if s.visibility == "visible":
            lines.append(_summary_line(s, results.get("sections", {}).get(s.id), tests, got, worth))
        else:
            later.append(s)
    score = round(sum(t["score"] for t in all_tests), 2)
    if execution_time is None:
        execution_time = sum(t.get("seconds") or 0 for t in results.get("tests", []))
    not_run = sum(1 for t in all_tests if t.get("status") is None and t["output"] == NOT_RUN_ON_GPU)
    summary = [preamble.rstrip()] if preamble.strip() else []
    summary += ["Halo: PMPP chapter 7, convolution", ""] + lines
    when = {"hidden": "are not shown", "after_due_date": "are shown after the due date",
            "after_published": "are shown when grades are published"}
    for visibility, words in when.items():
        ids = [s.id for s in later if s.visibility == visibility]
        if ids:
            summary.append(f"{'Sections' if len(ids) > 1 else 'Section'} {', '.join(ids)}: results {words}.")
    if not_run:
        summary.append(f"{not_run} GPU tests were not run: the grading machine has no GPU; they are worth "
                       "no points.")
    if results.get("seed"):
        summary.append(f"Random inputs of this run: HALO_SEED={results['seed']} ./workbook grade replays them.")
    return {
        "score": score,
        "execution_time": int(round(execution_time)),
        "output": "\n".join(summary),
        "visibility": "visible",
        "stdout_visibility": "hidden",  # the log shows every section, hidden ones included
        "tests": all_tests,
    }


def _summary_line(s, res, tests, got, worth):
    if res is None:
        state = "not graded"
    elif res.get("build") == "failed":
        state = "does not compile"
    else:
        passed = sum(1 for t in tests if t.get("status") == "passed" and t["max_score"] > 0)
        scored = sum(1 for t in tests if t["max_score"] > 0)
        state = f"{passed}/{scored} checks pass"
    return f"{s.id} {s.title}: {got:g}/{worth:g} points ({state})"


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _type_problem(where, key, value, want):
    if want == "number":
        return None if _is_number(value) else f"{where}{key} should be a number, not {value!r}"
    return None if isinstance(value, want) else f"{where}{key} should be a {want.__name__}, not {type(value).__name__}"


def validate(doc, strict=True):
    """Problems (a list of strings; empty when none) of a Gradescope results.json against the
    fields and types of the specification. strict adds what Halo promises beyond it: every
    test has a name, a number, a max_score and a score between 0 and it, and the top-level
    score is the sum of the tests' scores."""
    if not isinstance(doc, dict):
        return ["results.json should be a JSON object"]
    problems = []
    try:
        json.dumps(doc, allow_nan=False)
    except (TypeError, ValueError) as e:
        problems.append(f"not JSON-serialisable: {e}")
    for key, value in doc.items():
        if key not in TOP_FIELDS:
            problems.append(f"unknown top-level field {key!r}")
        else:
            p = _type_problem("", key, value, TOP_FIELDS[key])
            problems += [p] if p else []
    for key in ("visibility", "stdout_visibility"):
        if isinstance(doc.get(key), str) and doc[key] not in VISIBILITIES:
            problems.append(f"{key} {doc[key]!r} is not one of {', '.join(VISIBILITIES)}")
    for key in ("output_format", "test_output_format", "test_name_format"):
        if isinstance(doc.get(key), str) and doc[key] not in FORMATS:
            problems.append(f"{key} {doc[key]!r} is not one of {', '.join(FORMATS)}")
    if _is_number(doc.get("execution_time")) and doc["execution_time"] < 0:
        problems.append("execution_time should not be negative")
    tests = doc.get("tests") if isinstance(doc.get("tests"), list) else []
    if "score" not in doc and ("tests" not in doc or any(
            not isinstance(t, dict) or "score" not in t for t in tests)):
        problems.append("a score is needed: at the top level, or on every test")
    for k, t in enumerate(tests):
        where = f"tests[{k}]."
        if not isinstance(t, dict):
            problems.append(f"tests[{k}] should be an object")
            continue
        for key, value in t.items():
            if key not in TEST_FIELDS:
                problems.append(f"unknown field {where}{key}")
            else:
                p = _type_problem(where, key, value, TEST_FIELDS[key])
                problems += [p] if p else []
        if isinstance(t.get("status"), str) and t["status"] not in TEST_STATUSES:
            problems.append(f"{where}status {t['status']!r} is not 'passed' or 'failed'")
        if isinstance(t.get("visibility"), str) and t["visibility"] not in VISIBILITIES:
            problems.append(f"{where}visibility {t['visibility']!r} is not one of {', '.join(VISIBILITIES)}")
        if isinstance(t.get("tags"), list) and not all(isinstance(x, str) for x in t["tags"]):
            problems.append(f"{where}tags should be strings")
        if not strict:
            continue
        for key in ("name", "number", "score", "max_score"):
            if key not in t:
                problems.append(f"{where}{key} is missing")
        if _is_number(t.get("score")) and _is_number(t.get("max_score")):
            if not 0 <= t["score"] <= t["max_score"] + 1e-9:
                problems.append(f"{where}score {t['score']} is not between 0 and max_score {t['max_score']}")
            if t.get("status") == "passed" and t["score"] < t["max_score"] - 1e-9:
                problems.append(f"{where} passed but scored {t['score']} of {t['max_score']}")
    if strict and _is_number(doc.get("score")) and tests and all(
            isinstance(t, dict) and _is_number(t.get("score")) for t in tests):
        total = sum(t["score"] for t in tests)
        if abs(total - doc["score"]) > 0.005:
            problems.append(f"score {doc['score']} is not the sum of the tests' scores ({total:g})")
    return problems


def run(root, chapter, results_path=None, out=None, execution_time=None, preamble_file=None, assignment_name=None):
    from ..core.assignment import AssignmentError, load as load_assignment
    root = Path(root)
    try:  # scored out of the assignment (course.toml, or a release's assignment.toml), else the chapter
        assignment = load_assignment(chapter, root, assignment_name)
    except AssignmentError as e:
        print(f"halo: {e}", file=sys.stderr)
        return 2
    results_path = Path(results_path) if results_path else root / "build" / "grade" / "results.json"
    out = Path(out) if out else root / "build" / "grade" / "gradescope" / "results.json"
    try:
        results = json.loads(results_path.read_text())
    except (OSError, ValueError) as e:
        print(f"halo: cannot read {results_path}: {e}; run ./workbook grade first", file=sys.stderr)
        return 2
    preamble = ""
    if preamble_file:
        try:
            preamble = Path(preamble_file).read_text(errors="replace")
        except OSError:
            pass  # a note that cannot be read is no reason to lose the grade
    doc = to_gradescope(results, chapter, execution_time, preamble, sections=assignment.sections)
    problems = validate(doc)
    if problems:  # a bug here, not the student's: say so, but still write what we have
        print("halo: the Gradescope results do not follow the specification:\n  " + "\n  ".join(problems),
              file=sys.stderr)
    # Atomically: Gradescope must never read half a file (run_autograder writes a zero-score one
    # only when none is there).
    write_atomically(out, json.dumps(doc, indent=2) + "\n")
    worth = sum(t["max_score"] for t in doc["tests"])
    print(f"wrote {out}: {doc['score']:g} of {worth:g} points, {len(doc['tests'])} tests")
    return 1 if problems else 0
