"""`./workbook bench --collect`: what `grade-class --collect` costs for a class of 10,000.

The generated class of 20 (course/class_fixture.py) is graded for real, every submission again
(into build/bench-collect, whose harness later runs reuse); then 10,000 synthetic students are
made from its results: student k is a copy of graded student k mod 20 (results, fingerprint,
the files graded), so every verdict the class has appears 500 times. `grade-class --collect`
then runs in a process of its own: its wall time and peak memory (the collect and its worker
processes together, sampled from /proc) are the figures, against the goal of issue 35 (under
60 s and 1 GB on 2 cores). The formula's c is this run's seconds per submission. Timings
inform; they never decide a test."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from . import bench_cpu
from ..course import class_fixture, grade_class

STUDENTS = 10_000
SIZES = (200, 1_000, 10_000)
CORES = (2, 64, 400)
GOAL_S, GOAL_MB = 60, 1024
KEPT = ("results.json", "fingerprint", "submission.txt", "seconds")


def _grade_fixture(root, chapter, work):
    class_fixture.write(root, chapter, work / "fixture")
    args = [str(work / "fixture" / "submissions"), "--course", str(work / "fixture" / "course.toml"),
            "--out", str(work / "graded"), "--fresh"]
    if subprocess.run([str(root / "workbook"), "grade-class", *args]).returncode != 0:
        raise RuntimeError("grade-class could not grade the generated class")
    return work / "graded" / "work" / "students", work / "fixture" / "course.toml"


def _synthetic_class(graded, out, n):
    """`n` students copied from the graded ones (hard links: the files are only read)."""
    sources = sorted(p for p in graded.iterdir() if (p / "fingerprint").is_file())
    subs = out / "submissions"
    shutil.rmtree(out, ignore_errors=True)
    for k in range(n):
        name = f"s{k:05d}"  # no shared "<x>-" prefix: class_submissions would cut it (Classroom names)
        (subs / name).mkdir(parents=True)
        src, home = sources[k % len(sources)], out / "class" / "work" / "students" / name
        shutil.copytree(src / "exercises", home / "exercises", copy_function=os.link)
        for f in KEPT:
            if (src / f).is_file():
                os.link(src / f, home / f)
    return subs, out / "class"


def _tree_rss_kb(pid):
    """The resident memory of `pid` and every process below it, in KiB (from /proc)."""
    parents, rss = {}, {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        parents[int(entry.name)] = int(fields.get("PPid", "0").strip() or 0)
        rss[int(entry.name)] = int(fields.get("VmRSS", "0 kB").split()[0])
    tree, grew = {pid}, True
    while grew:
        below = {p for p, parent in parents.items() if parent in tree} - tree
        tree |= below
        grew = bool(below)
    return sum(rss.get(p, 0) for p in tree)


def run(root, chapter, out=None, students=STUDENTS):
    root = Path(root)
    work = root / "build" / "bench-collect"
    graded, course = _grade_fixture(root, chapter, work)
    load_graded = os.getloadavg()[0]
    subs, class_out = _synthetic_class(graded, work / "synthetic", students)
    start = time.perf_counter()
    run = subprocess.Popen([str(root / "workbook"), "grade-class", str(subs), "--course", str(course), "--out",
                            str(class_out), "--collect"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak_kb = 0
    while run.poll() is None:  # the collect and its workers together, sampled every 0.2 s
        peak_kb = max(peak_kb, _tree_rss_kb(run.pid))
        time.sleep(0.2)
    wall = time.perf_counter() - start
    stdout, stderr = run.communicate()
    p = subprocess.CompletedProcess(run.args, run.returncode, stdout, stderr)
    peak_mb = peak_kb / 1024
    rows = sum(1 for _ in (class_out / "gradebook.csv").open()) - 1 if p.returncode == 0 else 0
    per = [float((h / grade_class.SECONDS).read_text()) for h in graded.iterdir()
           if (h / grade_class.SECONDS).is_file()]
    core_s = sum(per) / len(per)
    harness_s = json.loads((graded.parents[1] / "timings.json").read_text()).get("harness_seconds", 60)
    m = bench_cpu.machine()
    ok = p.returncode == 0 and rows == students
    verdict = "within" if ok and wall < GOAL_S and peak_mb < GOAL_MB else "NOT within"
    text = "\n".join([
        "# Collecting a class of 10,000", "",
        f"Measured by `./workbook bench --collect` on {m['cores']} cores of {m['cpu']}, {m['os']}, "
        f"{time.strftime('%Y-%m-%d')}: `grade-class --collect` over {students:,} synthetic students (copies of the "
        f"graded generated class of 20), writing the gradebook, {2 * students:,} feedback files and the class report.",
        "",
        "| students | wall time (s) | peak memory, all its processes (MB) | goal |",
        "|---:|---:|---:|---|",
        f"| {students:,} | {wall:.1f} | {peak_mb:.0f} | under {GOAL_S} s and {GOAL_MB / 1024:g} GB: {verdict} |",
        "", f"Load average (1 min) when it ended: {os.getloadavg()[0]:.1f}.", "",
        "## A class on a cluster: the formula", "",
        "wall time ≈ harness + submissions × c ÷ cores + collect, where c is one core's seconds per submission "
        f"(here {core_s:.1f} s, the mean over the generated class of 20 for 7.2 and 7.4, graded in this run at "
        f"load {load_graded:.1f}), the harness is built once ({harness_s:.0f} s in this run, warm or cold as it "
        "found it) and the collect "
        f"step scales as measured above ({wall / students * 1000:.1f} ms a student)."
        " Every section costs about six times c "
        "(grade-class-times.md). For 7.2 + 7.4:", "",
        "| submissions | " + " | ".join(f"{c} cores" for c in CORES) + " |",
        "|---:|" + "---:|" * len(CORES)]
        + [f"| {n:,} | " + " | ".join(_clock(harness_s + n * core_s / c + n * wall / students) for c in CORES) + " |"
           for n in SIZES] + [""])
    print(text if p.returncode == 0 else p.stdout[-2000:] + p.stderr[-2000:])
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(text)
    return 0 if ok else 1


def _clock(seconds):
    if seconds < 60:
        return "under 1 min"
    return f"{seconds / 3600:.1f} h" if seconds >= 5400 else f"{seconds / 60:.0f} min"
