"""`./workbook internal check-first-run --work DIR`: a new student's first grades, run for real.

In a clone of the last commit (its build/ kept between runs):

1. `./workbook grade` of the untouched stubs, the whole chapter: at most MAX_LINES lines; for
   each kernel section one line "SECTION SLUG: still a stub — open FILE, TODO at line N" whose
   every FILE:N is a HALO_TODO line of the stub; "Next:" on 7.2, where the README's walk starts;
   no path printed from the file system's root; and, its tests run (HALO_RUN_STUBS=1), the 7.2
   test named "width smaller than the mask" logs a width smaller than the mask.
2. A 7.2 kernel file that does not compile, `./workbook grade 7.2`: the progress line says its
   tests were not run (never "15 of 15 run"), the compiler's error names the file from the
   repository root, and the table's "no build" keeps its column.
"""
import json
import re
import subprocess
from pathlib import Path

from ..core.chapter_data import load_chapter
from ..course.term_check import course_repo
from .student_path_check import _env
from ..core.workbook_argv import workbook_argv

MAX_LINES = 60  # issue 36: the untouched chapter's first grade fits a screen or two
FIRST = "7.2"  # the README's walk starts here
STUB_LINE = re.compile(r"^(\d+\.\d+) (\S+): still a stub — open (.*?)(?:; |$)")
TODO_AT = re.compile(r"(\S+), TODOs? at lines? ([\d, ]+)")


def _grade(repo, *args, env=None):
    p = subprocess.run([*workbook_argv(repo), "grade", *args], cwd=repo, capture_output=True,
                       text=True, env=dict(_env(), **(env or {})))
    return p.stdout + p.stderr


def stub_problems(repo, chapter, out):
    """What is wrong with the output `out` of a first grade of the untouched stubs in `repo`."""
    lines = out.splitlines()
    problems = [] if len(lines) <= MAX_LINES else [f"the first grade printed {len(lines)} lines, more than {MAX_LINES}"]
    said = {m.group(1): m for m in map(STUB_LINE.match, lines) if m}
    for s in chapter.sections:
        if not s.kernels:
            continue
        m = said.get(s.id)
        if m is None or m.group(2) != s.slug:
            problems.append(f"no line '{s.id} {s.slug}: still a stub — open ...'")
            continue
        for path, numbers in TODO_AT.findall(m.group(3)):
            source = (repo / path).read_text().splitlines() if (repo / path).is_file() else []
            for n in map(int, numbers.split(", ")):
                if not (0 < n <= len(source) and "HALO_TODO(" in source[n - 1]):
                    problems.append(f"{s.id}: {path}:{n} is not a HALO_TODO line of the stub")
    if not any(line.startswith(f"Next: {FIRST}:") for line in lines):
        problems.append(f"'Next:' does not name {FIRST}")
    if str(repo) in out:
        problems.append(f"a path from the file system's root ({repo}) was printed")
    return problems


def logged_problems(repo, chapter):
    """The 7.2 test named "width smaller than the mask" logs such a launch. The first grade takes
    an untouched stub's results without running it (core/untouched_stubs.py), so 7.2's stub is
    graded again here with its tests run (HALO_RUN_STUBS=1), as before that shortcut."""
    _grade(repo, FIRST, env={"HALO_RUN_STUBS": "1"})
    problems = []
    results = json.loads((repo / "build" / "grade" / "results.json").read_text())
    name = f"{FIRST} {chapter.section(FIRST).slug} / correct / width smaller than the mask"
    logged = [t["message"] for t in results["tests"] if t["name"] == name]
    sizes = re.search(r"logged: Width = (\d+), Mask_Width = (\d+)", logged[0]) if logged else None
    if not sizes or int(sizes.group(1)) >= int(sizes.group(2)):
        problems.append(f"'{name}' {sizes.group(0) if sizes else 'logged no launch'}: not a width smaller than the mask")
    return problems


def broken_problems(repo, out, section):
    """What is wrong with the output of `grade SECTION` on a kernel file that does not compile."""
    problems = []
    lines = out.splitlines()
    if re.search(r"\d+ of \d+ run", out) or f"(not run: {section.id} does not compile)" not in out:
        problems.append("the progress line does not say the tests were not run because the file does not compile")
    if not re.search(rf"^\s*exercises/{re.escape(section.folder)}/\S+:\d+:\d+: error: ", out, re.M) or str(repo) in out:
        problems.append("the compiler's error does not name the kernel file from the repository root")
    header = next((line for line in lines if line.startswith("section ")), "")
    row = next((line for line in lines if line.startswith(section.id + " ")), "")
    end = header.find("tests") + len("tests")
    if row[end - len("  no build"):end] != "  no build":
        problems.append(f"the table's 'no build' is out of its column:\n{header}\n{row}")
    return problems


def run_check(root, work):
    work = Path(work).resolve()
    repo = work / "student"
    course_repo(root, repo)
    chapter = load_chapter(repo)
    out = _grade(repo)
    print(out)
    problems = stub_problems(repo, chapter, out) + logged_problems(repo, chapter)

    section = chapter.section(FIRST)
    kernel = repo / "exercises" / section.folder / section.kernels[0]
    stub = kernel.read_text()
    kernel.write_text(stub.replace("HALO_TODO(", "int not_an_expression = ; HALO_TODO(", 1))
    out = _grade(repo, FIRST)
    print(out)
    kernel.write_text(stub)
    problems += broken_problems(repo, out, section)
    for p in problems:
        print(f"FAIL {p}")
    print(f"a new student's first grades: {len(problems)} problems")
    return 1 if problems else 0
