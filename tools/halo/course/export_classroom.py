"""GitHub Classroom, with partial credit.

`./workbook export classroom` writes the autograding workflow (for .github/workflows/classroom.yml
of the assignment's template repository); `./workbook export classroom-result` is what its steps
run: one runner's result for Classroom's reporter, from a grade run's results.json.

The workflow grades once (`./workbook grade <the assignment's sections> || true`, which writes
build/grade/results.json), then has one result step per section, each a runner of Classroom's
reporter, then the reporter. Each result gives every test its share of the section's points with
the split every platform uses (core/points.py, as the Gradescope export does): 14 of a section's
15 tests passing score 14/15 of its tests points, each answer is scored on its own. The old
command-grader steps were all or nothing (a section's command either exits 0 or not).

One result step per section rather than one for all: each section is then a row of the
reporter's summary ("Total points for section-7-2") and its step log shows that section's
points and what lost them; a step costs a Python start, well under a second.

The reporter's input, as read in classroom-resources/autograding-grading-reporter (src/main.js,
src/notify-classroom.js, and dist/main.js at commit d13b5912daf5042ac1b71bc38bdb4a6bcd61d8ca, the
code @v1 runs), and as its graders write it (autograding-command-grader's index.js: a `result`
step output holding base64 of JSON.stringify of {version: 1, status, max_score, tests: [{name,
status, score, message, test_code, filename, line_no, duration}]}):

- input `runners`: step ids, split on commas and trimmed; for each, the environment variable
  <ID upper-cased>_RESULTS holds the base64 of one JSON result (UTF-8);
- the grade Classroom records (NotifyClassroom): the sum of the tests' `score` over the runners
  whose top-level `max_score` is not 0, out of the sum of those `max_score`s, posted as the
  notices "Points X/Y" and {"totalPoints": X, "maxPoints": Y};
- the log (ConsoleResults): a test whose `status` is "pass" gets a tick; "error" prints its
  `message` (not its name); anything else a cross with the name only; `line_no` other than 0 is
  printed after the name, so it must be 0; "Total points for <runner>" there is (tests passing /
  tests) x max_score, a count rather than the sum of the scores (the reporter's issue #10), so it
  can differ from the grade recorded where a section mixes shares of different sizes;
- the job fails ("Some tests failed.") when a runner's top-level `status` is "fail" (or "error").
"""
import base64
import json
import os
import re
import sys
from pathlib import Path

from ..core import points
from ..core.assignment import AssignmentError, load as load_assignment, section_points, whole_chapter
from .export_autograder import TEMPLATES

REPORTER = "classroom-resources/autograding-grading-reporter@v1"
RESULTS = "build/grade/results.json"  # where `./workbook grade` writes its results by default
RESULT_VERSION = 1

# Step time limits, in minutes. The grade step configures the build, compiles the runtime and
# each section's tests and runs them: the command-grader steps had 10 minutes for the first
# section (which also configured and built the runtime) and 10 for each other; a GitHub runner
# of a private repository has 2 cores.
INSTALL_MINUTES = 10
GRADE_MINUTES_BASE = 10
GRADE_MINUTES_PER_SECTION = 5
RESULT_MINUTES = 2  # reads one JSON file

# A runner's result reaches the reporter in an environment variable, which Linux caps at 128 KiB
# (MAX_ARG_STRLEN): messages are cut to fit well under that, shorter and shorter if need be.
RESULT_LIMIT = 96 * 1024          # characters of base64
MESSAGE_LIMITS = (1500, 300, 0)   # characters of one test's message, tried in turn

_STATUS = {points.PASSED: "pass", points.PARTIAL: "pass", points.FAILED: "fail"}


def apt_packages():
    """The packages setup.sh installs: one list for both platforms."""
    text = (TEMPLATES / "setup.sh").read_text()
    m = re.search(r"apt-get install -y -q --no-install-recommends \\\n(.*)\n", text)
    return m.group(1).split() if m else []


def step_id(section):
    """A step id GitHub accepts (letters, digits, - and _; a letter first): 7.2 -> section-7-2."""
    return "section-" + re.sub(r"[^A-Za-z0-9]+", "-", section.id).strip("-")


def _q(text):
    """A YAML double-quoted string."""
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def graded_sections(assignment):
    """The assignment's sections worth something: a section worth nothing is not graded at all."""
    return [s for s in assignment.sections if section_points(s) > 0]


def grade_minutes(n_sections):
    return GRADE_MINUTES_BASE + GRADE_MINUTES_PER_SECTION * n_sections


def _assignment_option(assignment):
    # Named in the student's repository by its assignment.toml; the whole chapter needs no file.
    return "" if assignment.whole_chapter else f" --assignment {assignment.name}"


def result_command(assignment, section):
    return (f"./workbook export classroom-result --results {RESULTS} --section {section.id}"
            f"{_assignment_option(assignment)}")


