"""`./workbook grade [SECTION...]`: builds the student's tree, runs its tests, prints a table
per section and writes results.json. Exit status 0 only when everything selected passes."""
import dataclasses
import os
import random
import shutil
import sys
from pathlib import Path

from ..core import (answers_phase, build, committed, grader_cache, intake, judge_runs, limits, paths, progress,
                    results, sandbox, scoring, sync, test_list, toolchain, untouched_stubs)
from ..core.assignment import RELEASE_FILE, whole_chapter
from . import ctest_hooks, record, status, variant_notice
from .first_failure import FirstFailure


def _label_regex(ids):
    return "^(" + "|".join(i.replace(".", r"\.") for i in ids) + ")$"


def _link_compile_commands(root, build_dir):
    """Editors look for compile_commands.json at the project root; point it at this build
    unless something is already there."""
    link = root / "compile_commands.json"
    if not link.exists() and not link.is_symlink():
        try:
            link.symlink_to(build_dir / "compile_commands.json")
        except OSError:
            pass  # a read-only or link-less file system: editors can be pointed at the build


def _expected_tests(root, sections):
    """The kernel tests each graded section must report, from the grader's own sources."""
    names = []
    for s in sections:
        if s.kernels:
            for source in test_list.section_sources(root, s.folder):
                names += test_list.test_names(source, "cpu")
    return names


def _stubs(root, build_dir):
    """What a file not submitted (or refused) is graded as: HEAD's exercises/ in a git checkout,
    never this checkout's edits (as grade-class), else exercises/ (the autograder's copy of a
    commit, which has no .git)."""
    if (root / ".git").exists():
        try:
            return committed.write(root, "exercises", build_dir / "stubs")
        except committed.CommittedError:
            pass
    return root / "exercises"


def _take_submission(root, chapter, tree, build_dir):
    """Another tree is a submission, read as grade-class and the Gradescope autograder read one
    (core/intake.py): its regular files copied over the stubs into the build folder before
    anything reads them; links, pipes, devices and oversized files refused, each in one line.
    Returns (the copy, the note, the stubs it was laid over)."""
    out, stubs = build_dir / "submission", _stubs(root, build_dir)
    notes = intake.take_submission(chapter, tree, stubs, out)
    print("\n".join(notes), flush=True)
    return out, notes, stubs


def _untouched(root, sections, exercises, stubs, gpu):
    """{section id: kernel bytes} of the sections still exactly the stub (core/untouched_stubs.py):
    against the stubs a submission was laid over, or for the student's own tree against what sync
    recorded writing (in a release, what it handed out). On the GPU a stub fails differently (its
    TODO does nothing): all run there."""
    if gpu:
        return {}
    reference = untouched_stubs.stubs_in_folder(stubs, sections) if stubs else \
        untouched_stubs.stubs_in_record(root / sync.RECORD, sections) or \
        untouched_stubs.stubs_in_record(root / untouched_stubs.HANDED_OUT, sections)
    return untouched_stubs.decide(sections, exercises, reference)


def _points_line(chapter, assignment, res):
    """What the run scores out of the assignment (its sections, its points), as an LMS would."""
    graded = [s for s in assignment.sections if s.id in res["sections"]]
    if not graded or not any(sum(s.points.values()) for s in graded):
        return None
    part = dataclasses.replace(assignment, sections=graded)
    sc = scoring.scores(res, chapter, part)
    got, worth = sum(g for g, _ in sc.values()), sum(w for _, w in sc.values())
    name = "the whole chapter" if assignment.whole_chapter else f"assignment {assignment.name}"
    of = "" if len(graded) == len(assignment.sections) else f" (the {len(graded)} of its {len(assignment.sections)} " \
                                                             "sections graded here)"
    sent = sum(results.answers_elsewhere(res["sections"][s.id]) for s in graded)
    later = f" The {sent} answers your course's autograder checks are not counted here." if sent else ""
    return f"Points: {got:g} of {worth:g}, scored as {name} scores them{of}.{later}"


def _targets(section, gpu):
    sid = section.id.replace(".", "_")
    return [f"judge_{sid}", f"test_{sid}_worker"] + ([f"test_{sid}_gpu"] if gpu else [])


