"""Per-test points of a grade run: the one place where a section's points are split over its tests.

Every platform scores from here, so that a submission is worth the same everywhere: the
Gradescope export (and through it the gradebook of grade-class and the points line of
`./workbook grade`) and the GitHub Classroom result. Points come from the sections given (an
assignment's, with its points), never from test code:

- a section's `tests` points are split evenly over its CPU tests (kinds correct,
  loads, diagnostics); a right kernel that advised (it loads more than the book's) gets half its
  share where the section says extra_loads = "partial";
- its `answers` points are split evenly over its questions, one share per question;
- a section that did not compile is one failed test carrying all its tests points, with the
  compiler's errors; a section whose tests never ran likewise; a section missing from the run
  is one failed test carrying all its points;
- GPU tests that could not run (no GPU on the grading machine) are not run, worth nothing, never
  failures; so are other tests outside the scored kinds and the answers file's "well-formed" check.

Shares are exact fractions; per_section rounds once, by the rule of core/cents.py.
"""
from dataclasses import dataclass, field
from fractions import Fraction

from . import results as halo_results
from . import cents

CPU_KINDS = ("correct", "loads", "diagnostics")
NOT_RUN_ON_GPU = "not run: no GPU on the grading machine"

# A Scored test's status. "partial": its outputs are right, its points are not all given (an
# advised kernel under extra_loads = "partial"). "not run": it did not run, and is worth nothing.
PASSED, FAILED, PARTIAL, NOT_RUN = "passed", "failed", "partial", "not run"


@dataclass
class Scored:
    """One test as a platform scores it. score and max_score are hundredths of a point shared
    out by core/cents.py from the exact `worth` (its share) and `earned` (the part of it earned)."""
    name: str
    worth: Fraction
    earned: Fraction  # 1 passed, 1/2 partial, 0 failed or not run
    status: str     # PASSED, FAILED, PARTIAL or NOT_RUN
    output: str     # what the student reads: a short line when it passed, the diagnostic when not
    kind: str       # correct, loads, diagnostics, answers, build, grade, other
    score: float = field(default=0.0)
    max_score: float = field(default=0.0)


def _scored(name, earned, worth, status, output, kind):
    return Scored(name, Fraction(worth), Fraction(earned), status, output or "", kind)


def is_gpu(test):
    return test["name"].startswith("gpu:") or test["name"].startswith("gpu ")


def _answer_question(test, section_id):
    """The question id of an answers test ("7.2 basic-1d / answers / q"), else None."""
    info = halo_results.parse_name(test["name"])
    if info["section"] != section_id or info["kind"] != "answers" or info["tree"]:
        return None
    return info["what"]


def pass_line(test):
    seconds = test.get("seconds") or 0
    return f"passed ({seconds:.2f} s)" if seconds else "passed"


def _kernel_tests(s, res, mine, points):
    """The section's CPU tests with their share of `points`; GPU and other tests worth nothing."""
    out = []
    name = f"{s.id} {s.slug}"
    if res.get("build") == "failed":
        errors = "\n".join(halo_results.compiler_errors(res.get("build_output", "")))
        return [_scored(f"{name} / build / the exercise compiled", 0, points, FAILED,
                        f"The exercise does not compile, so none of its tests ran:\n\n{errors}", "build")]
    scored = [t for t in mine if not is_gpu(t) and (t["kind"] in CPU_KINDS or t["kind"] == "build")]
    if not scored and points:
        out.append(_scored(f"{name} / build / the tests ran", 0, points, FAILED,
                           "None of this section's tests ran; the autograder's log says why.", "build"))
    share = points / len(scored) if scored else 0
    for t in scored:
        if t["status"] == "passed" and t.get("advice") and getattr(s, "extra_loads", "advice") == "partial":
            out.append(_scored(t["name"], Fraction(1, 2), share, PARTIAL, f"{pass_line(t)}; half the points, as this "
                               f"course scores extra loads: {t['advice']}", t["kind"]))
        elif t["status"] == "passed":
            out.append(_scored(t["name"], 1, share, PASSED, pass_line(t), t["kind"]))
        elif t["status"] == "skipped":
            out.append(_scored(t["name"], 0, share, FAILED, "not run: the test was skipped", t["kind"]))
        else:
            out.append(_scored(t["name"], 0, share, FAILED, t.get("message") or "failed", t["kind"]))
    scored_ids = {id(t) for t in scored}
    for t in mine:
        if id(t) in scored_ids or t["kind"] == "answers":
            continue
        if t["status"] == "skipped":
            out.append(_scored(t["name"], 0, 0, NOT_RUN, NOT_RUN_ON_GPU if is_gpu(t) else "not run",
                               t["kind"] or "other"))
        else:  # a GPU test that did run (grade --gpu on a GPU machine): shown, worth nothing
            status = t["status"] if t["status"] in (PASSED, FAILED) else NOT_RUN
            out.append(_scored(t["name"], 0, 0, status,
                               pass_line(t) if t["status"] == "passed" else (t.get("message") or "failed"),
                               t["kind"] or "other"))
    return out


