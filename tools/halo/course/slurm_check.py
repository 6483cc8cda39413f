"""`./workbook internal check-slurm --work DIR`: grade-class as Slurm jobs, on a real Slurm.

A one-node cluster (slurm_local.py) starts from a temporary folder; `grade-class --slurm
--submit` grades the generated class of 20 (class_fixture.py) as a harness job, an array of 4
shards (2 at a time) and a collect job; every gradebook row must be as expected. The GPU array
(--gpu-tasks) is written and its script read, not run: this node has no GPU. Then item 1's
promises, on the same folder, each on two students of a shard whose results are removed first
(two, not five: the check's budget is 5 minutes on 2 cores):
- a shard run twice at once grades each of them once (the other run waits on the student's lock
  and finds them graded), and the gradebook is unchanged;
- a shard killed mid-way leaves its unfinished students named "not graded: shard 3 of 4" by
  --collect (exit status 1), never scored 0; run again, it finishes them and the gradebook is
  the first one, byte for byte;
- an unsharded grade-class of the same folder writes the same gradebook, byte for byte.
Every daemon is stopped by its pid at the end. Where Slurm cannot start, the check fails and says
why. The harness (build/class-harness/) is kept between runs (a warm build); every student is graded afresh.
"""
from __future__ import annotations

import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import class_fixture, class_shards
from ..core.assignment import load
from .class_submissions import find
from .slurm_local import Cluster, SlurmError

SHARDS, THROTTLE = 4, 2
FINISHED = {"COMPLETED"}
FAILED = {"FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE"}
WAIT_S = 600   # the collect job's deadline: a hung cluster fails the check rather than hanging it


class CheckFailed(Exception):
    pass


def _job_states(env, job):
    """[(state, reason)] of a job, one per array task, from scontrol (MinJobAge keeps finished
    jobs listed)."""
    p = subprocess.run(["scontrol", "show", "job", "-o", job], env=env, capture_output=True, text=True)
    found = [(re.search(r"\bJobState=(\S+)", line), re.search(r"\bReason=(\S+)", line))
             for line in p.stdout.splitlines() if line.strip()]
    return [(s.group(1) if s else "?", r.group(1) if r else "") for s, r in found] or \
        [(f"unknown ({p.stderr.strip()})", "")]


def _wait(env, jobs, logs):
    """Until the last of `jobs` completes; CheckFailed when any task fails or can never run."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        for job in jobs:
            for state, reason in _job_states(env, job):
                if state in FAILED or reason == "DependencyNeverSatisfied":
                    tails = "".join(f"\n--- {p.name}:\n{p.read_text(errors='replace')[-1500:]}"
                                    for p in sorted(Path(logs).glob("*.out")))
                    raise CheckFailed(f"Slurm job {job} is {state} ({reason}){tails}")
        if all(state in FINISHED for state, _ in _job_states(env, jobs[-1])):
            return
        time.sleep(1)
    raise CheckFailed(f"the collect job {jobs[-1]} did not finish in {WAIT_S} s")


def _grade_class(root, args, **kw):
    return subprocess.run([str(Path(root) / "workbook"), "grade-class", *args], capture_output=True, text=True, **kw)


def _graded_now(output):
    """Students a run graded (not resumed), from its per-student progress lines: "NAME: STATUS in
    N s", whatever the status ("graded", "7.2 variant mismatch", ...)."""
    return re.findall(r"^(\S+): (?!resumed \(already graded\)).+ in \d+ s$", output, re.M)


