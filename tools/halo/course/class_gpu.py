"""`grade-class --gpu [--shard K/N]`: the GPU step of a class, after the CPU grade.

Only the students whose CPU grade passed (their stored results.json, with its fingerprint, says
so) are graded again on the GPU, with the grade a student runs (`./workbook grade --gpu`:
student/grade.py builds the section's CUDA test program, test_<sid>_gpu, and runs the tests
labelled gpu, whose loads are counted by the hardware; run as its own process). The GPU results go beside the CPU ones,
in OUT/work/students/<student>/gpu/, tied to the CPU grade they confirm (its fingerprint): a
student regraded on the CPU is regraded on the GPU too.

The GPU step never changes points. --collect reads it (merged_status): a student the GPU
confirms keeps the CPU's status; one the GPU disagrees with (a GPU test failed, no GPU test ran,
the step itself failed) is flagged in the gradebook's status cell, with the CPU's points kept, for
the instructor to look at. Without a GPU nothing is graded and the exit status is 2.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ..core import results as results_file
from ..core import variants
from . import class_shards
from ..core.workbook_argv import workbook_argv

FOLDER = "gpu"           # in a student's folder: results.json, fingerprint (the CPU's), error.txt
RESULTS = "results.json"  # the GPU grade's, as student/grade.py wrote it
ERROR = "error.txt"      # the GPU step's own failure on a student
GPU_TEST = "gpu: "       # how the names of the GPU suite's tests begin (grader/cmake/HaloSections.cmake)


def missing_gpu():
    """Why this machine cannot run the GPU step, or None when it can."""
    from ..bench.bench_gpu import find_nvcc, has_cuda_device
    if not has_cuda_device():
        return "grade-class --gpu needs an NVIDIA GPU, and this machine shows none (no /dev/nvidia*, no nvidia-smi GPU)"
    if not find_nvcc():
        return "grade-class --gpu needs nvcc (the CUDA toolkit): set NVCC or CUDA_HOME, or put nvcc on PATH"
    return None


def passed_on_cpu(home):
    """The CPU grade's fingerprint when the student's finished CPU grade passed, else None."""
    mark, res = Path(home) / "fingerprint", Path(home) / "results.json"
    if not (mark.is_file() and res.is_file()):
        return None
    try:
        ok = results_file.passed(json.loads(res.read_text()))
    except (ValueError, KeyError, TypeError):
        return None
    return mark.read_text().strip() if ok else None


def verdict(gpu_results):
    """None when the GPU confirms the CPU's grade, else why not (one line)."""
    tests = [t for t in gpu_results.get("tests", []) if t.get("name", "").startswith(GPU_TEST)]
    failed = [t["name"][len(GPU_TEST):] for t in tests if t.get("status") == "failed"]
    if failed:
        more = f" and {len(failed) - 1} more" if len(failed) > 1 else ""
        return f"GPU disagrees: {failed[0]} failed on the GPU{more}"
    if not any(t.get("status") == "passed" for t in tests):
        return "GPU disagrees: no GPU test ran"
    return None


def merged_status(state, home):
    """The gradebook's status cell with the GPU step merged in: unchanged where no GPU step ran for
    this CPU grade or the GPU confirms it; the CPU's status and why the GPU disagrees otherwise."""
    home = Path(home)
    gpu = home / FOLDER
    mark = home / "fingerprint"
    if not mark.is_file() or not (gpu / "fingerprint").is_file():
        return state
    if (gpu / "fingerprint").read_text().strip() != mark.read_text().strip():
        return state  # a GPU step of an earlier CPU grade says nothing about this one
    if (gpu / RESULTS).is_file():
        why = verdict(json.loads((gpu / RESULTS).read_text()))
    else:
        why = "GPU step failed: " + ((gpu / ERROR).read_text().strip() if (gpu / ERROR).is_file() else "no results")
    return state if why is None else f"{state}; {why}"


def grade_command(root, assignment, student, exercises, build):
    """The grade a student runs, with the GPU suite: `./workbook grade --gpu` of the assignment's
    sections (every section without one) on `exercises`, as `student`, built in `build`."""
    sections = [s.id for s in assignment.sections] if assignment is not None else []
    return [*workbook_argv(Path(root)), "grade", "--gpu", *sections, "--exercises", str(exercises),
            "--build-dir", str(build), "--student", student]


