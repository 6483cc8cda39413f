"""One submission graded against a prebuilt harness (class_harness.py): its kernel files
compiled and linked into workers, each test run by the section's judge, its answers checked,
and a results.json written exactly as `./workbook grade` writes one.

A section's tests run in one judge process, as `./workbook grade` runs them (core/judge_runs.py:
the same command, environment and time limit as CTest's, the verdicts read from the judge's case
records), so a submission scores here what grade gives it. One lane a submission: grade-class
already grades as many submissions at once as there are CPUs. It used to start a judge, a
sandbox and a worker for every test: some 30 process starts for a section, where one does
(docs/results/check-times.md, "grade-class in one judge a section"). Once a test of a section
ran past its time limit, the judge fails the section's remaining tests at once with that cause
(judge_client.cpp), instead of each waiting out the limit again.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

from ..core import answers_phase, judge_runs, kernel_pch, results, untouched_stubs
from .class_harness import launcher_argv

LINK_SECONDS = 120
HIDDEN_FROM_TESTS = ("HALO_COURSE_SECRET", "HALO_STUDENT")  # the judge and its worker never see them


class Stopped(Exception):
    """The class run was interrupted: this submission is left ungraded (a later run resumes it)."""


class Processes:
    """The running child processes of every grading thread, so that an interrupt stops them all."""

    def __init__(self):
        self.lock = threading.Lock()
        self.running = set()
        self.stopping = threading.Event()

    def run(self, argv, cwd, env=None, seconds=None):
        """(exit status or None on time-out, combined output, seconds) of one command, in a
        process group of its own so that a time-out or an interrupt kills all it started."""
        if self.stopping.is_set():
            raise Stopped()
        start = time.monotonic()
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        with self.lock:
            self.running.add(proc)
        try:
            out, _ = proc.communicate(timeout=seconds)
            status = proc.returncode
        except subprocess.TimeoutExpired:
            _kill(proc)
            out, _ = proc.communicate()
            status = None
        finally:
            with self.lock:
                self.running.discard(proc)
        if self.stopping.is_set():
            raise Stopped()
        return status, out.decode(errors="replace"), time.monotonic() - start

    def track(self, proc):
        """A process started elsewhere (a judge of judge_runs.Runner), stopped with the others."""
        with self.lock:
            self.running.add(proc)
        if self.stopping.is_set():
            _kill(proc)

    def untrack(self, proc):
        with self.lock:
            self.running.discard(proc)

    def stop_all(self):
        self.stopping.set()
        with self.lock:
            for proc in list(self.running):
                _kill(proc)


def _kill(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _build_section(procs, recipe, exercises, scratch, pch_dir):
    """The worker of one section built from `exercises`; (worker path, None) or (None, output).
    `pch_dir`: the harness's precompiled grader headers, shared by every submission."""
    s = recipe.section
    sid = s.id.replace(".", "_")
    objects_dir = scratch / "objects" / sid
    wrappers_dir = scratch / "wrappers" / sid  # not the output folder: the sandbox gives the compiler that one empty
    objects_dir.mkdir(parents=True, exist_ok=True)
    wrappers_dir.mkdir(parents=True, exist_ok=True)
    folder = exercises / s.folder
    objects, output = [], []
    for kernel, template in recipe.compiles:
        wrapper = wrappers_dir / f"{kernel}.cpp"
        wrapper.write_text(recipe.wrapper.replace("{kernel}", str(folder / kernel)))
        obj = objects_dir / f"{kernel}.o"
        argv = [a.format(folder=folder, object=obj, wrapper=wrapper) for a in template]
        kernel_files = [x for k in s.kernels for x in ("--kernel-file", str(folder / k))]
        status, out, _ = procs.run(launcher_argv(*kernel_files, "--pch-dir", pch_dir, "--", *argv), cwd=objects_dir)
        output.append(out)
        if status != 0:
            return None, "".join(output) or "the compiler stopped without a message"
        objects.append(str(obj))
    worker = scratch / "bin" / f"test_{sid}_worker"
    worker.parent.mkdir(parents=True, exist_ok=True)
    argv = []
    for a in recipe.link:
        argv += objects if a == "{objects}" else [str(worker) if a == "{worker}" else a]
    status, out, _ = procs.run(argv, cwd=objects_dir, seconds=LINK_SECONDS)
    if status != 0:
        return None, "".join(output) + out
    return worker, None


def _run_tests(procs, harness, recipe, worker, env, scratch):
    """The section's tests in one judge with the submission's worker (a test the judge did not
    reach, after one that stopped it, gets a judge of its own: judge_runs.Runner)."""
    if procs.stopping.is_set():
        raise Stopped()
    runner = judge_runs.Runner(env, harness.cwd, scratch, tracker=procs)  # CTest's limit a test
    tests = runner.run([([recipe.judge, f"--halo-worker={worker}"], list(recipe.tests))], 1)
    if procs.stopping.is_set():
        raise Stopped()
    return tests


def _not_built(recipe):
    out = []
    for name in recipe.tests:
        info = results.parse_name(name)
        out.append({"name": name, "section": info["section"], "kind": info["kind"], "status": "failed",
                    "message": "not run: the section's kernel file does not compile (the build output says why)",
                    "seconds": 0.0})
    return out


def grade(procs, harness, chapter, sections, exercises, scratch, seed, isolation, student=None):
    """Grades the tree `exercises` (shaped like exercises/) into `scratch`; returns the results
    (also saved as scratch/results.json)."""
    exercises, scratch = Path(exercises), Path(scratch)
    report_dir = scratch / "report"
    results.discard(scratch / "results.json")  # nor its results, should this grade stop
    shutil.rmtree(report_dir, ignore_errors=True)  # nothing of an earlier grade: load reports, hangs
    report_dir.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k not in HIDDEN_FROM_TESTS}
    env.update({"HALO_REPORT_DIR": str(report_dir), "HALO_SEED": str(seed), "HALO_SANDBOX": isolation[0]})
    failures, tests = {}, []
    # Decided for every section before any of the submission's code runs (core/untouched_stubs.py).
    untouched = untouched_stubs.decide(sections, exercises, untouched_stubs.stubs_in_folder(harness.stubs, sections))
    for s in sections:
        recipe = harness.recipes.get(s.id)
        if recipe is None:
            continue  # questions only
        if s.id in untouched:
            tests += untouched_stubs.results_of(s.id, recipe.tests, untouched[s.id], str(exercises / s.folder),
                                                harness.root)
            continue
        worker, build_output = _build_section(procs, recipe, exercises, scratch,
                                              harness.build_dir / kernel_pch.FOLDER)
        if worker is None:
            failures[s.id] = build_output
            tests += _not_built(recipe)
            continue
        tests += _run_tests(procs, harness, recipe, worker, env, scratch / "judge-output")
    answered = answers_phase.run(chapter, sections, exercises, report_dir, student)
    expected = [n for s in sections if s.id in harness.recipes for n in harness.recipes[s.id].tests]
    res = results.assemble(chapter, sections, tests + answered, expected, report_dir, failures, seed, exercises,
                           {"mode": isolation[0], "note": isolation[1]}, student)
    results.save(res, scratch / "results.json")
    return res