def workflow(chapter, assignment=None):
    """The workflow (YAML text) grading `assignment` (the whole chapter when None)."""
    assignment = assignment or whole_chapter(chapter)
    graded = graded_sections(assignment)
    what = "the whole chapter" if assignment.whole_chapter else f"assignment {assignment.name}"
    lines = [
        "# Generated by `./workbook export classroom` from chapters/manifest.toml and the course's",
        f"# assignment ({what}); regenerate it rather than editing it. Put it at",
        "# .github/workflows/classroom.yml of the assignment's template repository. GitHub Classroom",
        "# needs this workflow name and this job name.",
        "name: Autograding Tests",
        "'on':",  # a bare on: is the boolean true in YAML 1.1
        "- push",
        "- repository_dispatch",
        "permissions:",
        "  checks: write",
        "  actions: read",
        "  contents: read",
        "jobs:",
        "  run-autograding-tests:",
        "    runs-on: ubuntu-latest",
        "    if: github.actor != 'github-classroom[bot]'",
        "    steps:",
        "    - name: Checkout code",
        "      uses: actions/checkout@v4",
        "    - name: Install Halo's toolchain",
        f"      timeout-minutes: {INSTALL_MINUTES}",
        f"      run: sudo apt-get update -q && sudo apt-get install -y -q {' '.join(apt_packages())}",
        # A results.json committed to the repository must not stand in for this run's: removed
        # first, a grade run that never finishes leaves none, and every section then scores 0.
        # `|| true`: grade exits 1 when anything fails, which is what the results are for.
        f"    - name: {_q('Grade ' + ' '.join(s.id for s in graded))}",
        f"      timeout-minutes: {grade_minutes(len(graded))}",
        f"      run: {_q(f'rm -f {RESULTS}; ./workbook grade ' + ' '.join(s.id for s in graded) + ' || true')}",
    ]
    for s in graded:
        # !cancelled(): after a grade step that failed or timed out, the results still say why
        # (or that there are none), rather than the job ending with no grade at all.
        lines += [
            f"    - name: {_q(f'{s.id} {s.title}')}",
            f"      id: {step_id(s)}",
            "      if: ${{ !cancelled() }}",
            f"      timeout-minutes: {RESULT_MINUTES}",
            f"      run: {_q(result_command(assignment, s))}",
        ]
    lines += [
        "    - name: Autograding Reporter",
        "      if: ${{ !cancelled() }}",
        f"      uses: {REPORTER}",
        "      env:",
    ]
    lines += [f"        {step_id(s).upper()}_RESULTS: \"${{{{steps.{step_id(s)}.outputs.result}}}}\"" for s in graded]
    lines += [
        "      with:",
        f"        runners: {','.join(step_id(s) for s in graded)}",
    ]
    return "\n".join(lines) + "\n"


def run(root, chapter, out=None, assignment_name=None):
    try:
        assignment = load_assignment(chapter, root, assignment_name)
    except AssignmentError as e:
        print(f"halo: {e}", file=sys.stderr)
        return 2
    graded = graded_sections(assignment)
    if not graded:
        print(f"halo: no section of {assignment.name} is worth any points: nothing for Classroom to grade",
              file=sys.stderr)
        return 2
    out = Path(out) if out else Path(root) / "build" / "classroom" / "classroom.yml"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(workflow(chapter, assignment))
    total = sum(section_points(s) for s in graded)
    where = "" if assignment.whole_chapter else (
        f" The template repository must carry assignment {assignment.name} in its assignment.toml (a student "
        "release does): the result steps read the points there.")
    print(f"wrote {out}: sections {', '.join(s.id for s in graded)} graded in one step, {len(graded)} result "
          f"steps, {total:g} points with partial credit per test. Copy it to .github/workflows/classroom.yml "
          f"of the assignment's template repository.{where}")
    return 0


# The result of one runner.

def _clip(text, limit):
    text = (text or "").rstrip()
    if len(text) <= limit:
        return text
    return text[:limit].rstrip() + f"\n... ({len(text) - limit} more characters cut)" if limit else ""


def _test(t, limit):
    """The reporter's test for one Scored test (core/points.py)."""
    status = _STATUS.get(t.status, "fail")
    message = t.output
    if t.status == points.FAILED and t.kind in ("build", "grade"):
        # Nothing of the section ran: "error", whose message the reporter prints (the compiler's
        # errors); it prints no name then, so the message starts with it.
        status, message = "error", f"{t.name}: {t.output}"
    return {"name": t.name, "status": status, "score": t.score, "max_score": t.max_score,
            "message": _clip(message, limit), "test_code": "", "filename": "", "line_no": 0}


def _result(tests):
    if any(t["status"] == "error" for t in tests):
        status = "error"
    elif all(t["score"] >= t["max_score"] for t in tests):
        status = "pass"
    else:
        status = "fail"
    return {"version": RESULT_VERSION, "status": status,
            "max_score": round(sum(t["max_score"] for t in tests), 2), "tests": tests}