# The course secret is for the answers checker only; the submission's identity too.
_NOT_FOR_TESTS = ("HALO_COURSE_SECRET", "HALO_STUDENT")


def _kernel_tests(root, tc, build_dir, sections, env, gpu, progress, on_failed):
    """The kernel tests of `sections`, as results.read_junit gives them. On the CPU each section's
    tests run a few to a judge process (core/judge_runs.py); on the GPU through CTest, whose
    tests carry the load counter's environment."""
    full_env = dict({k: v for k, v in os.environ.items() if k not in _NOT_FOR_TESTS}, **env)
    if not gpu:
        programs = [(build_dir / "grader" / f"test_{s.id.replace('.', '_')}", _expected_tests(root, [s]))
                    for s in sections if s.kernels]
        runner = judge_runs.Runner(full_env, build_dir / "grader", env["HALO_REPORT_DIR"], progress=progress,
                                   on_failed=on_failed)
        return runner.run(programs, int(build.jobs()))
    junit = Path(env["HALO_REPORT_DIR"]) / "junit-kernels.xml"
    build.run_ctest(tc, build_dir, junit=junit, env=env, progress=progress,
                    extra=["-L", _label_regex([s.id for s in sections]), "-LE", "^answers$"],
                    drop=_NOT_FOR_TESTS, on_failed=on_failed)
    return results.read_junit(junit)


def build_folder(root, build_dir=None):
    """Where grade builds: --build-dir, else build/grade."""
    return Path(build_dir).resolve() if build_dir else Path(root) / "build" / "grade"