def _run_checks(root, chapter, work, cluster):
    expected = class_fixture.write(root, chapter, work / "fixture")
    subs_dir, course = work / "fixture" / "submissions", work / "fixture" / "course.toml"
    out = work / "out"
    shutil.rmtree(out / "work" / "students", ignore_errors=True)  # every student graded afresh; the
    (out / "work" / class_shards.PLAN).unlink(missing_ok=True)     # harness stays warm
    shutil.rmtree(out / "slurm", ignore_errors=True)
    base = [str(subs_dir), "--course", str(course), "--assignment", "conv1d", "--out", str(out)]
    start = time.monotonic()
    p = _grade_class(root, base + ["--slurm", "--submit", "--shards", str(SHARDS), "--throttle", str(THROTTLE),
                                   "--cpus", "1", "--partition", "check"], env=cluster.env)
    print(p.stdout + p.stderr, end="")
    ids = re.search(r"harness job (\d+), shard array (\d+) .*collect job (\d+)", p.stdout)
    if p.returncode != 0 or not ids:
        raise CheckFailed(f"grade-class --slurm --submit did not submit three jobs (exit status {p.returncode})")
    _wait(cluster.env, list(ids.groups()), out / "slurm" / "logs")
    print(f"the harness job, {SHARDS} shards and the collect job finished in {time.monotonic() - start:.0f} s")
    sections = load(chapter, root, "conv1d", course).sections
    problems = class_fixture.verify(expected, out, sections)
    first = (out / "gradebook.csv").read_bytes()
    shard_logs = sorted((out / "slurm" / "logs").glob("shard-*.out"))
    if len(shard_logs) != SHARDS:
        problems.append(f"{len(shard_logs)} shard logs, not {SHARDS}")
    problems += _gpu_array_written(root, base, work / "gpu-scripts")
    problems += _twice_at_once(root, base, out, first)
    problems += _killed_mid_way(root, base, out, first)
    p = _grade_class(root, base)
    if p.returncode != 0 or (out / "gradebook.csv").read_bytes() != first:
        problems.append(f"an unsharded grade-class wrote another gradebook (exit status {p.returncode})")
    return expected, problems


def _gpu_array_written(root, base, out):
    """The GPU array's script, written and read, not run: this node has no GPU (no gres). Its
    #SBATCH lines, its command, and its place in the chain: submit() makes each script wait
    (afterok) on the one before, so the order written is the order waited on."""
    shutil.rmtree(out, ignore_errors=True)
    args = base[:-1] + [str(out), "--slurm", "--shards", str(SHARDS), "--gpu-tasks", "2", "--gpu-partition", "gpu"]
    p = _grade_class(root, args)
    order = re.findall(r"/slurm/(\w+)\.sh", p.stdout)
    problems = []
    if p.returncode != 0 or order != ["harness", "shards", "gpu", "collect"]:
        problems.append(f"grade-class --slurm --gpu-tasks 2 wrote {order} (exit status {p.returncode}), not harness, "
                        f"shards, gpu, collect:\n{p.stdout}{p.stderr}")
    scripts = {name: (out / "slurm" / f"{name}.sh") for name in ("shards", "gpu")}
    text = {name: path.read_text() if path.is_file() else "" for name, path in scripts.items()}
    for line in ("#SBATCH --gres=gpu:1", "#SBATCH --array=1-2", "#SBATCH --partition=gpu",
                 '--gpu --shard "$SLURM_ARRAY_TASK_ID/2"'):
        if line not in text["gpu"]:
            problems.append(f"the GPU array's script {scripts['gpu']} lacks {line!r}")
    if "gres" in text["shards"]:
        problems.append(f"the CPU shards ask for a GPU: {scripts['shards']}")
    print(f"the GPU array, written and read (not run: no GPU here): chain {' -> '.join(order)}, "
          f"{'as expected' if not problems else 'WRONG'}")
    return problems


def _shard_students(subs_dir, k, n=2):
    """`n` students of shard k, sorted (the endless loop left out: it costs a time-out per run)."""
    return [s.student for s in class_shards.pick(find(subs_dir), k, SHARDS)
            if s.student != class_fixture.ENDLESS[0]][:n]


def _forget(out, students):
    """As if these students had never been graded (their results gone, their folders kept)."""
    for s in students:
        for name in ("fingerprint", "results.json"):
            (out / "work" / "students" / s / name).unlink(missing_ok=True)


