"""`./workbook grade-class SUBMISSIONS`: grades a whole class and writes what an instructor needs.

The harness is built once (class_harness.py); then the submissions are graded in parallel, one
per core, each laid over the committed stubs (export_autograder.take_submission, as the
Gradescope autograder does), compiled in the sandbox and run by the judges
(class_submission.py). A broken submission (compile error, endless loop, crash, hostile code)
is graded like any other and named in the gradebook; an error of the grader itself is reported
for that student and the class goes on.

Each student's results stay under OUT/work/students/<student>/ with a fingerprint of what was
graded (the files, the workbook's commit, the sections); a later run (after Ctrl-C, or with
new submissions) skips every student whose fingerprint still matches. --fresh regrades all.

Outputs in OUT (default build/class/<assignment>): gradebook.csv, feedback/<student>.md and
.html, class-report.md, and timings.json (seconds per submission, for the benchmark).
"""
from __future__ import annotations

import concurrent.futures
import hashlib
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from . import export_autograder
from ..core import results as results_file
from ..core import limits, sandbox, statuses, toolchain, variants
from ..core.cpus import usable_cpus
from . import class_report, class_submission, feedback, gradebook
from .assignment import AssignmentError, load as load_assignment
from .class_harness import HarnessError, build_harness
from .class_submissions import SubmissionsError, find


