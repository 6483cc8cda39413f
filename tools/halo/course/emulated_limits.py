"""Gradescope's default autograder limits (half a CPU, 768 MB of memory, 10 minutes) on this
machine, to measure what a submission costs there before students find out.

As root with cgroups (v2: cpu.max and memory.max; v1: the cpu and memory controllers), the
command runs in a cgroup of its own with that CPU quota and memory limit, which every process it
starts inherits, as in Gradescope's container. Otherwise: one core (taskset) and a 768 MB
address-space limit per process (prlimit), which is looser, and the description says so.
"""
from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

CPU_QUOTA, CPU_PERIOD = 50_000, 100_000     # half a CPU, in microseconds per period
MEMORY = 768 * 1024 * 1024
SECONDS = 600
CGROUP = Path("/sys/fs/cgroup")


def _v2():
    return (CGROUP / "cgroup.controllers").is_file()


def _try_cgroup(name):
    """The cgroup folders made for `name` with the limits written, or None when that fails."""
    made = []
    try:
        if _v2():
            g = CGROUP / name
            g.mkdir()
            made.append(g)
            (g / "cpu.max").write_text(f"{CPU_QUOTA} {CPU_PERIOD}\n")
            (g / "memory.max").write_text(f"{MEMORY}\n")
            (g / "memory.swap.max").write_text("0\n") if (g / "memory.swap.max").exists() else None
        else:
            cpu, mem = CGROUP / "cpu" / name, CGROUP / "memory" / name
            for g in (cpu, mem):
                g.mkdir()
                made.append(g)
            (cpu / "cpu.cfs_period_us").write_text(f"{CPU_PERIOD}\n")
            (cpu / "cpu.cfs_quota_us").write_text(f"{CPU_QUOTA}\n")
            (mem / "memory.limit_in_bytes").write_text(f"{MEMORY}\n")
        return made
    except OSError:
        for g in reversed(made):
            with contextlib.suppress(OSError):
                g.rmdir()
        return None


@contextlib.contextmanager
def limited(argv):
    """with limited(argv) as (argv_in_limits, description): run argv_in_limits with subprocess."""
    name = f"halo-gradescope-{os.getpid()}"
    groups = _try_cgroup(name) if os.geteuid() == 0 else None
    try:
        if groups:
            joins = " ".join(f"echo $$ > '{g}/cgroup.procs';" for g in groups)
            yield (["sh", "-c", f"{joins} exec \"$@\"", "sh", *argv],
                   f"a cgroup ({'v2' if _v2() else 'v1'}) of half a CPU ({CPU_QUOTA} of every {CPU_PERIOD} us) "
                   f"and {MEMORY // 2**20} MB of memory")
        elif shutil.which("taskset") and shutil.which("prlimit"):
            yield (["taskset", "-c", "0", "prlimit", f"--as={MEMORY}", *argv],
                   f"no cgroups here: one whole core (taskset) and {MEMORY // 2**20} MB of address space per process "
                   "(prlimit), looser than Gradescope's half CPU")
        else:
            yield argv, "no limits: neither cgroups nor taskset and prlimit are available"
    finally:
        for g in reversed(groups or []):
            with contextlib.suppress(OSError):
                g.rmdir()
