"""`./workbook internal check-release --work DIR`: a release of 7.2 and 7.4 works for a student.

The unit tests (tests/test_release.py) search releases for solution lines and instructor files
without building anything. This check does what they cannot: in a release made from the last
commit it builds and grades as a student would, first the stubs (every test fails, nothing
scored), then the reference kernels and answers of the last commit copied over the stubs (every
test passes, full points), does the same in a summative release (the answers
sent on to the autograder, not failed), and asks the formative one for the instructor editions (refused).

Both releases are graded in one folder with one build, as a student's checkout is: the formative
release is copied there, then made file for file the summative one (files whose bytes are the
same are left as they are, so the build recompiles only what differs, not the judges and the
runtime). Before each grade the folder is checked to hold exactly its release's files.
"""
import json
import shutil
import subprocess
from pathlib import Path

from ...core import committed
from . import make as release
from ...core.workbook_argv import workbook_argv

SECTIONS = ("7.2", "7.4")


def _run(cwd, *args):
    p = subprocess.run([*workbook_argv(Path(cwd)), *args], cwd=cwd,
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


def _files(folder):
    """{relative path: bytes} of every file below `folder`."""
    return {p.relative_to(folder): p.read_bytes() for p in Path(folder).rglob("*") if p.is_file()}


def _take_over(release_folder, folder):
    """`folder` made exactly `release_folder`'s files: those that differ are written (with a new
    time, so that the build sees them change), the others left alone; what the release lacks
    goes. The problems, if it does not hold the release afterwards."""
    want = _files(release_folder)
    folder.mkdir(parents=True, exist_ok=True)
    for path in sorted(folder.rglob("*"), reverse=True):  # files before the folders that hold them
        rel = path.relative_to(folder)
        if path.is_symlink() or (path.is_file() and rel not in want):
            path.unlink()
        elif path.is_dir() and not (release_folder / rel).is_dir():
            shutil.rmtree(path)
    for rel, data in want.items():
        target = folder / rel
        if not target.is_file() or target.read_bytes() != data:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            shutil.copymode(release_folder / rel, target)
    if _files(folder) != want:
        return [f"{folder} does not hold the files of {release_folder} after taking it over"]
    return []


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

    student, build = work / "student", work / "build"
    problems += _take_over(formative, student)
    code, _text, stubs = _grade(student, build)
    if code == 0 or sorted(stubs) != sorted(SECTIONS) or any(v[0] or v[2] for v in stubs.values()):
        problems.append(f"the stubs: grade exited {code} with {stubs}; expected every test failing, no answer right")
    _solve(root, student)
    code, text, solved = _grade(student, build)
    if code != 0 or any(v[0] != v[1] or v[2] != v[3] or not v[1] for v in solved.values()):
        problems.append(f"the reference kernels: grade exited {code} with {solved}; expected everything passing")
    if "Points: 30 of 30" not in text:
        problems.append("the reference kernels: no 'Points: 30 of 30' line")
    for args in (("handout", "--edition", "instructor"), ("docs", "--instructor")):
        code, text = _run(student, *args)
        if code == 0 or "for instructors" not in text:
            problems.append(f"./workbook {' '.join(args)} in the release exited {code}: {text.strip()[-300:]}")

    # Summative: no key in the release, so every answer is sent on, none right, none failed.
    problems += _take_over(summative, student)
    _solve(root, student)
    code, text, sent = _grade(student, build)
    if code != 0 or any(v[0] != v[1] or v[2] != 0 for v in sent.values()) or \
            "answers your course's autograder checks are not counted here" not in text:
        problems.append(f"summative, reference kernels and answers: grade exited {code} with {sent}; expected every "
                        "test passing, every answer sent on to the autograder and said so")

    for p in problems:
        print(f"FAIL {p}")
    print(f"release of {', '.join(SECTIONS)}: stubs {stubs}, reference {solved}, summative {sent}; "
          f"{len(problems)} problems")
    return 1 if problems else 0