def _fingerprint(root, sections, exercises):
    """What a student's results depend on: the graded files, the workbook's commit, the sections."""
    h = hashlib.sha256()
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    h.update(head.strip().encode() + b"\0" + ",".join(s.id for s in sections).encode() + b"\0")
    for s in sections:
        folder = Path(exercises) / s.folder
        for f in sorted(folder.rglob("*")) if folder.is_dir() else []:
            if f.is_file():
                h.update(str(f.relative_to(exercises)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


class Bar:
    """One line of progress: done of total, running, elapsed and an ETA from the submissions
    graded in this run (a terminal redraws it; a log gets a line per finished submission)."""

    def __init__(self, total, stream=None):
        self.total, self.done, self.graded_now = total, 0, 0
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty()
        self.start = time.monotonic()

    def _eta(self, running):
        left = self.total - self.done
        if not self.graded_now or not left:
            return "ETA -" if left else "done"
        per = (time.monotonic() - self.start) / self.graded_now
        return f"ETA {_clock(per * left)}"

    def update(self, running, finished=None):
        width = 24
        filled = int(width * self.done / self.total) if self.total else width
        line = (f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} graded, {running} running, "
                f"{_clock(time.monotonic() - self.start)} elapsed, {self._eta(running)}")
        if self.live:
            self.stream.write("\r\033[K" + line)
        elif finished:
            self.stream.write(f"{finished}\n  {line}\n")
        self.stream.flush()

    def close(self):
        if self.live:
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds):
    seconds = int(round(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


def _grade_one(ctx, sub):
    """Grades one submission; returns (student, results or None, error or None, seconds, resumed)."""
    root, chapter, assignment, harness, work, procs, isolation, seed = ctx
    home = work / "students" / sub.student
    exercises = home / "exercises"
    home.mkdir(parents=True, exist_ok=True)
    notes = export_autograder.take_submission(chapter, sub.path, harness.stubs, exercises)
    (home / "submission.txt").write_text("\n".join(notes) + "\n")
    mark = _fingerprint(root, assignment.sections, exercises)
    done = home / "fingerprint"
    if done.is_file() and done.read_text().strip() == mark and (home / "results.json").is_file():
        return sub.student, json.loads((home / "results.json").read_text()), None, None, True
    # Regraded: neither the last grade's results nor its fingerprint may outlive a stop half-way.
    results_file.discard(done, home / "results.json")
    start = time.monotonic()
    scratch = home / "grade"
    student_seed = seed if seed is not None else random.randrange(10**9)
    try:
        res = class_submission.grade(procs, harness, chapter, assignment.sections, exercises, scratch,
                                     student_seed, isolation, student=sub.student)
    except class_submission.Stopped:
        raise
    except Exception as e:  # the grader's own failure: this student is reported, the class goes on
        return sub.student, None, f"{type(e).__name__}: {e}", time.monotonic() - start, False
    res["submission"] = notes  # which files were graded and which refused, as grade keeps them
    results_file.save(res, home / "results.json")
    done.write_text(mark + "\n")
    return sub.student, res, None, time.monotonic() - start, False


def run(root, chapter, submissions, out=None, assignment_name=None, course=None, jobs=None, fresh=False):
    root = Path(root)
    tight = limits.shortfall()  # one line for the class, rather than a zero for every student
    if tight:
        print(tight, file=sys.stderr)
        return 2
    try:
        assignment = load_assignment(chapter, root, assignment_name, course)
    except AssignmentError as e:
        print(f"halo: {e}", file=sys.stderr)
        return 2
    if course and os.environ.get(variants.SECRET_ENV) is None:
        # The variants are checked with this course file's secret (answers.py reads the variable).
        try:
            os.environ[variants.SECRET_ENV] = variants.secret_from_env_or_file(root, course)
        except variants.VariantError as e:
            print(f"halo: {e}", file=sys.stderr)
            return 2
    out = Path(out) if out else root / "build" / "class" / assignment.name
    work = out / "work"
    # A run that stops before the end leaves no gradebook, never the last run's rows.
    results_file.discard(out / "gradebook.csv", out / "class-report.md")
    try:
        subs = find(submissions, unpack_to=work / "unpacked")
    except SubmissionsError as e:
        print(f"halo: {e}", file=sys.stderr)
        return 2
    tc = toolchain.ensure()
    found = sandbox.announce("the submissions run")
    if found is None:
        return 2
    seed = int(os.environ["HALO_SEED"]) if os.environ.get("HALO_SEED") else None
    print(f"grade-class: {len(subs)} submissions, assignment {assignment.name} "
          f"({', '.join(assignment.ids)}; {assignment.total():g} points)", flush=True)
    harness_start = time.monotonic()
    try:
        print("building the grading harness once (judges and runtime; later runs reuse it)...", flush=True)
        harness = build_harness(root, tc, assignment.sections, work)
    except HarnessError as e:
        print(f"halo: {e}", file=sys.stderr)
        return 2
    harness_seconds = time.monotonic() - harness_start
    if fresh:
        for f in (work / "students").glob("*/fingerprint"):
            f.unlink()
    procs = class_submission.Processes()
    ctx = (root, chapter, assignment, harness, work, procs, found, seed)
    cpus = usable_cpus()  # this process's share (affinity, cgroup quota, Slurm), not the host's
    jobs = max(1, jobs or cpus)
    # Each launch runs on HALO_THREADS workers (every usable CPU, by default); with `jobs`
    # submissions graded at once that oversubscribes them. Share them out instead (unless set by hand).
    threads_before = os.environ.get("HALO_THREADS")
    if threads_before is None:
        os.environ["HALO_THREADS"] = str(max(1, cpus // jobs))
    bar = Bar(len(subs))
    graded, timings = {}, {}
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
    try:
        pending = {pool.submit(_grade_one, ctx, s): s for s in subs}
        bar.update(min(jobs, len(pending)))
        while pending:
            finished, _ = concurrent.futures.wait(pending, timeout=1.0,
                                                  return_when=concurrent.futures.FIRST_COMPLETED)
            for fut in finished:
                sub = pending.pop(fut)
                try:
                    student, res, error, seconds, resumed = fut.result()
                except class_submission.Stopped:
                    raise
                except Exception as e:  # laying the files over failed, say: report it, go on
                    student, res, error, seconds, resumed = sub.student, None, f"{type(e).__name__}: {e}", 0.0, False
                graded[student] = (res, error)
                bar.done += 1
                if not resumed:
                    bar.graded_now += 1
                    timings[student] = round(seconds, 1)
                state = "resumed (already graded)" if resumed else \
                    f"{gradebook.status(res, assignment.sections, error)} in {seconds:.0f} s"
                bar.update(min(jobs, len(pending)), f"{student}: {state}")
            if not finished:
                bar.update(min(jobs, len(pending)))
    except (KeyboardInterrupt, class_submission.Stopped):
        procs.stop_all()
        pool.shutdown(wait=True, cancel_futures=True)
        bar.close()
        print(f"interrupted: {len(graded)} of {len(subs)} submissions graded; run the same command again to "
              "grade the rest (graded submissions are kept)", file=sys.stderr)
        return 130
    pool.shutdown(wait=True)
    bar.close()
    if threads_before is None:
        os.environ.pop("HALO_THREADS", None)
    _write_outputs(chapter, assignment, subs, graded, work, out, timings, harness_seconds, jobs)
    return 0


def _write_outputs(chapter, assignment, subs, graded, work, out, timings, harness_seconds, jobs):
    rows, by_student = [], {}
    fb = out / "feedback"
    fb.mkdir(parents=True, exist_ok=True)
    for sub in subs:
        res, error = graded[sub.student]
        sc = gradebook.scores(res, chapter, assignment) if res else gradebook.zero_scores(assignment)
        rows.append((sub.student, sc, gradebook.status(res, assignment.sections, error)))
        if res:
            by_student[sub.student] = res
            notes = (work / "students" / sub.student / "submission.txt").read_text()
            bs = feedback.blocks(sub.student, assignment, res, sc, notes)
            (fb / f"{sub.student}.md").write_text(feedback.markdown(bs))
            (fb / f"{sub.student}.html").write_text(feedback.to_html(bs, f"{assignment.title}: {sub.student}"))
    gradebook.write(out / "gradebook.csv", assignment, rows)
    report = class_report.render(assignment.ids, class_report.mistakes(by_student),
                                 _identical(assignment, subs, work))
    graded_now = [s for s in timings.values()]
    lines = [report.rstrip(), "", "## Time to grade", ""]
    if graded_now:
        per = sum(graded_now) / len(graded_now)
        lines += [f"- {len(graded_now)} submissions graded in this run, {jobs} at a time: {per:.1f} s each on "
                  f"average (one core's time), slowest {max(graded_now):.1f} s.",
                  f"- The harness (judges and runtime) took {harness_seconds:.0f} s to build or check."]
    else:
        lines.append("- Every submission was already graded (resumed); nothing was graded in this run.")
    errors = [(s, e) for s, (r, e) in graded.items() if e]
    if errors:
        lines += ["", "## Submissions the grader could not grade", ""] + [f"- {s}: {e}" for s, e in errors]
    (out / "class-report.md").write_text("\n".join(lines) + "\n")
    (out / "timings.json").write_text(json.dumps({"harness_seconds": round(harness_seconds, 1), "jobs": jobs,
                                                  "seconds": timings}, indent=2) + "\n")
    print(f"wrote {out / 'gradebook.csv'}, {out / 'class-report.md'} and {len(by_student)} feedback files in {fb}")
    print(statuses.need_a_look([(student, state) for student, _, state in rows]))


def _identical(assignment, subs, work):
    """{section: groups of students with the same kernels}, leaving out untouched stubs."""
    out = {}
    for s in assignment.sections:
        if not s.kernels:
            continue
        stubs = work / "stubs" / s.folder
        stub_text = class_report.normalised("".join((stubs / k).read_text(errors="replace") for k in s.kernels
                                                    if (stubs / k).is_file()))
        texts = {}
        for sub in subs:
            folder = work / "students" / sub.student / "exercises" / s.folder
            text = "".join((folder / k).read_text(errors="replace") for k in s.kernels if (folder / k).is_file())
            if text and class_report.normalised(text) != stub_text:
                texts[sub.student] = text
        groups = class_report.identical_kernels(texts)
        if groups:
            out[s.id] = groups
    return out