def classroom_result(results, chapter, sections, limit=MESSAGE_LIMITS[0], only=None):
    """The reporter's result (a dict) for `sections` (an assignment's, with its points) of a grade
    run's results.json (a dict), or for those of them whose ids are in `only` (one step's): the
    points are shared out over all `sections` (core/cents.py), so that the steps add up to the
    total the gradebook shows. Tests worth nothing (GPU tests that could not run, the answers
    file's well-formed check) are left out: the reporter's log counts every test it is given."""
    tests = [_test(t, limit) for s, scored in points.per_section(results, chapter, sections)
             if only is None or s.id in only for t in scored if t.max_score > 0]
    return _result(tests)


def error_result(sections, why):
    """A result scoring 0 of the sections' points, saying why there is no grade."""
    tests = [{"name": f"{s.id} {s.slug} / grade / the section was graded", "status": "error", "score": 0,
              "max_score": round(section_points(s), 2), "message": f"{s.id} {s.slug}: not graded: {why}",
              "test_code": "", "filename": "", "line_no": 0} for s in sections]
    if not tests:  # no sections known (the assignment could not be read): worth nothing, but said
        tests = [{"name": "Halo grading", "status": "error", "score": 0, "max_score": 0,
                  "message": f"Halo could not grade: {why}", "test_code": "", "filename": "", "line_no": 0}]
    return _result(tests)


def encode(doc):
    return base64.b64encode(json.dumps(doc, separators=(",", ":")).encode("utf-8")).decode("ascii")


def _fitting(make):
    """(doc, base64) of make(limit) for the longest message limit whose result fits RESULT_LIMIT."""
    for limit in MESSAGE_LIMITS:
        doc = make(limit)
        encoded = encode(doc)
        if len(encoded) <= RESULT_LIMIT:
            break
    return doc, encoded


def summary(doc):
    """What the result step's log shows: the points, and each test that lost some, with why."""
    got = sum(t["score"] for t in doc["tests"])
    lines = [f"Classroom result: {got:g} of {doc['max_score']:g} points"]
    for t in doc["tests"]:
        if t["score"] < t["max_score"] or t["status"] == "error":
            first = (t["message"].splitlines() or [""])[0]
            lines.append(f"  {t['score']:g}/{t['max_score']:g}  {t['name']}" + (f": {first}" if first else ""))
    return "\n".join(lines)


def _maker(root, chapter, results_path, section_id, assignment_name):
    """make(limit) -> the result to write, whatever goes wrong (an error result then)."""
    # Each reason is bound to a name before the lambda: an except clause unbinds its `e`.
    try:
        assignment = load_assignment(chapter, root, assignment_name)
        scored = list(assignment.sections)
        sections = [assignment.section(section_id)] if section_id else scored
    except AssignmentError as e:
        why = str(e)
        return lambda limit: error_result([], why)
    except KeyError as e:  # --section names a section outside the assignment
        why = e.args[0] if e.args else str(e)
        return lambda limit: error_result([], why)
    try:
        results = json.loads(results_path.read_text())
        if not isinstance(results, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as e:
        why = f"{results_path} could not be read ({e}): the grade run did not finish; its step's log says why"
        return lambda limit: error_result(sections, why)
    only = {s.id for s in sections}
    try:
        classroom_result(results, chapter, scored, only=only)  # fails here, if at all, rather than in _fitting
    except Exception as e:  # noqa: BLE001 (a bug, or a damaged results.json: the reporter still needs a result)
        why = f"the Classroom result could not be computed from {results_path} ({type(e).__name__}: {e})"
        return lambda limit: error_result(sections, why)
    return lambda limit: classroom_result(results, chapter, scored, limit, only)


def run_result(root, chapter, results_path=None, section_id=None, assignment_name=None):
    """Writes one runner's result: `result=<base64>` appended to $GITHUB_OUTPUT when that is set
    (a workflow step), else the base64 on stdout. Whatever goes wrong (no results.json, an
    assignment that cannot be read), a result saying so is written, scoring 0: without one the
    reporter stops on the missing variable and Classroom records nothing."""
    root = Path(root)
    results_path = Path(results_path) if results_path else root / RESULTS
    doc, encoded = _fitting(_maker(root, chapter, results_path, section_id, assignment_name))
    output = os.environ.get("GITHUB_OUTPUT")
    if output:
        try:
            with open(output, "a", encoding="utf-8") as f:
                f.write(f"result={encoded}\n")
        except OSError as e:
            print(f"halo: cannot write the result to $GITHUB_OUTPUT ({output}): {e}", file=sys.stderr)
            return 2
        print(summary(doc))
    else:
        print(encoded)
        print(summary(doc), file=sys.stderr)
    return 0
