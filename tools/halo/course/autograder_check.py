"""The Gradescope autograder, end to end: builds the zip, unpacks it into a fake autograder
root and runs its run_autograder on three submissions:

  (a) the reference solutions, as a tree shaped like exercises/: full score;
  (b) the untouched stubs, as loose kernel files: zero, and no crash;
  (c) a partial submission nested in a folder: the solutions of 7.1 and 7.3, one known-wrong
      kernel (7.2, ghost cells not skipped) and one syntax error (a semicolon deleted in 7.4),
      and nothing of the other sections: a partial score, 7.4's tests at zero with the
      compiler's error in their output, 7.1 and 7.3 full, the sections not handed in at zero
      (graded as their stubs, which (a) and (b) already grade whole; judged without a run).

Each results.json is validated against the fields of Gradescope's specification. The three
runs share one build folder, so only the first configures CMake and compiles the runtime.
setup.sh is not run (it installs packages); it is checked to be executable and complete.

    python3 -m halo.course.autograder_check [--work DIR]   (from tools/; CTest runs it, label project)

Slow (minutes): not part of the unit tests. Exit status 0 when every check holds."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from halo.course import export_autograder, export_classroom  # noqa: E402
from halo.core import wrong_kernels
from halo.course import variant_answers  # noqa: E402
from halo.core import assignment as assignments
from halo.course import emulated_limits  # noqa: E402
from halo.core import committed  # noqa: E402
from halo.core.chapter_data import load_chapter  # noqa: E402
from halo.course.export_gradescope import validate  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
WRONG_SECTION, WRONG_NAME = "7.2", "ghost cells not skipped"
BROKEN_SECTION, BROKEN_TEXT = "7.4", "__syncthreads();"  # its semicolon is deleted
# The sections (c) hands in right; of the others it hands in nothing.
RIGHT_SECTIONS = ("7.1", "7.3")
ASSIGNMENT_SECTIONS, ASSIGNMENT_STUDENT = ("7.2", "7.4"), "ada-7001"
ASSIGNMENT_SECRET = "halo autograder check secret"


class Check:
    def __init__(self):
        self.failures = []

    def that(self, ok, what):
        print(f"  {'ok  ' if ok else 'FAIL'} {what}", flush=True)
        if not ok:
            self.failures.append(what)


def _points(section):
    return sum(float(v or 0) for v in section.points.values())


def _section_scores(doc, section_id, tags=None):
    tests = [t for t in doc.get("tests", []) if t.get("tags", [None])[0] == section_id
             and (tags is None or t.get("tags", [None, None])[1] in tags)]
    return sum(t["score"] for t in tests), sum(t["max_score"] for t in tests), tests


def _copy_tree(src, dest):
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__", "*.orig", "*.bak"))


def _submission_solutions(chapter, dest, only=None):
    for s in chapter.sections:
        if only is None or s.id in only:
            _copy_tree(ROOT / "solutions" / s.folder, dest / s.folder)


def _submission_stubs(chapter, dest):
    """The stubs' kernels as loose files (the other shape a submission can take), no answers:
    the committed stubs, never this checkout's exercises/, which may hold a student's work."""
    dest.mkdir(parents=True)
    committed_stubs = committed.files(ROOT, "exercises")
    for s in chapter.sections:
        for k in s.kernels:
            (dest / k).write_bytes(committed_stubs[f"exercises/{s.folder}/{k}"])


def _submission_broken(chapter, dest):
    tree = dest / "my-halo" / "exercises"  # nested, as a zip of a whole repository would be
    _submission_solutions(chapter, tree, RIGHT_SECTIONS + (WRONG_SECTION, BROKEN_SECTION))
    wrong_section = chapter.section(WRONG_SECTION)
    wrong = next(w for w in wrong_kernels.load(ROOT, wrong_section) if w.name == WRONG_NAME)
    wrong_kernels.write_tree(ROOT, wrong_section, wrong, tree / wrong_section.folder)
    broken = chapter.section(BROKEN_SECTION)
    kernel = tree / broken.folder / broken.kernels[0]
    text = kernel.read_text()
    if text.count(BROKEN_TEXT) != 1:
        raise SystemExit(f"autograder_check: {BROKEN_TEXT!r} should occur once in {kernel}")
    kernel.write_text(text.replace(BROKEN_TEXT, BROKEN_TEXT.rstrip(";")))


def _submission_assignment(chapter, dest):
    """(d) The reference kernels of the assignment's sections with the answer key of the
    submitter's own variant, graded with the zip's course file (secret and assignment)."""
    keys = dest.parent / "keys"
    shutil.rmtree(keys, ignore_errors=True)
    variant_answers.write_variant_answers(chapter, [ASSIGNMENT_STUDENT], keys, ASSIGNMENT_SECRET, with_key=True)
    for sid in ASSIGNMENT_SECTIONS:
        s = chapter.section(sid)
        _copy_tree(ROOT / "solutions" / s.folder, dest / s.folder)
        shutil.copyfile(keys / ASSIGNMENT_STUDENT / s.folder / "answers.toml", dest / s.folder / "answers.toml")


def _run(fake, name, make_submission, chapter, limits=False):
    submission = fake / "submission"
    shutil.rmtree(submission, ignore_errors=True)
    make_submission(chapter, submission)
    shutil.rmtree(fake / "results", ignore_errors=True)
    metadata = fake / "submission_metadata.json"
    metadata.unlink(missing_ok=True)
    if make_submission is _submission_assignment:  # who submitted, as Gradescope writes it
        metadata.write_text(json.dumps({"users": [{"name": "Ada", "sid": ASSIGNMENT_STUDENT}]}))
    log = fake / f"run-{name}.log"
    start = time.monotonic()
    with emulated_limits.limited([str(fake / "run_autograder")]) as (argv, how), open(log, "w") as f:
        if not limits:
            argv, how = [str(fake / "run_autograder")], ""
        p = subprocess.run(argv, cwd=fake, stdout=f, stderr=subprocess.STDOUT,
                           env=dict(os.environ, AUTOGRADER_ROOT=str(fake)))
    if how:
        print(f"  under Gradescope's limits, emulated: {how}", flush=True)
    seconds = time.monotonic() - start
    results = fake / "results" / "results.json"
    doc = json.loads(results.read_text()) if results.exists() else None
    return p.returncode, seconds, doc, log


def main(argv=None):
    ap = argparse.ArgumentParser(description="the Gradescope autograder, end to end")
    ap.add_argument("--work", metavar="DIR", help="a folder kept between runs (the build is reused); "
                                                  "default: a temporary folder, removed after")
    ap.add_argument("--gradescope-limits", action="store_true",
                    help="first build as setup.sh does, then run each submission under Gradescope's default limits "
                         "(half a CPU, 768 MB), emulated (course/emulated_limits.py), and print the times")
    args = ap.parse_args(argv)
    chapter = load_chapter(ROOT)
    full = sum(_points(s) for s in chapter.sections)
    work = Path(args.work).resolve() if args.work else Path(tempfile.mkdtemp(prefix="halo-autograder-"))
    check = Check()
    try:
        work.mkdir(parents=True, exist_ok=True)
        fake = work / "autograder"
        print(f"building the autograder zip and unpacking it into {fake}", flush=True)
        zip_path = work / "gradescope-autograder.zip"
        export_autograder.build_zip(ROOT, zip_path)
        shutil.rmtree(fake / "source", ignore_errors=True)  # halo-work/ (the build) is kept
        export_autograder.extract(zip_path, fake / "source")
        shutil.copy2(fake / "source" / "run_autograder", fake / "run_autograder")  # as Gradescope does

        setup = fake / "source" / "setup.sh"
        check.that(setup.is_file() and os.access(setup, os.X_OK), "setup.sh is at the zip's root, executable")
        check.that(os.access(fake / "run_autograder", os.X_OK), "run_autograder is executable")
        missing = [p for p in export_classroom.apt_packages() + ["python3", "python3-pip"]
                   if p not in setup.read_text()]
        check.that(export_classroom.apt_packages() and not missing, f"setup.sh installs the packages {missing or ''}")
        check.that(not (fake / "source" / "halo" / "solutions").exists(), "the zip does not carry solutions/")

        if args.gradescope_limits:  # the image Gradescope builds with setup.sh holds this build
            print("building as setup.sh does (grading the stubs once, no limits)...", flush=True)
            work_dir = fake / "halo-work"
            shutil.rmtree(work_dir / "exercises", ignore_errors=True)
            work_dir.mkdir(parents=True, exist_ok=True)
            shutil.copytree(fake / "source" / "halo" / "exercises", work_dir / "exercises")
            subprocess.run([str(fake / "source" / "halo" / "workbook"), "grade", "--exercises",
                            str(work_dir / "exercises"), "--build-dir", str(work_dir / "build")],
                           cwd=fake / "source" / "halo", capture_output=True)
        runs = [("solutions", _submission_solutions), ("stubs", _submission_stubs), ("broken", _submission_broken)]
        docs, timings = {}, {}
        for name, make in runs:
            print(f"\n({name}) run_autograder...", flush=True)
            rc, seconds, doc, log = _run(fake, name, make, chapter, args.gradescope_limits)
            timings[name] = seconds
            docs[name] = doc
            check.that(rc == 0, f"run_autograder exits 0 (it exited {rc}; log: {log})")
            check.that(doc is not None, "results.json was written")
            if doc is None:
                continue
            problems = validate(doc)
            check.that(not problems, "results.json follows Gradescope's specification"
                       + ("".join(f"\n       {p}" for p in problems[:10]) if problems else ""))
            worth = sum(t.get("max_score", 0) for t in doc.get("tests", []))
            check.that(abs(worth - full) < 0.01, f"the tests are worth the manifest's {full:g} points ({worth:g})")
            print(f"  score {doc.get('score')} of {full:g} in {seconds:.0f} s", flush=True)

        a, b, c = docs.get("solutions"), docs.get("stubs"), docs.get("broken")
        if a:
            check.that(abs(a["score"] - full) < 0.01, f"(a) the solutions get full score ({a['score']} of {full:g})")
            for t in a["tests"]:
                if t.get("status") == "failed":
                    print(f"       failed: {t['name']}: {t['output'][:300]}")
        if b:
            check.that(b["score"] == 0, f"(b) the stubs get zero ({b['score']})")
            check.that(len(b["tests"]) > len(chapter.sections), "(b) the stubs' tests are all reported")
        if c:
            check.that(0 < c["score"] < full, f"(c) the broken submission gets a partial score ({c['score']} of {full:g})")
            got, worth, tests = _section_scores(c, BROKEN_SECTION, ("build", "correct", "loads", "diagnostics"))
            broken_points = float(chapter.section(BROKEN_SECTION).points.get("tests", 0))
            check.that(got == 0 and abs(worth - broken_points) < 0.01,
                       f"(c) {BROKEN_SECTION}'s tests score 0 of {broken_points:g} ({got:g} of {worth:g})")
            check.that(any("error:" in t["output"] and "convolution_1d_tiled.cu" in t["output"] for t in tests),
                       f"(c) {BROKEN_SECTION}'s output shows the compiler's error")
            got, worth, _ = _section_scores(c, WRONG_SECTION, ("correct", "loads", "diagnostics"))
            check.that(got < worth, f"(c) {WRONG_SECTION}'s wrong kernel loses points ({got:g} of {worth:g})")
            for s in chapter.sections:
                if s.id in (WRONG_SECTION, BROKEN_SECTION):
                    continue
                got, worth, _ = _section_scores(c, s.id)
                if s.id in RIGHT_SECTIONS:
                    check.that(abs(got - worth) < 0.01 and worth > 0, f"(c) {s.id} is full ({got:g} of {worth:g})")
                else:
                    check.that(got == 0 and worth > 0, f"(c) {s.id}, not handed in, is zero ({got:g} of {worth:g})")
            for sid in (WRONG_SECTION, BROKEN_SECTION):
                got, worth, _ = _section_scores(c, sid, ("answers",))
                print(f"  (c) {sid} answers: {got:g} of {worth:g} (not asserted: some compare with measured kernels)")
        # (d) The zip of an assignment: its course file (secret, sections, points) carried inside.
        course = fake / "source" / "halo" / "course.toml"
        course.write_text(f'secret = "{ASSIGNMENT_SECRET}"\n\n[assignments.check]\nsections = ['
                          + ", ".join(f'"{i}"' for i in ASSIGNMENT_SECTIONS) + "]\n")
        try:
            print("\n(assignment) run_autograder with a course file in the zip...", flush=True)
            rc, seconds, d, log = _run(fake, "assignment", _submission_assignment, chapter, args.gradescope_limits)
            timings["assignment"] = seconds
            worth_d = assignments.load(chapter, ROOT, None, course).total()
            check.that(d is not None and not validate(d), f"(d) results.json written and valid (log: {log})")
            if d:
                worth = sum(t.get("max_score", 0) for t in d.get("tests", []))
                check.that(abs(worth - worth_d) < 0.01, f"(d) scored out of the assignment's {worth_d:g} ({worth:g})")
                check.that(abs(d["score"] - worth_d) < 0.01,
                           f"(d) the reference with the submitter's variant key gets full score ({d['score']:g})")
                check.that({t["tags"][0] for t in d["tests"]} == set(ASSIGNMENT_SECTIONS),
                           "(d) only the assignment's sections are graded")
        finally:
            course.unlink(missing_ok=True)
        print("\ntimings: " + ", ".join(f"{k} {v:.0f} s" for k, v in timings.items()))
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    if check.failures:
        print(f"\n{len(check.failures)} check(s) failed")
        return 1
    print("\nthe Gradescope autograder grades solutions, stubs and a broken submission as it should")
    return 0


if __name__ == "__main__":
    sys.exit(main())
