"""The GPU step of `./workbook bench --class` (alone: `bench --class --gpu-only`): seconds per
submission of what `grade-class --gpu` does to each student who passed on the CPU
(class_gpu.grade_on_gpu: student/grade.py with the GPU suite), on copies of the reference for
every section, in one build folder kept from copy to copy as a GPU task keeps its own: the first
copy is cold (the GPU suite and judges built), the others warm (the suite kept, the copy's kernels
compiled again). Each copy's kernel files end in a comment of their own: two students' files
differ, and the grade builds again only what changed (core/intake.py leaves an unchanged file
alone), so identical copies would time a warm grade with no compile at all. Without a GPU it
measures nothing and says so. Timings inform; they never decide a test."""
from __future__ import annotations

import shutil
import time

from . import bench_gpu
from ..course import class_gpu

COPIES = 3   # one cold and two warm: a GPU task grades its shard's students in one build folder


def _reference_copy(root, chapter, folder):
    """A submission of the reference solutions of every section (what passes on the CPU), its
    kernel files marked with the copy's name, so that no two copies are the same submission."""
    for s in chapter.sections:
        if (root / "solutions" / s.folder).is_dir():
            shutil.copytree(root / "solutions" / s.folder, folder / s.folder)
            for kernel in s.kernels:
                if (folder / s.folder / kernel).is_file():
                    with open(folder / s.folder / kernel, "a") as f:
                        f.write(f"\n// {folder.name}: a submission of its own\n")
    return folder


def measure(root, chapter, work):
    """(markdown lines, measured, ok): the GPU step's seconds per submission, cold and warm, or
    the line saying why it was not measured; ok is False where a reference copy was not confirmed."""
    why = class_gpu.missing_gpu()
    if why:
        return [f"The GPU step (`grade-class --gpu`) was not measured: {why}."], False, True
    build = work / "gpu-build"
    seconds, problems = [], []
    for k in range(COPIES):
        exercises = _reference_copy(root, chapter, work / f"reference-{k + 1}")
        start = time.perf_counter()
        res, error = class_gpu.grade_on_gpu(root, chapter, None, f"reference-{k + 1}", exercises, build)
        seconds.append(time.perf_counter() - start)
        disagrees = error or class_gpu.verdict(res)
        if disagrees:
            problems.append(f"reference-{k + 1}: {disagrees}")
    gpu = bench_gpu._smi_query("name") or "an NVIDIA GPU"  # the package's one nvidia-smi reader
    lines = [f"The GPU step (`grade-class --gpu`, every section, copies of the reference) on {gpu}: "
             f"{seconds[0]:.0f} s for the first submission of a task (cold: the GPU suite built), "
             f"{sum(seconds[1:]) / len(seconds[1:]):.0f} s for each after it (warm: its kernels compiled again), "
             "one submission at a time."]
    lines += [f"- Not confirmed on the GPU: {p}" for p in problems]
    return lines, True, not problems
