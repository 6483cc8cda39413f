"""`grade-class --slurm`: the class as Slurm jobs, written as scripts (and with --submit, submitted).

Three jobs, chained with --dependency=afterok: the harness (built once, before any shard), a job
array of shards (`--array=1-N%M`: task K runs `grade-class --shard K/N`, at most M at once), and
the collect step (`grade-class --collect`: gradebook, feedback, report). Every job runs this
checkout's ./workbook on the same OUT folder, which must be shared by the nodes. Each task grades
with the CPUs Slurm gave it (--cpus-per-task; grade_class reads them from SLURM_CPUS_PER_TASK and
its affinity). Settings come from the options, else the [slurm] table of the course file, else
the defaults below.

With gpu_tasks (--gpu-tasks or [slurm] gpu_tasks), a fourth job goes between the shards and the
collect step: a smaller array with --gres=gpu:1 per task, task K running `grade-class --gpu
--shard K/N_gpu` (class_gpu.py: the submissions that passed on the CPU, graded again on the GPU),
with its own partition, account and time (gpu_partition; gpu_account and gpu_time default to
account and time). The collect step then waits on it and merges both.
"""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

from ..core.tomlcompat import TOMLDecodeError, load_toml
from ..core.assignment import course_file

DEFAULTS = {"shards": None, "throttle": None, "cpus": 2, "partition": None, "account": None, "time": None,
            "gpu_tasks": None, "gpu_partition": None, "gpu_account": None, "gpu_time": None}
KINDS = {"shards": int, "throttle": int, "cpus": int, "partition": str, "account": str, "time": str,
         "gpu_tasks": int, "gpu_partition": str, "gpu_account": str, "gpu_time": str}
SBATCH_VALUE = re.compile(r"^[A-Za-z0-9_.:,@/+-]+$")  # one token on its #SBATCH line, nothing after it
PER_SHARD = 25   # submissions per shard when neither the options nor the course file say


class SlurmSetupError(Exception):
    """A setting is wrong or sbatch refused a job (the message says which)."""