def run(root, chapter, selected, exercises=None, build_dir=None, gpu=False, student=None, assignment=None):
    root = Path(root)
    build_dir = build_folder(root, build_dir)
    # A grade that stops, for any reason, from here on leaves no results rather than the last run's.
    results.discard(build_dir / "results.json", build_dir / "junit.xml")
    tight = limits.shortfall()  # one line now, rather than one failure per test
    if tight:
        print(tight, file=sys.stderr)
        return 2
    if assignment is None:
        assignment = whole_chapter(chapter)
    # Without SECTION, the assignment's sections (a release or a course file names them).
    sections = [chapter.section(s) for s in selected] if selected else \
        [chapter.section(s.id) for s in assignment.sections]
    own = not exercises
    exercises = Path(exercises).resolve() if exercises else root / "exercises"
    for s in sections:
        # lexists: a section folder that is a link is the intake's to refuse, by name.
        if not os.path.lexists(exercises / s.folder):
            print(f"halo: {exercises / s.folder} does not exist; --exercises must point at a tree shaped like exercises/",
                  file=sys.stderr)
            return 2
    notes, stubs = None, None
    if not own:
        exercises, notes, stubs = _take_submission(root, chapter, exercises, build_dir)
    # Decided on the copy that would be built (a submission's) before anything is built or run.
    untouched = _untouched(root, sections, exercises, stubs, gpu)

    tc = toolchain.ensure(cache_dir=build_dir)  # versions asked once per build folder
    if gpu and not tc.nvcc:
        print("halo: --gpu needs nvcc (the CUDA toolkit); grading on the CPU backend only", file=sys.stderr)
        gpu = False
    extra = {"HALO_GPU_TESTS": "ON" if gpu else "OFF"}
    if gpu:
        extra["HALO_SANITIZER_ROOT"] = toolchain.sanitizer_api(root, tc.nvcc)
    # Configured even when nothing is built: plain `ctest` and editors find the build as before.
    if not build.configure(root, build_dir, tc, "grade", exercises, extra=extra):
        return 2
    if exercises == root / "exercises":  # the student's own tree; grading another leaves no trace
        _link_compile_commands(root, build_dir)

    failures = {}
    built = [s for s in sections if s.kernels and s.id not in untouched]  # questions only, stubs: nothing to build
    targets = {s.id: _targets(s, gpu) for s in built}
    if built:
        what = f"{built[0].id} {built[0].slug}" if len(built) == 1 else f"{len(built)} sections"
        note = grader_cache.first_build_note(build_dir)
        if note:
            print(note, flush=True)
        with progress.Progress(f"building {what}"):
            # The sandbox probed once, here: each kernel file's compile is told what was found.
            failed = build.build_targets(tc, build_dir, [t for s in built for t in targets[s.id]],
                                         env=sandbox.handed_on())
        for s in built:
            mine = [t for t in targets[s.id] if t in failed]
            if mine:
                failures[s.id] = paths.without_root("\n".join(failed[t] for t in mine), root)
            # The last good program must not be graded in place of the broken source: without
            # it, every test of the section fails, saying the kernel file did not compile.
            for t in mine:
                (build_dir / "grader" / t).unlink(missing_ok=True)

    report_dir = build_dir / "report"
    shutil.rmtree(report_dir, ignore_errors=True)
    report_dir.mkdir(parents=True)
    seed = os.environ.get("HALO_SEED") or str(random.randrange(10**9))
    found = sandbox.announce("your kernels run")
    if found is None:
        return 2
    isolation, why = found
    print(f"running the tests (HALO_SEED={seed} replays these inputs)...", flush=True)
    # Answers last: some are compared with what this run's kernel tests measured. HALO_SANDBOX
    # pins the isolation found here: a judge that cannot start it fails rather than run weaker.
    env = {"HALO_REPORT_DIR": str(report_dir), "HALO_SEED": seed, "HALO_SANDBOX": isolation,
           ctest_hooks.DRIVER_ENV: "grade"}  # grade builds and reports itself: CTestCustom's hooks stand aside
    waiting = ("a test has run for a while: waiting for it; a launch that never ends is stopped once it has "
               "spent its CPU limit, and the section's other tests then fail at once with its message")
    # A section that does not compile has nothing to run: its tests are not run, and say why,
    # rather than counted as run ("15 of 15 run") before the compiler's errors.
    runnable = [s for s in sections if s.id not in failures and s.id not in untouched]
    label = "running the kernels tests" + (f" (not run: {', '.join(failures)} {'does' if len(failures) == 1 else 'do'} "
                                           "not compile)" if failures else "")
    shown = None  # the first failure, shown as it came
    tests = []
    if any(s.kernels for s in runnable):
        with progress.Progress(label, idle_note=waiting) as p:
            first = FirstFailure(p)
            tests = _kernel_tests(root, tc, build_dir, runnable, env, gpu, p.update, first)
        shown = first.shown
    elif failures:
        print(f"{label}", flush=True)
    tests += results.not_compiled(_expected_tests(root, [s for s in built if s.id in failures]))
    for s in sections:
        if s.id in untouched:
            tests += untouched_stubs.results_of(s.id, _expected_tests(root, [s]), untouched[s.id],
                                                f"{exercises.resolve()}/{s.folder}", root)
    # In the order the tests are listed, however they came (CTest, or made here for a stub).
    expected = _expected_tests(root, sections)
    order = {name: k for k, name in enumerate(expected)}
    tests.sort(key=lambda t: order.get(t["name"], len(order)))
    with progress.Progress("checking the answers"):
        answered = answers_phase.run(chapter, sections, exercises, report_dir, student)
    results.write_junit(tests + answered, build_dir / "junit.xml")
    res = results.assemble(chapter, sections, tests + answered, expected, report_dir, failures, seed,
                   exercises, {"mode": isolation, "note": why}, student)
    if notes:
        res["submission"] = notes  # which files were graded and which refused, as grade-class keeps them
    results.save(res, build_dir / "results.json")
    own = record.save_run(root, res)
    results.print_failures(res, shown=shown)
    results.print_unmeasured(res)
    results.print_summary(res)
    in_course = (root / RELEASE_FILE).is_file()  # a course's release: its students answer their own variants
    if exercises == root / "exercises":  # the student's own tree, before they submit it
        for line in variant_notice.notices(chapter, sections, exercises, in_course):
            print(line)
    points = _points_line(chapter, assignment, res)
    if points:
        print(points)
    ok = results.passed(res)
    print(f"\n{'Everything passes.' if ok else 'Not everything passes yet.'} "
          f"Details: {os.path.relpath(build_dir / 'results.json')} (JUnit: {os.path.relpath(build_dir / 'junit.xml')})")
    if own:  # the student's own tree: what to do next, over every section graded so far
        print(status.next_line(root, chapter))
    return 0 if ok else 1