def grade_on_gpu(root, chapter, assignment, student, exercises, build):
    """(GPU results or None, the grader's error or None) of one submission's exercises, graded by
    `./workbook grade --gpu` (student/grade.py, run as its own process, as a student runs it) with the
    GPU suite in `build`, a folder kept from student to student (as a student's own grades keep
    build/grade: only what changed is built again)."""
    try:
        status = subprocess.run(grade_command(root, assignment, student, exercises, build), cwd=root).returncode
    except (OSError, subprocess.SubprocessError) as e:  # the grader's own failure: flagged, the class goes on
        return None, f"{type(e).__name__}: {e}"
    # The verdict comes from the results the grader wrote (grade discards them first), never from
    # the exit status, which only says whether everything passed.
    if (build / RESULTS).is_file():
        return json.loads((build / RESULTS).read_text()), None
    return None, f"the GPU grade wrote no results (exit status {status})"


def _grade_student(root, chapter, assignment, student, home, build):
    """The GPU step of one student, under their lock; the line to print."""
    gpu = home / FOLDER
    with class_shards.locked(home.with_name(f".{student}.gpu.lock")):
        cpu_mark = passed_on_cpu(home)
        if cpu_mark is None:
            return f"{student}: not passed on the CPU, not graded on the GPU"
        if (gpu / "fingerprint").is_file() and (gpu / "fingerprint").read_text().strip() == cpu_mark:
            return f"{student}: resumed (already graded on the GPU)"
        results_file.discard(gpu / "fingerprint", gpu / RESULTS, gpu / ERROR)
        gpu.mkdir(parents=True, exist_ok=True)
        res, error = grade_on_gpu(root, chapter, assignment, student, home / "exercises", build)
        if res is not None:
            results_file.save(res, gpu / RESULTS)
        else:
            results_file.write_atomically(gpu / ERROR, error + "\n")
        (gpu / "fingerprint").write_text(cpu_mark + "\n")  # last: a GPU fingerprint has its whole result
        return f"{student}: {merged_status('passed on the CPU', home)}"


def run(root, chapter, submissions, out=None, assignment_name=None, course=None, shard=None):
    """`grade-class --gpu`: the GPU step of shard (k, n) of the class (or all of it)."""
    from ..core.assignment import AssignmentError, load
    from .class_submissions import SubmissionsError, find
    why = missing_gpu()
    if why:
        print(f"halo: {why}; nothing was graded on the GPU (the CPU grades stand unconfirmed)", file=sys.stderr)
        return 2
    root = Path(root).resolve()
    if course and os.environ.get(variants.SECRET_ENV) is None:  # the answers' variants, as grade_class does
        try:
            os.environ[variants.SECRET_ENV] = variants.secret_from_env_or_file(root, course)
        except variants.VariantError as e:
            print(f"halo: {e}", file=sys.stderr)
            return 2
    try:
        assignment = load(chapter, root, assignment_name, course)
        out = Path(out).resolve() if out else root / "build" / "class" / assignment.name
        with class_shards.locked(out / "work" / ".unpack.lock"):
            subs = find(submissions, unpack_to=out / "work" / "unpacked")
    except (AssignmentError, SubmissionsError) as e:
        print(f"halo: {e}", file=sys.stderr)
        return 2
    picked = class_shards.pick(subs, *shard) if shard else sorted(subs, key=lambda s: s.student)
    part = f" (GPU shard {shard[0]} of {shard[1]})" if shard else ""
    print(f"grade-class --gpu: {len(picked)} submissions{part}; those that passed on the CPU are graded on the GPU",
          flush=True)
    build = out / "work" / "gpu-build" / (f"shard-{shard[0]}-of-{shard[1]}" if shard else "all")
    with class_shards.locked(build.with_name(build.name + ".lock")):  # one GPU task per build folder
        for sub in picked:
            print(_grade_student(root, chapter, assignment, sub.student, out / "work" / "students" / sub.student,
                                 build), flush=True)
    return 0