def settings(root, course, options, class_size):
    """{setting: value}: each from `options` when given, else course.toml's [slurm], else DEFAULTS."""
    found = course_file(root, course)
    table = {}
    if found and found.is_file():
        try:
            table = load_toml(found).get("slurm", {})
        except TOMLDecodeError as e:
            raise SlurmSetupError(f"{found}: {e}") from None
        if not isinstance(table, dict):
            raise SlurmSetupError(f"{found}: 'slurm' should be a table ([slurm])")
        unknown = sorted(set(table) - set(KINDS))
        if unknown:
            raise SlurmSetupError(f"{found}: [slurm] has unknown key(s) {', '.join(unknown)} "
                                  f"(known: {', '.join(sorted(KINDS))})")
    out = {}
    for key, kind in KINDS.items():
        value = options.get(key)
        if value is None:
            value = table.get(key, DEFAULTS[key])
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
            raise SlurmSetupError(f"{found or 'the options'}: [slurm] {key} should be "
                                  f"{'a whole number' if kind is int else 'a string'}, not {value!r}")
        if kind is str and value is not None and not SBATCH_VALUE.match(value):
            raise SlurmSetupError(f"slurm {key} {value!r}: an #SBATCH value is letters, digits and _.:,@/+- "
                                  "(no spaces or line breaks)")
        if kind is int and value is not None and value < 1:
            raise SlurmSetupError(f"slurm {key} should be at least 1, not {value}")
        out[key] = value
    if out["shards"] is None:
        out["shards"] = max(1, -(-class_size // PER_SHARD))
    out["shards"] = min(out["shards"], max(1, class_size))  # an empty shard is a wasted job
    out["throttle"] = min(out["throttle"] or out["shards"], out["shards"])
    if out["gpu_tasks"] is not None:
        out["gpu_tasks"] = min(out["gpu_tasks"], max(1, class_size))
    return out


def _header(name, s, log, cpus, gpu=False):
    lines = ["#!/bin/bash", f"#SBATCH --job-name={name}", f"#SBATCH --output={log}",
             f"#SBATCH --cpus-per-task={cpus}", "#SBATCH --ntasks=1"]
    for key in ("partition", "account", "time"):
        # The GPU array: its own partition (a CPU partition has no GPUs); account and time fall back.
        value = (s[f"gpu_{key}"] or (s[key] if key != "partition" else None)) if gpu else s[key]
        if value:
            lines.append(f"#SBATCH --{key}={value}")
    return lines + (["#SBATCH --gres=gpu:1"] if gpu else [])


def write(root, out, grade_args, assignment, s):
    """Writes OUT/slurm/{harness,shards,[gpu,]collect}.sh; returns their paths in submission order.
    `grade_args`: the grade-class arguments every job repeats (submissions, --out, course...)."""
    root, out = Path(root).resolve(), Path(out).resolve()
    folder, logs = out / "slurm", out / "slurm" / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    command = f"{shlex.quote(str(root / 'workbook'))} grade-class {' '.join(shlex.quote(a) for a in grade_args)}"
    n = s["shards"]
    jobs = {
        "harness": (_header(f"halo-{assignment}-harness", s, logs / "harness-%j.out", s["cpus"]),
                    f"{command} --harness"),
        "shards": (_header(f"halo-{assignment}-shards", s, logs / "shard-%a-job-%A.out", s["cpus"])
                   + [f"#SBATCH --array=1-{n}%{s['throttle']}"],
                   f'{command} --shard "$SLURM_ARRAY_TASK_ID/{n}"'),
    }
    g = s.get("gpu_tasks")
    if g:
        jobs["gpu"] = (_header(f"halo-{assignment}-gpu", s, logs / "gpu-%a-job-%A.out", s["cpus"], gpu=True)
                       + [f"#SBATCH --array=1-{g}"], f'{command} --gpu --shard "$SLURM_ARRAY_TASK_ID/{g}"')
    jobs |= {
        "collect": (_header(f"halo-{assignment}-collect", s, logs / "collect-%j.out", 1),
                    f"{command} --collect"),
    }
    paths = []
    for name, (header, run) in jobs.items():
        path = folder / f"{name}.sh"
        # The same checkout on every node: the jobs run its ./workbook from its root.
        path.write_text("\n".join(header + ["set -euo pipefail", f"cd {shlex.quote(str(root))}", f"exec {run}"])
                        + "\n")
        path.chmod(0o755)
        paths.append(path)
    return paths


def submit(paths, env=None):
    """sbatch each script after the one before it finished well (afterok); returns the job IDs."""
    ids = []
    for path in paths:
        argv = ["sbatch", "--parsable"] + ([f"--dependency=afterok:{ids[-1]}"] if ids else []) + [str(path)]
        try:
            p = subprocess.run(argv, capture_output=True, text=True, env=env)
        except FileNotFoundError:
            raise SlurmSetupError("sbatch is not on PATH: run --submit on a Slurm login node "
                                  f"(the scripts are in {path.parent})") from None
        job = p.stdout.strip().split(";")[0]
        if p.returncode != 0 or not job.isdigit():
            raise SlurmSetupError(f"sbatch {path.name} failed (exit status {p.returncode}): "
                                  f"{(p.stderr or p.stdout).strip()}" +
                                  (f"; jobs already submitted: {', '.join(ids)} (scancel them)" if ids else ""))
        ids.append(job)
    return ids


def run(root, chapter, submissions, out, assignment_name, course, options, do_submit, k8s=None, files=()):
    """`grade-class --slurm [--submit]`: writes the scripts, submits them when asked, says what next.
    With `k8s` ({image, claim}): the Kubernetes manifests instead (class_k8s.py). `files`: [(option,
    absolute path)] every job passes on as given (--roster, --adjustments): the shards name the
    students by the roster as the collect step does."""
    from ..core.assignment import AssignmentError, load
    from .class_submissions import SubmissionsError, find
    root = Path(root).resolve()
    try:
        assignment = load(chapter, root, assignment_name, course)
        out = Path(out).resolve() if out else root / "build" / "class" / assignment.name
        subs = find(submissions, unpack_to=out / "work" / "unpacked")
        s = settings(root, course, options, len(subs))
    except (AssignmentError, SubmissionsError, SlurmSetupError) as e:
        print(f"halo: {e}", file=sys.stderr)
        return 2
    if k8s is not None:
        if files:
            print(f"halo: {' and '.join(f for f, _ in files)} are not written into the Kubernetes manifests yet: "
                  "write the Slurm scripts, or add them to the manifests' grade-class lines", file=sys.stderr)
            return 2
        return _k8s(root, out, assignment, assignment_name, course, s, k8s)
    grade_args = [str(Path(submissions).resolve()), "--out", str(out)]
    if assignment_name:
        grade_args += ["--assignment", assignment_name]
    if course:
        grade_args += ["--course", str(Path(course).resolve())]
    grade_args += [a for pair in files for a in pair]
    paths = write(root, out, grade_args, assignment.name, s)
    cpus = f"{s['cpus']} CPU{'s' if s['cpus'] > 1 else ''}"
    gpu = f", then a GPU array of {s['gpu_tasks']} (one GPU each)" if s["gpu_tasks"] else ""
    print(f"wrote {', '.join(str(p) for p in paths)}: the harness, then {s['shards']} shards of a class of "
          f"{len(subs)} ({s['throttle']} at a time, {cpus} each){gpu}, then the collect step")
    if not do_submit:
        print("submit them with --submit, or by hand: each with sbatch --dependency=afterok:<the job before>")
        return 0
    try:
        ids = submit(paths)
    except SlurmSetupError as e:
        print(f"halo: {e}", file=sys.stderr)
        return 2
    gpu = f"GPU array {ids[2]} (tasks {ids[2]}_1 to {ids[2]}_{s['gpu_tasks']}), " if s["gpu_tasks"] else ""
    print(f"submitted: harness job {ids[0]}, shard array {ids[1]} (tasks {ids[1]}_1 to {ids[1]}_{s['shards']}), "
          f"{gpu}collect job {ids[-1]}")
    print(f"follow them with: squeue -j {','.join(ids)}    (logs: {out / 'slurm' / 'logs'})")
    print(f"when job {ids[-1]} has finished, the gradebook is {out / 'gradebook.csv'}")
    return 0


def _k8s(root, out, assignment, assignment_name, course, s, k8s):
    from . import class_k8s
    options = dict(s, assignment=assignment_name, course=bool(course or course_file(root)), **k8s)
    try:
        paths, jobs = class_k8s.write(root, out, assignment.name, options)
    except ValueError as e:
        print(f"halo: {e}", file=sys.stderr)
        return 2
    shards, collect = (j["metadata"]["name"] for j in jobs)
    print(f"wrote {paths[0]} (an Indexed Job of {s['shards']} shards, {s['throttle']} at a time) and {paths[1]}; "
          f"checked against the Job API's fields. Not run here. On the cluster, with the submissions in "
          f"{class_k8s.MOUNT}/submissions of the volume claim {options.get('claim') or 'halo-class'}:")
    print(f"    kubectl apply -f {paths[0]}\n    kubectl wait --for=condition=complete --timeout=24h job/{shards}\n"
          f"    kubectl apply -f {paths[1]}\n    kubectl wait --for=condition=complete --timeout=1h job/{collect}")
    return 0
