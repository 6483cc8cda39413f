"""The files a release writes for its students: README.md, .gitignore and the release marker.

The README is the first thing a student sees on GitHub, so it names their assignment, its
sections and due date, and the commands of the loop, with their own section ids in them.
"""
import json

from .guard import MARKER

GITIGNORE = """\
# What grading and editors write; never part of your work.
/build/
/compile_commands.json
__pycache__/
*.pyc
/.venv/
/.halo/
/.halo-backups/
# A course file holds a course secret: it never belongs in a student's repository.
/course.toml
"""


def _toml_string(text):
    return json.dumps(str(text), ensure_ascii=False)  # a JSON string is a TOML basic string


def marker(assignment, commit, created):
    """The marker's text: what this release is and where it comes from."""
    return "\n".join([
        "# A student release of Halo, written by `./workbook release` in the course's own repository.",
        "# Commands for instructors (answer keys, reference kernels, sync, check, the autograder export,",
        "# release) refuse to run where this file is.",
        f"assignment = {_toml_string(assignment.name)}",
        f"mode = {_toml_string(assignment.release)}",
        "sections = [" + ", ".join(_toml_string(i) for i in assignment.ids) + "]",
        f"source_commit = {_toml_string(commit)}",
        f"created = {_toml_string(created)}",
    ]) + "\n"


def _points(section):
    parts = [f"{v} for the {k}" for k, v in (section.points or {}).items() if v]
    return ", ".join(parts) if parts else "no points"


def readme(assignment, withheld):
    """README.md of the release. `withheld`: {section id: number of questions whose answers
    only the course's autograder checks}."""
    ids = " ".join(assignment.ids)
    first = assignment.sections[0]
    lines = [f"# {assignment.title}", "",
             f"Your assignment **{assignment.name}** of the CUDA convolution workbook (chapter 7 of *Programming "
             "Massively Parallel Processors*): you write the chapter's kernels and answer its questions; "
             "`./workbook grade` runs your kernels on your CPU (no GPU needed) and tells you what is right, how "
             "many loads each array took against the chapter's formulas and, when something is wrong, which "
             "thread touched which element on which line.", ""]
    if assignment.due:
        lines += [f"**Due: {assignment.due}.**", ""]
    lines += ["| section | title | where you write | points |", "|---|---|---|---|"]
    for s in assignment.sections:
        where = ", ".join(f"`exercises/{s.folder}/{k}`" for k in s.kernels)
        where = (where + " and " if where else "") + f"`exercises/{s.folder}/answers.toml`"
        lines.append(f"| {s.id} | {s.title} | {where} | {_points(s)} |")
    lines += ["", "## The loop", "",
              f"1. Read the lesson: `./workbook lesson {first.id}` (its source is "
              f"`chapters/{first.folder}/lesson.md`).",
              "2. Write the kernel where the `HALO_TODO` line is, and delete that line.",
              "3. Answer the questions in the section's `answers.toml` (numbers, not strings).",
              f"4. Grade: `./workbook grade {ids}` (or one section: `./workbook grade {first.id}`). Read the "
              "first failure first: it names the thread, the array, the element and the line.",
              "5. Hand it in: `./workbook submit --to classroom` (GitHub Classroom: it lists what is not "
              "committed and the commands; what is pushed is what your course grades) or `./workbook submit "
              "--to gradescope` (it writes the zip to upload as it is). Both check your files first. "
              "[docs/student.md](docs/student.md), \"Submitting\", says more.", "",
              "Along the way:", "", "```sh",
              f"./workbook hint {first.id}      # the next hint of a section (they unfold one at a time)",
              "./workbook status          # where you stand (each section as its latest grade run left it), what to do next",
              f"./workbook watch {first.id}     # grade again every time you save a file of the section",
              "```", "",
              "The first `./workbook grade` installs what is missing on Debian or Ubuntu (clang 14 or newer, "
              "CMake, Ninja, Boost.Context, doctest; when it cannot, it prints the command to run, `sudo ./workbook "
              "setup`, which also builds the grader's libraries and judges once for the machine) and builds the rest of "
              "the grader, which takes under a minute; later runs take seconds. Python 3.11 or newer "
              "(3.9 with `python3-tomli`) runs `./workbook`. Every test of an untouched exercise fails, with a "
              "message saying what is still to do.", "",
              "On a Mac, on Windows or with no machine at all: open this repository in its Dev Container "
              "(`.devcontainer/`, everything grading needs on Debian 12): **Code → Codespaces → Create codespace** "
              "on GitHub, or VS Code's **Reopen in Container** with Docker Desktop, OrbStack or Colima (on "
              "Windows, WSL2 also runs `./workbook` directly). [docs/platforms.md](docs/platforms.md) says how "
              "each is tested.", ""]
    if withheld:
        counted = ", ".join(f"{n} in {sid}" for sid, n in withheld.items())
        lines += ["## Answers", "",
                  f"This assignment is summative: the answers to the questions ({counted}) are checked by your "
                  "course's autograder, not here. `./workbook grade` says whether each one is answered and "
                  "written as a number (or a list of numbers), and reports it as checked by your course's "
                  "autograder: never as right or wrong. The kernel tests run here as usual.", ""]
    else:
        lines += ["## Answers", "",
                  "`./workbook grade` checks your answers too. Some are compared with what your own kernels "
                  f"measured, so grade the sections together: `./workbook grade {ids}`.", ""]
    lines += ["## More", "",
              "- [docs/getting-started.md](docs/getting-started.md) and [docs/student.md](docs/student.md): the "
              "workbook for students; [docs/grader.md](docs/grader.md): what each test checks and how.",
              "- `./workbook docs` builds the lessons and guides as a site into `build/site/`.",
              "- Every grade run writes `build/grade/results.json`; `HALO_SEED=<seed> ./workbook grade` replays "
              "a run's random inputs (the seed is printed).", ""]
    return "\n".join(lines)


__all__ = ["GITIGNORE", "MARKER", "marker", "readme"]
