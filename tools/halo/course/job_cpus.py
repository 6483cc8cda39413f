"""How many CPUs this process may use: the ones its job was given, never the node's count.

Under Slurm, SLURM_CPUS_PER_TASK is what the task asked for; elsewhere (and as a ceiling) the
CPU affinity mask, which Slurm's task plugins, cgroup cpusets, taskset and containers narrow.
os.cpu_count() counts the whole machine: 64 graders on the 2 CPUs a task was given would
thrash. (tools/halo/core/build.py's jobs() answers the same question for builds.)"""
from __future__ import annotations

import os


def available():
    try:
        allowed = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # no affinity on this OS (macOS)
        allowed = os.cpu_count() or 1
    given = os.environ.get("SLURM_CPUS_PER_TASK", "").strip()
    if given.isdigit() and int(given) > 0:
        return max(1, min(int(given), allowed))
    return max(1, allowed)