def _answer_tests(s, questions, mine, points):
    out = []
    by_question = {}
    other = []
    for t in mine:
        q = _answer_question(t, s.id)
        if q is None:
            continue
        if q in questions:
            by_question.setdefault(q, t)
        else:
            other.append(t)
    share = points / len(questions) if questions else 0
    for q in questions:
        t = by_question.get(q)
        name = f"{s.id} {s.slug} / answers / {q}"
        if t is None:
            out.append(_scored(name, 0, share, FAILED, "not checked: the answers test did not run", "answers"))
        elif t["status"] == "passed":
            out.append(_scored(name, 1, share, PASSED, t.get("message") or f"{q}: right", "answers"))
        else:
            out.append(_scored(name, 0, share, FAILED, t.get("message") or f"{q}: not right", "answers"))
    for t in other:  # "the file is well-formed": says where a malformed file breaks; worth nothing
        status = t["status"] if t["status"] in (PASSED, FAILED) else NOT_RUN
        out.append(_scored(t["name"], 0, 0, status,
                           "passed" if t["status"] == "passed" else (t.get("message") or "failed"), "answers"))
    return out


def _relative_paths(tests, exercises):
    """The graded tree's absolute path (a scratch folder of the grading machine) written as
    exercises/, the folder the student knows."""
    if not exercises:
        return
    prefix = str(exercises).rstrip("/") + "/"
    for t in tests:
        t.output = t.output.replace(prefix, "exercises/")


def section_tests(results, chapter, section):
    """The Scored tests of one section (with its points) in a grade run's results.json (a dict)."""
    tests_points = cents.exact(section.points.get("tests", 0) or 0)
    answers_points = cents.exact(section.points.get("answers", 0) or 0)
    res = results.get("sections", {}).get(section.id)
    if res is None:
        return [_scored(f"{section.id} {section.slug} / grade / the section was graded", 0,
                        tests_points + answers_points, FAILED, "This section was not graded in this run.", "grade")]
    mine = [t for t in results.get("tests", []) if t.get("section") == section.id]
    out = []
    if section.kernels or tests_points:
        out += _kernel_tests(section, res, mine, tests_points)
    out += _answer_tests(section, [q.id for q in chapter.questions(section.id)], mine, answers_points)
    _relative_paths(out, results.get("exercises"))
    return out


def per_section(results, chapter, sections):
    """[(section, [Scored, ...])] of `sections` (an assignment's, with its points), in order,
    each test's score and max_score in hundredths by the one rounding rule (core/cents.py)."""
    out = [(s, section_tests(results, chapter, s)) for s in sections]
    settle([scored for _, scored in out])
    return out


def _parts(scored):
    """A section's tests in the parts that share points evenly: its kernel tests (or the one test
    standing for them), its answers; tests worth nothing are in no part."""
    kernel = [t for t in scored if t.worth and t.kind != "answers"]
    answers = [t for t in scored if t.worth and t.kind == "answers"]
    return [p for p in (kernel, answers) if p]


def _hundredths(tests, attr):
    return sum((getattr(t, attr) * 100 for t in tests), Fraction(0))


def settle(sections):
    """Sets score and max_score (hundredths) of every Scored test of `sections` ([[Scored]]):
    the student's exact total rounded once, then shared out over sections, parts and tests."""
    parts = [_parts(scored) for scored in sections]
    earned = [[sum((t.worth * t.earned * 100 for t in p), Fraction(0)) for p in ps] for ps in parts]
    worth = [[cents.half_up(_hundredths(p, "worth")) for p in ps] for ps in parts]
    total = cents.half_up(sum((e for es in earned for e in es), Fraction(0)))
    per_section = cents.apportion(total, [sum(es, Fraction(0)) for es in earned], [sum(w) for w in worth])
    for ps, es, ws, got in zip(parts, earned, worth, per_section):
        for p, target, w in zip(ps, cents.apportion(got, es, ws), ws):
            scores, maxima = cents.part(target, w, [t.earned for t in p])
            for t, sc, mx in zip(p, scores, maxima):
                t.score, t.max_score = sc / 100, mx / 100
