"""`./workbook bench --class`: what grading a class costs on this machine. Grades the generated
class of 20 submissions for 7.2 and 7.4 (course/class_fixture.py) and a class of 6 copies of the
reference for every section, each twice with `grade-class`: cold (the harness built from
nothing) and warm (the harness kept, every submission graded again). Prints seconds per
submission (wall time of the whole run over the submissions: every core in use) and the
projected time for a class of 200; then the GPU step (bench_class_gpu.py), or a line saying it
was not measured (no GPU). Timings inform; they never decide a test."""
import os
import shutil
import tempfile
import time
from pathlib import Path

from . import bench_class_gpu, bench_cpu
from ..course import class_fixture, grade_class

CLASS_SIZE = 200
ALL_SECTIONS_COPIES = 6


def _timed(root, chapter, submissions, out, course, fresh):
    start = time.perf_counter()
    status = grade_class.run(root, chapter, submissions, out, None, course, None, fresh=fresh)
    return time.perf_counter() - start, status


def _all_sections_class(root, chapter, work):
    """Copies of the reference for every section, under a course file assigning them all."""
    subs = work / "submissions"
    for k in range(ALL_SECTIONS_COPIES):
        for s in chapter.sections:
            if (root / "solutions" / s.folder).is_dir():
                shutil.copytree(root / "solutions" / s.folder, subs / f"reference-{k + 1}" / s.folder)
    course = work / "course.toml"
    course.write_text('[assignments.all]\nsections = [' + ", ".join(f'"{s.id}"' for s in chapter.sections) + "]\n")
    return subs, course


def run(root, chapter, out=None, gpu_only=False):
    """`bench --class`: the CPU grade of two classes, then the GPU step (bench_class_gpu.py);
    `gpu_only`: the GPU step alone (on a GPU machine, where the CPU part was measured apart)."""
    root = Path(root)
    m = bench_cpu.machine()
    machine = f"{m['cores']} cores of {m['cpu']}, {m['os']}"
    work = Path(tempfile.mkdtemp(prefix="halo-bench-class-"))
    rows, ok = [], True
    load_before = os.getloadavg()[0]
    os.environ.pop("HALO_COURSE_SECRET", None)  # each class's course file holds its own
    try:
        gpu_lines, measured, gpu_ok = bench_class_gpu.measure(root, chapter, work / "gpu")
        if gpu_only:  # asked for the GPU step alone: not measuring it is a failure
            return _report(["# Grading a class: the GPU step", "", f"Measured by `./workbook bench --class "
                            f"--gpu-only` on {machine}, {time.strftime('%Y-%m-%d')}.", ""] + gpu_lines + [""],
                           out, measured and gpu_ok)
        fixture = work / "fixture"
        class_fixture.write(root, chapter, fixture)
        everything = work / "all"
        subs_all, course_all = _all_sections_class(root, chapter, everything)
        for label, subs, course, n in (("7.2 + 7.4 (the generated class)", fixture / "submissions",
                                        fixture / "course.toml", len(list((fixture / "submissions").iterdir()))),
                                       ("every section (copies of the reference)", subs_all, course_all,
                                        ALL_SECTIONS_COPIES)):
            out_dir = subs.parent / "class"
            cold, s1 = _timed(root, chapter, subs, out_dir, course, fresh=True)
            warm, s2 = _timed(root, chapter, subs, out_dir, course, fresh=True)
            ok = ok and s1 == 0 and s2 == 0
            project = cold - warm + CLASS_SIZE * warm / n
            rows.append(f"| {label} | {n} | {cold / n:.1f} | {warm / n:.1f} | {project / 60:.0f} min |")
        lines = ["# Grading a class", "",
                 f"Measured by `./workbook bench --class` on {machine}, {time.strftime('%Y-%m-%d')}, "
                 f"{m['cores']} submissions graded at a time. Seconds per submission are the wall time of the whole "
                 "`./workbook grade-class` run over the number of submissions. Cold builds the harness (judges and "
                 "runtime) first; warm keeps it and grades every submission again. The projection for "
                 f"{CLASS_SIZE} is the harness once plus {CLASS_SIZE} warm submissions.", "",
                 "| class | submissions | cold (s each) | warm (s each) | projected for 200 |",
                 "|---|---:|---:|---:|---:|"] + rows
        lines += ["", f"Load average (1 min) when the runs began: {load_before:.1f}, when they ended: "
                      f"{os.getloadavg()[0]:.1f}.", ""] + gpu_lines + [""]
        return _report(lines, out, ok and gpu_ok)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _report(lines, out, ok):
    text = "\n".join(lines)
    print(text)
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(text)
    return 0 if ok else 1
