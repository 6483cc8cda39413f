"""`./workbook check`: the project's own test suite (what CI runs). Builds everything in check
mode (reference solutions, stubs, known-wrong kernels, the runtime's own tests, the GPU
binaries when nvcc is present) and runs CTest. CTest's summary line is printed last."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from ..core import build, chapter_data, grader_cache, judge_cache, toolchain
from . import test_tools
from ..core.workbook_argv import workbook_argv

SUMMARY = re.compile(r"^(\d+)% tests passed, (\d+) tests? failed out of (\d+)")
# The two CTest runs, by the names their logs are kept under (the second run's LastTest.log
# replaces the first's): check_times.py reads both.
RUNS = ("tests", "answers")


def kept_log(build_dir, run) -> Path:
    return Path(build_dir) / "Testing" / "Temporary" / f"LastTest-check-{run}.log"


def run(root, build_dir=None):
    root = Path(root)
    build_dir = Path(build_dir).resolve() if build_dir else root / "build" / "check"
    _python_for_children()
    _grader_libraries_once(build_dir)
    tc = toolchain.ensure()
    print(f"halo check: clang {tc.cxx}, cmake {tc.cmake}, nvcc {tc.nvcc or 'not found'}", flush=True)
    # The tools' own tests render every handout (PDF included) and the docs site, and open the
    # site in a headless browser: what they need is installed beside the configure and the build
    # (test_tools.py), and its messages are printed before CTest starts.
    tools = test_tools.Background()
    try:
        code = _build(root, build_dir, tc)
    except BaseException:
        tools.stop()
        raise
    if not tools.finish():
        return 2
    if code != 0:
        return code
    # Two CTest runs: everything but the answers, then the answers, some of which are compared
    # with what the first run measured. CTest lists skipped and failed tests after each
    # summary, so the two summaries are added up in CTest's words on the last line.
    report_dir = build_dir / "report"
    shutil.rmtree(report_dir, ignore_errors=True)
    # What each known-wrong and learner kernel said, for `check --arch` to compare with.
    verdicts = build_dir / "verdicts"
    shutil.rmtree(verdicts, ignore_errors=True)
    # The chapter checked once for the tests' commands, not once each (chapter_data.load_chapter).
    env = dict(os.environ, HALO_REPORT_DIR=str(report_dir), HALO_VERDICT_DIR=str(verdicts),
               **{chapter_data.CHECKED_IN_ENV: str(build_dir)})
    totals, code = [0, 0], 0
    # One test a CPU. One more was tried twice on 2 CPUs: 792 s against 723 to 735 s with one a
    # CPU, on a slower hour; then the same commit 20 minutes after its fresh-clone CI, 686 s
    # against 689 s, 99 % busy against about 94 % (docs/results/check-times.md). The tests want
    # CPU, not more of them at once.
    jobs = build.jobs()
    for run, selection in ((RUNS[0], ["-LE", "^answers$"]), (RUNS[1], ["-L", "^answers$"])):
        cmd = [tc.ctest, "--test-dir", str(build_dir), "-j", jobs, "--no-tests=error",
               "--output-on-failure"] + selection
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        last = None  # CTest's own summary is its last; a failing test's output may hold others
        for line in proc.stdout:
            sys.stdout.write(line)
            last = SUMMARY.match(line) or last
        if last:
            totals[0] += int(last.group(2))
            totals[1] += int(last.group(3))
        code = proc.wait() or code
        _keep_log(build_dir, run)
    failed, total = totals
    print(f"\n{100 * (total - failed) // max(total, 1)}% tests passed, {failed} tests failed out of {total}")
    sys.stdout.flush()
    return code


def _keep_log(build_dir, run):
    last = Path(build_dir) / "Testing" / "Temporary" / "LastTest.log"
    if last.is_file():
        shutil.copyfile(last, kept_log(build_dir, run))


def _build(root, build_dir, tc) -> int:
    """The configure and the build; 0, or the check's exit status."""
    extra = {}
    if tc.nvcc:
        extra["HALO_SANITIZER_ROOT"] = toolchain.sanitizer_api(root, tc.nvcc)
    if not build.configure(root, build_dir, tc, "check", extra=extra):
        return 2
    # The stubs of the last commit (a configure writes them too, but only when CMake re-runs).
    if subprocess.run([*workbook_argv(root), "internal", "write-committed-stubs",
                       "--out", str(build_dir / "committed" / "exercises")]).returncode != 0:
        return 2
    if not build.build_all(tc, build_dir):
        print("halo check: the build failed (output above)", file=sys.stderr)
        return 1
    grader_cache.publish(tc, build_dir)  # the project tests' trees of the same inputs import these
    judge_cache.publish(tc, build_dir)  # and link these judges
    return 0


def _python_for_children():
    """The check starts some three thousand short Python processes (every ./workbook a project
    test runs, the compile launcher, the CTest entries written in Python): what each pays before
    its work is the check's cost, not the suite's (docs/results/check-times.md).
    - Bytecode: a machine that sets PYTHONDONTWRITEBYTECODE (this project's development machine
      does) makes every one of them compile the tools it imports from source. The check lets
      Python keep its bytecode beside the sources, as a student's Python does (__pycache__ is
      ignored by git; the red team, which compares its trees file by file, compiles its own
      before its grades). Not PYTHONPYCACHEPREFIX: it moves the standard library's bytecode too,
      which a process that cannot write there (a test's other user) then compiles every time.
    - The interpreter: `python3` on PATH may be a version manager's shim (pyenv's starts some 40
      processes, 0.15 s of CPU, before Python). The check's own interpreter goes first on its
      children's PATH, so a script's `python3` is the one the check runs in."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    here = str(Path(sys.executable).parent)
    os.environ["PATH"] = os.pathsep.join([here] + [p for p in os.environ.get("PATH", "").split(os.pathsep) if p != here])


def _grader_libraries_once(build_dir):
    """The project tests make some eight trees of this commit and grade each (clones, releases,
    the class harness, the Gradescope fake root): the check's own build publishes the grader's
    libraries, and every tree whose inputs are the same imports them (core/grader_cache.py; a
    release, whose chapters differ, builds and publishes its own). Emptied first: one build per
    check, from this check's sources."""
    cache = build_dir / "grader-cache"
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True)
    os.environ[grader_cache.ENV] = str(cache)
