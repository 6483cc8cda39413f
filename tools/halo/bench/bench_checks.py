"""`./workbook bench --checks`: what the CPU backend's diagnostics cost. Runs every section's
reference test binary (from a check build) with the checks on and with them off
(HALO_DIAGNOSTICS=off: accesses are still counted, nothing is judged), several times each,
alternating, and prints the median times and their ratio. Timings inform; they never decide
a test."""
import os
import platform
import statistics
import subprocess
import time
from pathlib import Path


def _time(binary, env):
    start = time.perf_counter()
    p = subprocess.run([binary], env=env, capture_output=True, text=True)
    return time.perf_counter() - start, p.returncode


def run(root, chapter, build_dir=None, repeats=3, out=None):
    build_dir = Path(build_dir) if build_dir else Path(root) / "build" / "check"
    rows = []
    for s in chapter.sections:
        binary = build_dir / "grader" / f"test_{s.id.replace('.', '_')}_solutions"
        if not s.kernels:
            continue
        if not binary.exists():
            print(f"halo: {binary} is missing; run ./workbook check first")
            return 2
        base = {k: v for k, v in os.environ.items() if k not in ("HALO_DIAGNOSTICS", "HALO_REPORT_DIR")}
        base["HALO_SEED"] = "1"  # the same inputs for every run
        on, off = [], []
        for _ in range(repeats):  # alternate, so drift in the machine's speed hits both
            t, rc_on = _time(str(binary), base)
            on.append(t)
            t, rc_off = _time(str(binary), dict(base, HALO_DIAGNOSTICS="off"))
            off.append(t)
        rows.append((s.id, statistics.median(on), statistics.median(off), rc_on, rc_off))
    lines = [
        "# What the CPU backend's diagnostics cost",
        "",
        "Bounds, padding, shared-memory race and initialisation checks and read-only inputs, on",
        f"(default) against off (HALO_DIAGNOSTICS=off, accesses still counted); each section's",
        f"reference test binary run whole, median of {repeats}, measured by `./workbook bench --checks`.",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}.",
        "",
        "| section | checks on (s) | checks off (s) | on / off |",
        "|---|---|---|---|",
    ]
    for sid, t_on, t_off, rc_on, rc_off in rows:
        note = "" if rc_on == rc_off == 0 else f" (exit {rc_on} / {rc_off})"
        lines.append(f"| {sid} | {t_on:.2f} | {t_off:.2f} | {t_on / t_off:.2f}x{note} |")
    worst = max(t_on / t_off for _, t_on, t_off, _, _ in rows)
    lines += ["", f"Largest ratio: {worst:.2f}x (the budget is 3x)."]
    text = "\n".join(lines) + "\n"
    print(text)
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(text)
    return 0
