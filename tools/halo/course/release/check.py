"""`./workbook internal check-release --work DIR`: a release of 7.2 and 7.4 works for a student.

The unit tests (tests/test_release.py) search releases for solution lines and instructor files
without building anything. This check does what they cannot: in a release made from the last
commit it builds and grades as a student would, first the stubs (every test fails, nothing
scored), then the reference kernels and answers of the last commit copied over the stubs (every
test passes, full points), does the same in a summative release (the answers
sent on to the autograder, not failed), and asks the formative one for the instructor editions (refused).
"""
import json
import shutil
import subprocess
import sys
from pathlib import Path

from ...core import committed
from . import make as release

SECTIONS = ("7.2", "7.4")


def _run(cwd, *args):
    p = subprocess.run([sys.executable, str(Path(cwd) / "workbook"), *args], cwd=cwd,
                       capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def _verdicts(build):
    """{section: (tests passed, tests, answers right, answers asked)} from grade's results.json."""
    sections = json.loads((Path(build) / "results.json").read_text())["sections"]
    return {sid: (s["tests"]["passed"], s["tests"]["total"], s["answers"]["right"], s["answers"]["asked"])
            for sid, s in sections.items()}


def _release(root, work, mode):
    out = work / mode
    if out.exists():
        shutil.rmtree(out)
    status = release.run(root, sections=",".join(SECTIONS), out=out, mode=mode)
    return out if status == 0 else None


def _solve(root, out):
    """The last commit's reference kernels and answers over the release's stubs."""
    for name, data in committed.files(root, "solutions").items():
        parts = name.split("/")
        if parts[0] == "solutions" and (out / "exercises" / parts[1]).is_dir():
            (out / "exercises" / Path(*parts[1:])).write_bytes(data)


def _grade(out, build):
    code, text = _run(out, "grade", "--build-dir", str(build))
    print(text[-1500:])
    return code, text, _verdicts(build)


def run_check(root, work):
    root, work = Path(root), Path(work)
    problems = []
    formative, summative = _release(root, work, "formative"), _release(root, work, "summative")
    if not formative or not summative:
        print("FAIL ./workbook release refused")
        return 1

    code, _text, stubs = _grade(formative, work / "build-formative")
    if code == 0 or sorted(stubs) != sorted(SECTIONS) or any(v[0] or v[2] for v in stubs.values()):
        problems.append(f"the stubs: grade exited {code} with {stubs}; expected every test failing, no answer right")
    _solve(root, formative)
    code, text, solved = _grade(formative, work / "build-formative")
    if code != 0 or any(v[0] != v[1] or v[2] != v[3] or not v[1] for v in solved.values()):
        problems.append(f"the reference kernels: grade exited {code} with {solved}; expected everything passing")
    if "Points: 30 of 30" not in text:
        problems.append("the reference kernels: no 'Points: 30 of 30' line")

    # Summative: no key in the release, so every answer is sent on, none right, none failed.
    _solve(root, summative)
    code, text, sent = _grade(summative, work / "build-summative")
    if code != 0 or any(v[0] != v[1] or v[2] != 0 for v in sent.values()) or \
            "answers your course's autograder checks are not counted here" not in text:
        problems.append(f"summative, reference kernels and answers: grade exited {code} with {sent}; expected every "
                        "test passing, every answer sent on to the autograder and said so")

    for args in (("handout", "--edition", "instructor"), ("docs", "--instructor")):
        code, text = _run(formative, *args)
        if code == 0 or "for instructors" not in text:
            problems.append(f"./workbook {' '.join(args)} in the release exited {code}: {text.strip()[-300:]}")
    for p in problems:
        print(f"FAIL {p}")
    print(f"release of {', '.join(SECTIONS)}: stubs {stubs}, reference {solved}, summative {sent}; "
          f"{len(problems)} problems")
    return 1 if problems else 0
