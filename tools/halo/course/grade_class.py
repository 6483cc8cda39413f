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

Past one machine (class_shards.py, class_slurm.py): `--shard K/N` grades only shard K of the
class and writes only per-student results; `--collect` then writes the gradebook, feedback and
report from every student's stored results, naming each student with none rather than scoring
them 0. An unsharded run ends with the same collect step, so the gradebooks are the same, byte
for byte. Each student is graded under a lock, and the harness is built under one.

Outputs in OUT (default build/class/<assignment>): gradebook.csv, feedback/<student>.md and
.html, class-report.md with its histogram class-report.svg, and timings.json (seconds per
submission, for the benchmark). With hand_back, each student's feedback is also committed into
their own clone (hand_back.py). Under a due date, a Classroom clone is graded at the commit its
late policy picks (due_dates.py); --adjustments and the late penalty add their own gradebook
columns (adjusted_scores.py); --roster adds canvas.csv and moodle.csv (lms_export.py).
"""
from __future__ import annotations

import concurrent.futures
import hashlib
import json
import multiprocessing
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
from . import class_report, class_roster, class_submission, feedback, gradebook, hand_back, mistake_histogram
from ..core.assignment import AssignmentError, load as load_assignment
from .class_harness import HarnessError, build_harness, harness_home
from .class_submissions import SubmissionsError, find
from ..core import due_dates
from . import adjusted_scores, lms_export
from . import class_gpu, class_shards

ERROR = "error.txt"      # in a student's folder: the grader's own failure on them, for --collect
SECONDS = "seconds"      # in a student's folder: how long their last grade took
HISTOGRAM = "class-report.svg"  # beside class-report.md, which shows it


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
    """Grades one submission under its student's lock (a second run of the same shard waits,
    then finds it graded); returns (student, results or None, error or None, seconds, resumed)."""
    home = ctx[4] / "students" / sub.student
    with class_shards.locked(home.with_name(f".{sub.student}.lock")):
        try:
            outcome = _grade_unlocked(ctx, sub, home)
        except class_submission.Stopped:
            raise
        except Exception as e:  # laying the files over failed, say: report it, go on
            outcome = sub.student, None, f"{type(e).__name__}: {e}", 0.0, False
        if outcome[2]:
            results_file.write_atomically(home / ERROR, outcome[2] + "\n")
        return outcome


def _grade_unlocked(ctx, sub, home):
    root, chapter, assignment, harness, work, procs, isolation, seed = ctx
    exercises = home / "exercises"
    home.mkdir(parents=True, exist_ok=True)
    # A Classroom clone under a due date: its commit picked by the late policy (due_dates.py).
    source, due_note = due_dates.graded_source(assignment.deadline, sub.path, sub.student, home)
    notes = ([due_note] if due_note else []) + export_autograder.take_submission(chapter, source, harness.stubs,
                                                                                 exercises)
    (home / "submission.txt").write_text("\n".join(notes) + "\n")
    mark = _fingerprint(root, assignment.sections, exercises)
    done = home / "fingerprint"
    if done.is_file() and done.read_text().strip() == mark and (home / "results.json").is_file():
        return sub.student, json.loads((home / "results.json").read_text()), None, None, True
    # Regraded: neither the last grade's results nor its fingerprint may outlive a stop half-way.
    results_file.discard(done, home / "results.json", home / ERROR)
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
    seconds = time.monotonic() - start
    (home / SECONDS).write_text(f"{seconds:.1f}\n")
    done.write_text(mark + "\n")  # last: a student with a fingerprint has their whole results
    return sub.student, res, None, seconds, False


def _stored(work, student):
    """(results.json's path, error) of a student's last finished grade, or None when there is
    none. The path, not the results: a class of 10,000 is read one student at a time."""
    home = work / "students" / student
    if (home / "fingerprint").is_file() and (home / "results.json").is_file():
        return home / "results.json", None
    if (home / ERROR).is_file():
        return None, (home / ERROR).read_text().strip()
    return None


def _not_graded(work, position):
    """The gradebook's status of a student with no results: which shard to run again."""
    count = class_shards.planned(work)
    if count is None:
        return "not graded: grade-class did not finish (run it again)"
    k = class_shards.shard_of(position, count)
    return f"not graded: shard {k} of {count} did not finish (run grade-class --shard {k}/{count} again)"


def run(root, chapter, submissions, out=None, assignment_name=None, course=None, jobs=None, fresh=False,
        shard=None, collect=False, harness_only=False, give_back=False, adjustments=None, roster=None):
    """Grades the class (or shard (k, n) of it), then writes the outputs; `collect` only writes
    them from the stored results; `harness_only` only builds the harness (a cluster's first job);
    `give_back` commits each student's feedback into their clone (--hand-back)."""
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
    # Absolute: the harness's compile commands name the students' folders by absolute path, and
    # a relative --out (build/class/ops) failed to match them.
    out = Path(out).resolve() if out else root / "build" / "class" / assignment.name
    work = out / "work"
    # A run that stops before the end leaves no gradebook, never the last run's rows.
    results_file.discard(out / "gradebook.csv", out / "class-report.md", out / HISTOGRAM)
    try:
        with class_shards.locked(work / ".unpack.lock"):  # shards starting at once unpack a zip once
            subs = find(submissions, unpack_to=work / "unpacked")
        if roster:  # each student by their roster ID, the one their variant is keyed by (class_roster.py)
            subs, said = class_roster.named(subs, roster)
            for line in said:
                print(line, file=sys.stderr)
    except (SubmissionsError, variants.VariantError) as e:
        print(f"halo: {e}", file=sys.stderr)
        return 2
    back = subs if give_back else None
    refused = _term_chores_refusal(assignment, subs, adjustments, roster)
    if refused:
        print(f"halo: {refused}", file=sys.stderr)
        return 2
    chores = (adjustments, roster)
    if collect:
        return _collect(root, chapter, assignment, subs, work, out, back, chores)
    class_subs = subs
    if shard:
        subs = class_shards.pick(subs, *shard)
        class_shards.remember(work, shard[1])
    elif not harness_only:  # the whole class in one run: no shard is left to name
        (work / class_shards.PLAN).unlink(missing_ok=True)
    tc = toolchain.ensure()
    found = sandbox.announce("the submissions run")
    if found is None:
        return 2
    seed = int(os.environ["HALO_SEED"]) if os.environ.get("HALO_SEED") else None
    part = f" (shard {shard[0]} of {shard[1]}, of a class of {len(class_subs)})" if shard else ""
    print(f"grade-class: {len(subs)} submissions{part}, assignment {assignment.name} "
          f"({', '.join(assignment.ids)}; {assignment.total():g} points)", flush=True)
    harness_start = time.monotonic()
    try:
        print("building the grading harness once (judges and runtime; later runs reuse it)...", flush=True)
        home = harness_home(root)
        with class_shards.locked(home / ".lock"):  # built once, however many shards or runs start at once
            harness = build_harness(root, tc, assignment.sections, home)
    except HarnessError as e:
        print(f"halo: {e}", file=sys.stderr)
        return 2
    harness_seconds = time.monotonic() - harness_start
    if harness_only:
        print(f"the harness is built in {harness.build_dir} ({harness_seconds:.0f} s)")
        return 0
    if fresh:  # this run's students only: another shard's results are not this run's to drop
        for s in subs:
            home = work / "students" / s.student
            results_file.discard(home / "fingerprint", home / "results.json", home / ERROR)
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
                pending.pop(fut)
                student, res, error, seconds, resumed = fut.result()
                graded[student] = error
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
    if shard:
        errors = sum(1 for e in graded.values() if e)
        print(f"shard {shard[0]} of {shard[1]}: {len(graded)} submissions, {bar.graded_now} graded now, "
              f"{len(graded) - bar.graded_now} already graded, {errors} the grader could not grade. "
              f"When every shard has finished: grade-class --collect")
        return 0
    # The same reduce as --collect, from the same stored results: sharded = unsharded.
    timing = {"harness_seconds": round(harness_seconds, 1), "jobs": jobs, "seconds": timings}
    _write_outputs(root, chapter, assignment, subs, _stored_all(work, subs), work, out, timing, back, chores)
    return 0


def _stored_all(work, subs):
    """{student: (results path, error)} of every student, the missing ones with their not-graded status."""
    graded = {}
    for position, sub in enumerate(subs):
        graded[sub.student] = _stored(work, sub.student) or (None, _not_graded(work, position))
    return graded


def _collect(root, chapter, assignment, subs, work, out, back=None, chores=(None, None)):
    """--collect: the outputs from every student's stored results; exit status 1 while any
    student has none (they are in the gradebook as not graded, never as 0 points)."""
    graded = _stored_all(work, subs)
    seconds = {}
    for sub in subs:
        f = work / "students" / sub.student / SECONDS
        if graded[sub.student][0] is not None and f.is_file():
            seconds[sub.student] = float(f.read_text())
    _write_outputs(root, chapter, assignment, subs, graded, work, out, {"collected": True, "seconds": seconds}, back,
                   chores)
    missing = [(s, e) for s, (r, e) in graded.items() if e and e.startswith("not graded")]
    for student, state in missing:
        print(f"{student}: {state}", file=sys.stderr)
    if missing:
        print(f"halo: {len(missing)} of {len(subs)} students have no results yet; the gradebook names them",
              file=sys.stderr)
        return 1
    return 0


def _write_outputs(root, chapter, assignment, subs, graded, work, out, timing, back=None, chores=(None, None)):
    """The gradebook, feedback, class report and its histogram; with `back` (the submissions),
    the feedback handed back into each student's clone too; `chores` (adjustments CSV, roster):
    the adjustments merged in, and the Canvas and Moodle imports written."""
    rows, per_section, written, kernels, extras = [], {}, 0, {}, {}
    fb = out / "feedback"
    fb.mkdir(parents=True, exist_ok=True)
    book, problems = adjusted_scores.book(assignment, chores[0], [sub.student for sub in subs])
    for line in problems:
        print(f"halo: {line}", file=sys.stderr)
    shared = (chapter, assignment, work, fb, _set_aside_kernels(root, assignment, work), book)
    items = [(sub.student, *graded[sub.student]) for sub in subs]
    for row, mistakes, wrote, digests, mine in _map_students(shared, items):
        rows.append(row)
        extras[row[0]] = mine
        class_report.add(per_section, mistakes)
        written += wrote
        for sid, digest in digests.items():
            kernels.setdefault(sid, {}).setdefault(digest, []).append(row[0])
    gradebook.write(out / "gradebook.csv", assignment, rows, book if book.columns() else None, extras)
    if chores[1]:
        _write_lms_imports(out, assignment, rows, extras, chores[1])
    identical = {sid: class_report.groups_of(by_digest) for sid, by_digest in kernels.items()}
    (out / HISTOGRAM).write_text(mistake_histogram.svg(assignment.ids, per_section))
    report = class_report.render(assignment.ids, per_section, identical, histogram=HISTOGRAM)
    graded_now = list(timing["seconds"].values())
    lines = [report.rstrip(), "", "## Time to grade", ""]
    if graded_now and timing.get("collected"):
        per = sum(graded_now) / len(graded_now)
        lines.append(f"- {len(graded_now)} submissions, collected from their shards: {per:.1f} s each on "
                     f"average (one core's time, at their last grade), slowest {max(graded_now):.1f} s.")
    elif graded_now:
        per = sum(graded_now) / len(graded_now)
        lines += [f"- {len(graded_now)} submissions graded in this run, {timing['jobs']} at a time: {per:.1f} s "
                  f"each on average (one core's time), slowest {max(graded_now):.1f} s.",
                  f"- The harness (judges and runtime) took {timing['harness_seconds']:.0f} s to build or check."]
    else:
        lines.append("- Every submission was already graded (resumed); nothing was graded in this run.")
    errors = [(s, e) for s, (r, e) in graded.items() if e and not e.startswith("not graded")]
    if errors:
        lines += ["", "## Submissions the grader could not grade", ""] + [f"- {s}: {e}" for s, e in errors]
    (out / "class-report.md").write_text("\n".join(lines) + "\n")
    (out / "timings.json").write_text(json.dumps(timing, indent=2) + "\n")
    print(f"wrote {out / 'gradebook.csv'}, {out / 'class-report.md'} and {written} feedback files in {fb}")
    print(statuses.need_a_look([(student, state) for student, _, state in rows]))
    if back is not None:
        for line in hand_back.hand_back(back, fb, assignment.name):
            print(line)


_SHARED = None      # what every student's outputs need, set in each worker process (_map_students)
SERIAL_BELOW = 200  # students: fewer are written in this process (a pool costs more than it saves)


def _map_students(shared, items):
    """_student_outputs of each (student, results path, error), in order: on the job's CPUs for a
    large class (a collect of 10,000 writes 20,000 feedback files), here for a small one."""
    global _SHARED
    workers = usable_cpus()
    if len(items) < SERIAL_BELOW or workers == 1:
        _SHARED = shared
        return [_student_outputs(*item) for item in items]
    context = multiprocessing.get_context("fork")  # the workers inherit `shared`, nothing pickled
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context, initializer=_share,
                                                initargs=(shared,)) as pool:
        return list(pool.map(_student_outputs, *zip(*items), chunksize=64))