def _twice_at_once(root, base, out, first):
    students = _shard_students(base[0], 2)
    _forget(out, students)
    runs = [subprocess.Popen([str(root / "workbook"), "grade-class", *base, "--shard", f"2/{SHARDS}"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for _ in range(2)]
    outputs = [r.communicate()[0] for r in runs]
    problems = [f"shard 2 run twice at once: a run stopped with exit status {r.returncode}:\n{o[-2000:]}"
                for r, o in zip(runs, outputs) if r.returncode != 0]
    graded = sorted(_graded_now(outputs[0]) + _graded_now(outputs[1]))
    if graded != sorted(students):
        problems.append(f"shard 2 run twice at once graded {graded}; expected each of {sorted(students)} once")
    p = _grade_class(root, base + ["--collect"])
    if p.returncode != 0 or (out / "gradebook.csv").read_bytes() != first:
        problems.append(f"after shard 2 ran twice, --collect wrote another gradebook (exit status {p.returncode})")
    print(f"shard 2 run twice at once, {len(students)} of its students to grade: {len(graded)} grades")
    return problems


def _killed_mid_way(root, base, out, first):
    students = _shard_students(base[0], 3)
    _forget(out, students)
    run = subprocess.Popen([str(root / "workbook"), "grade-class", *base, "--shard", f"3/{SHARDS}", "--jobs", "1"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    done = out / "work" / "students" / students[0] / "fingerprint"
    while not done.is_file() and run.poll() is None:  # killed once the first is graded, the second under way
        time.sleep(0.2)
    os.killpg(run.pid, signal.SIGKILL)  # the run and the compilers and workers it started
    run.wait()
    problems = []
    p = _grade_class(root, base + ["--collect"])
    rows = {r[0]: r for r in csv.reader((out / "gradebook.csv").read_text().splitlines())}
    unfinished = [s for s in students if not (out / "work" / "students" / s / "fingerprint").is_file()]
    if not unfinished:
        problems.append("the killed shard had finished every student: nothing was checked")
    if p.returncode != 1:
        problems.append(f"--collect with a killed shard's students missing: exit status {p.returncode}, not 1")
    for s in unfinished:  # named, with no points at all (never 0)
        row = rows.get(s) or [""]
        if not row[-1].startswith(f"not graded: shard 3 of {SHARDS} did not finish") or any(row[1:-1]):
            problems.append(f"{s} (killed before graded): gradebook row {row!r}")
    p = _grade_class(root, base + ["--shard", f"3/{SHARDS}"])
    again = _graded_now(p.stdout + p.stderr)
    if sorted(again) != sorted(unfinished):
        problems.append(f"shard 3 run again graded {again}; expected the unfinished {unfinished}")
    p = _grade_class(root, base + ["--collect"])
    if p.returncode != 0 or (out / "gradebook.csv").read_bytes() != first:
        problems.append(f"after shard 3 was killed and run again, --collect wrote another gradebook "
                        f"(exit status {p.returncode})")
    print(f"shard 3 killed after {len(students) - len(unfinished)} of the {len(students)} students it had to grade; "
          f"--collect named {len(unfinished)} not graded; run again, it graded {len(again)}")
    return problems


def run_check(root, chapter, work):
    root, work = Path(root).resolve(), Path(work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    folder = Path(tempfile.mkdtemp(prefix="halo-slurm-"))
    cluster = Cluster(folder)
    try:
        cluster.start()
        print(f"a one-node Slurm cluster ({cluster.node}) runs from {folder}: "
              + ", ".join(f"{n} pid {p}" for n, p in cluster.pids.items()), flush=True)
        expected, problems = _run_checks(root, chapter, work, cluster)
    except (SlurmError, CheckFailed) as e:
        print(f"FAIL {e}")
        return 1
    finally:
        pids = dict(cluster.pids)
        cluster.stop()
        alive = [f"{n} ({p})" for n, p in pids.items() if _alive(p)]
        if alive:
            print(f"FAIL still running after stop: {', '.join(alive)}")
        shutil.rmtree(folder, ignore_errors=True)
    for p in problems:
        print(f"FAIL {p}")
    print(f"grade-class on Slurm: {len(expected)} submissions, {SHARDS} shards, {len(problems)} problems, "
          f"{time.monotonic() - start:.0f} s in all")
    return 1 if problems or alive else 0


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


if __name__ == "__main__":
    sys.exit("run it as: ./workbook internal check-slurm --work DIR")
