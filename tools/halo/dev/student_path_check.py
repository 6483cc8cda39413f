"""`./workbook internal check-student-path --work DIR`: the paths a student takes tell the truth.

In a clone of the last commit (a student's checkout; its build/ kept between runs, and shared with
check-first-run and check-untouched-stubs, which CTest runs one at a time with this one):

1. With 7.2's reference kernel and answers in exercises/: `./workbook grade 7.2` passes, and
   `ctest -L 7.2` in build/grade, right after, passes too.
2. A known-wrong kernel written over it (ghost cells loaded instead of skipped): plain
   `ctest -L 7.2`, with no build in between, fails and prints the kernel's message (the rebuild
   before the tests, CTestCustom.cmake: not the stale program of step 1); `./workbook grade 7.2`
   fails with it too.
3. `cmake --workflow --preset grade` fails on the same kernel and prints the message.
4. Every block of grader output that the README and the lessons show is a quote of the grade
   runs of steps 1 and 2 (quoted_output.py).
"""
import os
import re
import shutil
import subprocess
from pathlib import Path

from ..core import grader_cache, toolchain
from ..core.build import jobs
from ..core.chapter_data import load_chapter
from ..course.term_check import course_repo
from . import quoted_output
from ..core import wrong_kernels
from ..core.workbook_argv import workbook_argv

SECTION = "7.2"


def _run(cmd, cwd):
    # Plain ctest and the workflow preset's test step run their tests as many at a time as grade
    # does (CTEST_PARALLEL_LEVEL, which ctest reads when no -j is given; a student may set it too):
    # one at a time, the preset's 221 tests of a chapter of stubs took 137 s of this check at load
    # 14. Which tests fail, and with which message, does not depend on it.
    env = dict(_env(), CTEST_PARALLEL_LEVEL=jobs())
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    return p.returncode, p.stdout + p.stderr


def _env():
    # A student's environment: none of the grader's own variables (a check's seed, report dir),
    # but the check's cache of the grader's libraries (core/grader_cache.py), which a student's
    # machine holds after `sudo ./workbook setup`: what these checks prove does not depend on who
    # built the libraries, and building them in the clone was 113 s of compiles of each check.
    env = {k: v for k, v in os.environ.items() if not k.startswith("HALO_") or k == grader_cache.ENV}
    env["NO_COLOR"] = "1"
    return env


def run_check(root, work):
    work = Path(work).resolve()
    repo = work / "student"
    course_repo(root, repo)
    tc = toolchain.ensure()
    chapter = load_chapter(repo)
    section = chapter.section(SECTION)
    folder = repo / "exercises" / section.folder
    build = repo / "build" / "grade"
    ctest = [tc.ctest, "--test-dir", str(build), "-L", f"^{re.escape(SECTION)}$"]
    grade = [*workbook_argv(repo), "grade", SECTION]
    problems, outputs = [], {}

    for run, (sid, wrong_name) in quoted_output.RUNS.items():
        if wrong_name is not None:
            continue
        # copyfile, not copytree's copy2: the copies must be newer than the build's objects, which
        # an earlier check of this clone may have built from another kernel; the solution files'
        # own times (the clone's checkout) are older, and the build would keep that program.
        shutil.copytree(repo / "solutions" / section.folder, folder, dirs_exist_ok=True,
                        copy_function=shutil.copyfile)
        code, outputs[run] = _run(grade, repo)
        print(outputs[run][-2500:])
        if code != 0:
            problems.append(f"./workbook grade {sid} failed the reference kernel")
    code, out = _run(ctest, repo)
    print(out[-1500:])
    if code != 0 or "100% tests passed" not in out:
        problems.append(f"ctest -L {SECTION} after grade, on the reference kernel: exit {code}, expected a pass")

    for run, (sid, wrong_name) in quoted_output.RUNS.items():
        if wrong_name is None:
            continue
        wrong = next(w for w in wrong_kernels.load(repo, chapter.section(sid)) if w.name == wrong_name)
        wrong_kernels.write_tree(repo, chapter.section(sid), wrong, repo / "exercises" / chapter.section(sid).folder)
        code, out = _run(ctest, repo)
        print(out[-4000:])
        if code == 0:
            problems.append(f"plain ctest -L {sid} passed the wrong kernel '{wrong_name}': it ran the stale program")
        elif not re.search(wrong.expect, out):
            problems.append(f"plain ctest -L {sid} failed '{wrong_name}' without its message /{wrong.expect}/")
        code, outputs[run] = _run(grade, repo)
        if code == 0 or not re.search(wrong.expect, outputs[run]):
            problems.append(f"./workbook grade {sid} on '{wrong_name}': exit {code}, message /{wrong.expect}/ "
                            f"{'missing' if not re.search(wrong.expect, outputs[run]) else 'there'}")
        code, out = _run([tc.cmake, "--workflow", "--preset", "grade"], repo)
        if code == 0:
            problems.append("cmake --workflow --preset grade passed a tree with a wrong kernel (and the stubs)")
        elif not re.search(wrong.expect, out):
            problems.append(f"cmake --workflow --preset grade failed without the message /{wrong.expect}/")

    problems += quoted_output.problems(repo, chapter, outputs)
    for p in problems:
        print(f"FAIL {p}")
    print(f"the student's paths (grade, plain ctest, the workflow preset, quoted output): {len(problems)} problems")
    return 1 if problems else 0