def _share(shared):
    global _SHARED
    _SHARED = shared


def _student_outputs(student, path, error):
    """(gradebook row, class_report.mistakes of the student, whether feedback was written,
    {section: class_report.kernel_digest of the kernels}) of one student (the digests group
    identical kernels as class_report.identical_kernels does; untouched stubs are no one's)."""
    chapter, assignment, work, fb, set_aside, book = _SHARED
    hashes = {}
    for s in assignment.sections:
        if s.id in set_aside:
            text = _kernel_text(work / "students" / student / "exercises" / s.folder, s.kernels)
            digest = class_report.kernel_digest(text, *set_aside[s.id]) if text else class_report.STUB
            if digest != class_report.STUB:
                hashes[s.id] = digest
    res = json.loads(path.read_text()) if path else None
    if res is None and error.startswith("not graded"):
        return (student, None, error), {}, False, hashes, None  # no points at all, rather than 0
    sc = gradebook.scores(res, chapter, assignment) if res else gradebook.zero_scores(assignment)
    mine = book.extras(work / "students" / student, student, adjusted_scores.total(sc))
    state = gradebook.status(res, assignment.sections, error)
    if res:  # the GPU step, where one ran for this grade, confirms it or flags it (class_gpu.py)
        state = class_gpu.merged_status(state, work / "students" / student)
    row = (student, sc, adjusted_scores.late_status(state, mine))
    if not res:
        return row, {}, False, hashes, mine
    notes = (work / "students" / student / "submission.txt").read_text()
    bs = feedback.blocks(student, assignment, res, sc, notes, mine)
    (fb / f"{student}.md").write_text(feedback.markdown(bs))
    (fb / f"{student}.html").write_text(feedback.to_html(bs, f"{assignment.title}: {student}"))
    return row, class_report.mistakes({student: res}), True, hashes, mine


