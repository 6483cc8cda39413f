"""`./workbook internal check-untouched-stubs --work DIR`: an untouched stub judged without a run
(core/untouched_stubs.py) gets what a real run of it gets. Run for real, from a clone of the last
commit in DIR/student (check-first-run's clone, check-student-path's too: CTest runs the three one
at a time, and the clone's grade build stays warm for all), in its build/grade:

1. The whole chapter with 7.2 written (the reference kernel) and every other section the untouched
   stub, `grade --exercises TREE`, with the shortcut and then with HALO_RUN_STUBS=1, the same
   HALO_SEED. The shortcut built no stub section's worker and the real run built each; results.json,
   the terminal (its progress lines aside) and the Gradescope results.json are equal, except the
   words of each stub test's message: each is a stub's, and a section's messages name the same
   TODOs together ("still a stub: FILE:LINE: TODO: ...", as core/untouched.py reads them). A real
   run says which launch each test tried and the TODOs that launch reached: only a run knows.
2. 7.3's stub with one byte more (a newline at its end): built and run, its messages the judge's.
"""
import json
import re
import shutil
import subprocess
from pathlib import Path

from ..core import committed, untouched, untouched_stubs
from ..core.chapter_data import load_chapter
from ..course.term_check import course_repo
from .student_path_check import _env
from ..core.workbook_argv import workbook_argv

WRITTEN, ONE_BYTE_MORE = "7.2", "7.3"
SEED = "20261127"
# The lines that say how far a step has got: a grade that builds and runs less says less there.
PROGRESS = re.compile(r"^(building |running the kernels tests|checking the answers|  \()")


def _grade(repo, tree, build, run_stubs):
    """(what the grade printed, its results.json, Gradescope's results.json made from it)."""
    env = dict(_env(), **{"HALO_SEED": SEED, untouched_stubs.RUN_STUBS: run_stubs})  # none of a check's own
    p = subprocess.run([*workbook_argv(repo), "grade", "--exercises", str(tree), "--build-dir",
                        str(build)], cwd=repo, capture_output=True, text=True, env=env)
    subprocess.run([*workbook_argv(repo), "export", "gradescope", "--results",
                    str(build / "results.json"), "--out", str(build / "gradescope.json"), "--execution-time", "1"],
                   cwd=repo, capture_output=True, text=True, env=env)
    return p.stdout + p.stderr, json.loads((build / "results.json").read_text()), \
        json.loads((build / "gradescope.json").read_text())


def _stub_words(tests, section_of, kind_of, key, stubbed):
    """Each stub test's words (`key`) replaced by whether they are a stub's; returns {section: the
    TODOs its messages name together}, as core/untouched.py reads them (a real run names in each
    test only the TODOs its launches reached; the shortcut names the section's every TODO)."""
    found = {}
    for t in tests:
        sid = section_of(t)
        if sid in stubbed and kind_of(t) != "answers":
            for path, lines in untouched.todos([t[key]]).items():
                found.setdefault(sid, {}).setdefault(path, set()).update(lines)
            t[key] = untouched.is_stub(t[key])
    return {sid: {path: sorted(lines) for path, lines in files.items()} for sid, files in found.items()}


def comparable(stubbed, out, res, gs):
    """(results.json, Gradescope's, the terminal's lines) less what may differ between the two runs:
    the time stamp and test times, progress lines, and a stub test's words beyond its TODOs."""
    res, gs = json.loads(json.dumps(res)), json.loads(json.dumps(gs))
    res.pop("created", None)
    gs.pop("execution_time", None)
    for t in res["tests"]:
        t.pop("seconds", None)
    res["todos"] = _stub_words(res["tests"], lambda t: t["section"], lambda t: t["kind"], "message", stubbed)
    # Gradescope's output of a stub test is its message, cut at 6,000 characters: a real run's can be
    # longer (7.9's tensor copies), losing its TODO line; the words are compared in results.json.
    for t in gs["tests"]:
        if t["tags"][0] in stubbed and t["tags"][1] != "answers":
            t["output"] = None
        elif isinstance(t.get("output"), str):  # a passed test's output is its time: "passed (0.35 s)"
            t["output"] = re.sub(r"^passed \([\d.]+ s\)$", "passed", t["output"])
    return res, gs, [line for line in out.splitlines() if not PROGRESS.match(line)]


def _differences(a, b, what):
    if a == b:
        return []
    if isinstance(a, list) and isinstance(b, list):
        for k, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return [f"{what} differ first at {k}:\n  shortcut: {x}\n  real run: {y}"]
        return [f"{what}: {len(a)} with the shortcut, {len(b)} from the real run"]
    return [f"{what}[{k!r}] differs:\n  shortcut: {a.get(k)}\n  real run: {b.get(k)}"
            for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]


def _worker(build, sid):
    return build / "grader" / f"test_{sid.replace('.', '_')}_worker"


def equal_problems(repo, chapter, tree, build):
    stubbed = [s.id for s in chapter.sections if s.kernels and s.id != WRITTEN]
    for sid in stubbed:
        _worker(build, sid).unlink(missing_ok=True)
    problems = []
    short = _grade(repo, tree, build, "")
    print(short[0])
    problems += [f"the shortcut built {sid}'s worker: its untouched stub was not taken for one"
                 for sid in stubbed if _worker(build, sid).exists()]
    made = [t for t in short[1]["tests"] if t["section"] in stubbed and t["kind"] != "answers"]
    if not made or not all(t["message"].startswith(untouched_stubs.NOT_WRITTEN) for t in made):
        problems.append("the shortcut's stub results are not the ones it makes")
    real = _grade(repo, tree, build, "1")
    problems += [f"HALO_RUN_STUBS=1 did not build {sid}'s worker" for sid in stubbed if not _worker(build, sid).exists()]
    a, b = comparable(stubbed, *short), comparable(stubbed, *real)
    problems += _differences(a[0]["tests"], b[0]["tests"], "results.json's tests")
    problems += _differences({k: v for k, v in a[0].items() if k != "tests"},
                             {k: v for k, v in b[0].items() if k != "tests"}, "results.json")
    problems += _differences(a[1], b[1], "Gradescope's results.json")
    problems += _differences(a[2], b[2], "the terminal's lines")
    return problems


def one_byte_problems(repo, chapter, tree, build):
    s = chapter.section(ONE_BYTE_MORE)
    kernel = tree / s.folder / s.kernels[0]
    kernel.write_bytes(kernel.read_bytes() + b"\n")
    _, res, _ = _grade(repo, tree, build, "")
    ran = [t for t in res["tests"] if t["section"] == s.id and t["kind"] != "answers"]
    if not ran or any(untouched_stubs.NOT_WRITTEN in t["message"] or not untouched.is_stub(t["message"]) for t in ran):
        return [f"{s.id}'s stub with one byte more was not built and run as a stub"]
    return []


def run_check(root, work):
    work = Path(work).resolve()
    repo = work / "student"
    course_repo(Path(root).resolve(), repo)
    chapter = load_chapter(repo)
    tree, build = work / "untouched-stubs" / "exercises", repo / "build" / "grade"
    shutil.rmtree(tree, ignore_errors=True)
    committed.write(repo, "exercises", tree)
    written = chapter.section(WRITTEN)
    for k in written.kernels:
        shutil.copyfile(repo / "solutions" / written.folder / k, tree / written.folder / k)
    problems = equal_problems(repo, chapter, tree, build) + one_byte_problems(repo, chapter, tree, build)
    for p in problems:
        print(f"FAIL {p}")
    print(f"untouched stubs judged without a run, against a real run: {len(problems)} problems")
    return 1 if problems else 0
