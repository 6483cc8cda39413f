"""`./workbook internal check-term --work DIR`: a term as docs/instructor.md walks it.

The commands are read from the page (the sh block under "A term, step by step"), never copied
here, and run as one shell script (`set -e`) in a clone of the last commit, the instructor's
course repository, with the generated class of class_fixture.py as `../conv1d-submissions` and
its course file as `course.toml`. Then: the release holds the Classroom workflow and is a
repository with one commit, the Gradescope zip carries the assignment, and the gradebook that
grade-class wrote scores every one of the 20 submissions as expected, with the status expected
(class_fixture.verify), and grade-class's last line names the students who need a look. The
variant flow on both platforms is term_variants.py's.
"""
import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

from ..core import statuses
from ..core.assignment import load
from . import class_fixture, term_classroom, term_variants

PAGE = Path("docs") / "instructor.md"
HEADING = "## A term, step by step"
ASSIGNMENT = "conv1d"


def walk(root):
    """The lines of the page's term block, comments and blank lines left out."""
    text = (Path(root) / PAGE).read_text()
    if HEADING not in text:
        raise ValueError(f"{PAGE} has no section {HEADING!r}")
    block = re.search(r"```sh\n(.*?)```", text.split(HEADING, 1)[1], re.S)
    if not block:
        raise ValueError(f"{PAGE}: no sh block under {HEADING!r}")
    return [line for line in block.group(1).splitlines() if line.strip() and not line.lstrip().startswith("#")]


def _git(*args, cwd=None):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def course_repo(root, repo):
    """A clone of root's last commit at `repo`, updated in place so that its build/ stays warm.
    Checks that share a clone (one at a time) each start from a new student's: the last commit's
    files, no student record (.halo/), only the build kept."""
    if (repo / ".git").is_dir():
        _git("fetch", "-q", str(root), "HEAD", cwd=repo)
        _git("reset", "-q", "--hard", "FETCH_HEAD", cwd=repo)
        _git("clean", "-fdq", cwd=repo)  # untracked files go; ignored ones (build/) stay
        shutil.rmtree(repo / ".halo", ignore_errors=True)  # ignored too, but a student's, not a build's
    else:
        _git("clone", "-q", "--no-hardlinks", str(root), str(repo))


def _run_showing(script, cwd, env):
    """(exit status, what it printed) of a bash script, its lines shown as they come."""
    proc = subprocess.Popen(["bash", "-c", script], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, errors="replace")
    printed = []
    for line in proc.stdout:
        print(line, end="", flush=True)
        printed.append(line)
    return proc.wait(), "".join(printed)


def run_check(root, chapter, work):
    root, work = Path(root).resolve(), Path(work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    lines = walk(root)
    repo = work / "course"
    course_repo(root, repo)
    expected = class_fixture.write(root, chapter, work / "fixture")
    shutil.copyfile(work / "fixture" / "course.toml", repo / "course.toml")
    for name in ("conv1d", "conv1d-submissions"):
        shutil.rmtree(work / name, ignore_errors=True)
    shutil.move(str(work / "fixture" / "submissions"), str(work / "conv1d-submissions"))
    term_classroom.lay_out(work, work / "conv1d-submissions", repo / "course.toml")  # step 5's clones
    sections = load(chapter, repo, ASSIGNMENT).sections
    term_variants.prepare(chapter, sections, work)  # the roster and the Classroom clones the page names
    env = {k: v for k, v in os.environ.items() if k != "HALO_COURSE_SECRET"}
    env.update(GIT_AUTHOR_NAME="Course", GIT_AUTHOR_EMAIL="course@example.edu",
               GIT_COMMITTER_NAME="Course", GIT_COMMITTER_EMAIL="course@example.edu")
    script = "set -eu\n" + "".join(f"echo '+ {line}'\n{line}\n" for line in lines)
    status, printed = _run_showing(script, repo, env)
    if status != 0:
        print(f"FAIL the term's commands (from {PAGE}) stopped with exit status {status}")
        return 1

    problems = []
    release = work / "conv1d"
    if not (release / ".github" / "workflows" / "classroom.yml").is_file():
        problems.append("the release has no .github/workflows/classroom.yml")
    commits = subprocess.run(["git", "-C", str(release), "rev-list", "--count", "HEAD"], capture_output=True, text=True)
    if commits.stdout.strip() != "1":
        problems.append(f"the release is not a repository of one commit ({commits.stdout.strip() or commits.stderr})")
    with zipfile.ZipFile(repo / "build" / "gradescope-autograder.zip") as z:
        if f"[assignments.{ASSIGNMENT}]" not in z.read("halo/course.toml").decode():
            problems.append(f"the autograder zip's course file has no assignment {ASSIGNMENT}")
    problems += term_variants.verify(chapter, sections, work, repo) + term_variants.gradebook_problems(work, repo)
    out = repo / "build" / "class" / ASSIGNMENT
    problems += class_fixture.verify(expected, out, sections)
    problems += term_classroom.check(repo, expected)
    # grade-class's last line: every student whose status cell is not "graded", in the gradebook's order.
    look = statuses.need_a_look([(student, exp["status"]) for student, exp in sorted(expected.items())])
    if look not in printed.splitlines():
        problems.append(f"grade-class did not end with the line {look!r}")
    if look not in (root / PAGE).read_text().splitlines():  # the page quotes it under "Statuses"
        problems.append(f"{PAGE} does not quote grade-class's last line {look!r}")
    for p in problems:
        print(f"FAIL {p}")
    print(f"a term as {PAGE} walks it: {len(expected)} submissions graded, {len(problems)} problems")
    return 1 if problems else 0
