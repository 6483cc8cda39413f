"""`./workbook bench --isolation`: what the sandbox costs. Grades the reference solutions as a
student tree with the sandbox (HALO_SANDBOX=bubblewrap: every compile of a kernel file and every
worker in bubblewrap) and without it (HALO_SANDBOX=none), each in its own build folder: once
cold (configure, build, grade) and then warm (grade again, nothing to rebuild) a few times,
alternating, and prints both and their ratio. Timings inform; they never decide a test."""
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from . import bench_cpu

MODES = ("bubblewrap", "none")


def _grade(root, tree, build, mode):
    env = dict(os.environ, HALO_SANDBOX=mode, HALO_SEED="1", NO_COLOR="1")
    start = time.perf_counter()
    p = subprocess.run([str(Path(root) / "workbook"), "grade", "--exercises", str(tree), "--build-dir", str(build)],
                       env=env, capture_output=True, text=True)
    return time.perf_counter() - start, p.returncode


def run(root, warm_runs=3, out=None):
    root = Path(root)
    m = bench_cpu.machine()
    machine = f"{m['cores']} cores of {m['cpu']}, {m['os']}"
    work = Path(tempfile.mkdtemp(prefix="halo-bench-isolation-"))
    try:
        tree = work / "solutions"
        shutil.copytree(root / "solutions", tree)
        load_before = os.getloadavg()[0]
        cold, warm, status = {}, {m: [] for m in MODES}, {}
        for mode in MODES:
            print(f"cold grade, HALO_SANDBOX={mode}...", flush=True)
            cold[mode], status[mode] = _grade(root, tree, work / f"build-{mode}", mode)
        for k in range(warm_runs):  # alternate, so drift in the machine's speed hits both
            for mode in MODES:
                t, rc = _grade(root, tree, work / f"build-{mode}", mode)
                warm[mode].append(t)
                status[mode] = status[mode] or rc
        lines = [
            "# What the sandbox costs",
            "",
            f"Measured by `./workbook bench --isolation` on {machine}, "
            f"{time.strftime('%Y-%m-%d')}: the reference solutions graded as a student tree (all sections), "
            "with every kernel compile and every worker in bubblewrap, and without the sandbox.",
            "",
            "| grade | with the sandbox (s) | without (s) | ratio |",
            "|---|---:|---:|---:|",
        ]
        for what, a, b in (("cold: configure, build, grade", cold["bubblewrap"], cold["none"]),
                           (f"warm: grade again (median of {warm_runs})", statistics.median(warm["bubblewrap"]),
                            statistics.median(warm["none"]))):
            lines.append(f"| {what} | {a:.1f} | {b:.1f} | {a / b:.2f} |")
        lines += ["", f"Load average (1 min) when the runs began: {load_before:.1f}, when they ended: "
                  f"{os.getloadavg()[0]:.1f} (a quiet machine reads below 0.5; the runs alternate, so other "
                  "work slows both sides alike, but noisily).",
                  "", "Both runs graded every test as passed: " +
                  ("yes" if not any(status.values()) else f"no (exit status {status})"), ""]
        text = "\n".join(lines)
        print(text)
        if out:
            Path(out).parent.mkdir(parents=True, exist_ok=True)
            Path(out).write_text(text)
        return 0 if not any(status.values()) else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
