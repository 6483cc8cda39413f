"""Where a fresh clone's first `./workbook grade` spends its build (issue 36 item 4): Ninja's own
log (`.ninja_log` of the grade build) read into the parts of the grader, each with the compiler
time its steps took. Steps overlap (one job per core), so the parts add up to more than the wall
time; the wall time is the build's from its first step's start to its last step's end.
"""
import re
from pathlib import Path

# (part, pattern of a step's output path), first match wins. The kernel files are the student's
# (built in the sandbox, after validation); everything above them is the grader's own code,
# the same for every student of one commit.
PARTS = [
    ("the generated chapter headers", re.compile(r"(^|/)generated/halo/")),
    ("the runtime and test-support libraries", re.compile(
        r"CMakeFiles/halo_(platform|runtime_common|remote_wire|cpu_runtime|judge_runtime|worker_main|testing_judge)"
        r"(_cold)?\.dir/")),  # _cold: a library's unoptimised half (grader/CMakeLists.txt)
    ("the precompiled headers (the judges', the worker entry tables')",
     re.compile(r"CMakeFiles/halo_(judge|worker_entry)_headers\.dir/")),
    ("the judges (each section's tests)", re.compile(r"CMakeFiles/judge_[0-9_]+\.dir/")),
    ("the worker entry tables", re.compile(r"CMakeFiles/halo_worker_entries_[0-9_]+\.dir/")),
    ("the kernel files (validated, compiled in the sandbox)", re.compile(r"CMakeFiles/test_[0-9_]+_kernels\.dir/")),
    ("links and archives", re.compile(r"(\.a|/judge_[0-9_]+|/test_[0-9_]+_worker)$")),
]
OTHER = "other steps"


def read_log(path):
    """[(start_ms, end_ms, output)] of the last run of every step, one entry per command (a
    command with several outputs is logged once per output, with the same times)."""
    steps, seen = [], set()
    for line in Path(path).read_text(errors="replace").splitlines():
        if line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) < 4 or not fields[0].isdigit() or not fields[1].isdigit():
            continue
        start, end, output = int(fields[0]), int(fields[1]), fields[3]
        command = (start, end, fields[4] if len(fields) > 4 else output)  # one command's outputs share its hash
        if command in seen:
            continue
        seen.add(command)
        steps.append((start, end, output))
    return steps


def part_of(output):
    for name, pattern in PARTS:
        if pattern.search(output):
            return name
    return OTHER


def breakdown(steps):
    """{"wall": seconds, "parts": [(part, seconds, steps)] in PARTS order, "total": seconds}."""
    sums = {}
    for start, end, output in steps:
        seconds, count = sums.get(part_of(output), (0.0, 0))
        sums[part_of(output)] = (seconds + (end - start) / 1000, count + 1)
    order = [name for name, _ in PARTS] + [OTHER]
    parts = [(name, *sums[name]) for name in order if name in sums]
    wall = (max(e for _, e, _ in steps) - min(s for s, _, _ in steps)) / 1000 if steps else 0.0
    return {"wall": wall, "parts": parts, "total": sum(s for _, s, _ in parts)}


def markdown(data):
    """The breakdown's lines for the results page: the phases of the grade, then the build's parts."""
    b = data["build"]
    lines = ["## Where the first grade's time goes", "",
             "Step (c) again, in phases: the configure alone (timed in a new build folder of the same clone, "
             "after the step), the build and the tests as the grade itself timed them (its own "
             "\"done in\" lines), then the build's steps from Ninja's log (`.ninja_log`), by part of the grader. "
             "A part's time is the sum of its steps' times; steps run side by side (one job per core), so the "
             "parts add up to more than the build's wall time.", "",
             "| phase | wall time |", "|---|---|"]
    for name, seconds in data["phases"]:
        lines.append(f"| {name} | {seconds:.1f} s |")
    lines += ["", f"The build: {b['wall']:.1f} s of wall time, {b['total']:.1f} s of steps.", "",
              "| part of the build | steps | time of its steps | share |", "|---|---|---|---|"]
    for name, seconds, count in b["parts"]:
        share = 100 * seconds / b["total"] if b["total"] else 0
        lines.append(f"| {name} | {count} | {seconds:.1f} s | {share:.0f} % |")
    part = data.get("student_part")
    if part:
        said = "".join(f"; {name} {seconds:.0f} s" for name, seconds in part["phases"])
        lines += ["", "What a grader built once per commit and reused (not built in the clone) would leave: every "
                  f"kernel file touched, then `./workbook grade` again took {part['seconds']:.1f} s{said} "
                  "(the kernel files' compiles and the workers' links, then the tests; no configure)."]
    return lines