def _term_chores_refusal(assignment, subs, adjustments, roster):
    """Why the class cannot be graded by the course's due date, adjustments or roster, or None."""
    if assignment.deadline_problem and any(due_dates.is_clone(s.path) for s in subs):
        return f"{assignment.deadline_problem} (needed to pick each Classroom clone's commit)"
    for path in (adjustments, roster):
        if path and not Path(path).is_file():
            return f"{path}: no such file"
    if roster:
        try:
            lms_export.read_roster(roster)
        except lms_export.RosterError as e:
            return str(e)
    return None


def _write_lms_imports(out, assignment, rows, extras, roster_path):
    """canvas.csv and moodle.csv beside the gradebook: the same totals, with names and emails."""
    roster = lms_export.read_roster(roster_path)
    grades = []
    for student, sc, state in rows:
        if sc is None:
            continue  # not graded: no grade rather than 0 in the LMS
        mine = extras.get(student)
        comments = "; ".join(mine.feedback_lines()) if mine else ""
        grades.append((student, f"{float(adjusted_scores.total(sc, mine)):g}",
                       state + (f"; {comments}" if comments else "")))
    lms_export.canvas(out / "canvas.csv", assignment.title, f"{assignment.total():g}", grades, roster)
    lms_export.moodle(out / "moodle.csv", assignment.title, grades, roster)
    missing = lms_export.unlisted(roster, [g[0] for g in grades])
    print(f"wrote {out / 'canvas.csv'} and {out / 'moodle.csv'}"
          + (f"; not in the roster (no name or email): {', '.join(missing)}" if missing else ""))


def _kernel_text(folder, kernels):
    return "".join((folder / k).read_text(errors="replace") for k in kernels if (folder / k).is_file())


def _set_aside_kernels(root, assignment, work):
    """{section: (its committed stubs' kernels, the reference solution's), normalised; "" where
    the repository has no solutions/}: a student who hands either in is copying from no one, so
    the report's identical groups leave them out (and name those with the reference apart)."""
    out = {}
    for s in assignment.sections:
        if s.kernels:
            reference = _kernel_text(Path(root) / "solutions" / s.folder, s.kernels)
            out[s.id] = (class_report.normalised(_kernel_text(work / "stubs" / s.folder, s.kernels)),
                         class_report.normalised(reference) if reference else "")
    return out
