"""How many CPUs this process may use: the fewest of its affinity mask, its cgroup's CPU quota
(v2 `cpu.max`, or v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`) and Slurm's
`SLURM_CPUS_PER_TASK`. os.cpu_count() is the host's count: in a container with `--cpus=2` or a
Slurm job slot of 4 CPUs on a 64-core node, a build or a pool sized by it runs 64 jobs on 2 or 4
CPUs. The C++ runtime applies the same rules (grader/platform/platform_linux.cpp, usable_cpus);
docs/platforms.md, "Using the CPUs you are given", is the rule both follow."""
from __future__ import annotations

import math
import os
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
PROC_CGROUP = Path("/proc/self/cgroup")


def _affinity():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # no affinity call on this platform: the host's count
        return os.cpu_count() or 1


def _read(path):
    try:
        return Path(path).read_text().split()
    except OSError:
        return []


def _quota(quota, period):
    """CPUs a quota allows, rounded up (1.5 CPUs lets two threads make progress); None if none."""
    try:
        q, p = int(quota), int(period)
    except ValueError:
        return None  # "max", or an unreadable file
    return max(1, math.ceil(q / p)) if q > 0 and p > 0 else None


def _cgroup_dirs(cgroup_root, proc_cgroup):
    """(version, folder) for each cgroup folder of this process whose CPU quota applies: its own
    folder and every folder above it (a parent's quota limits its children), v2 first."""
    found = []
    for line in _read_lines(proc_cgroup):
        hierarchy, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if hierarchy == "0" and controllers == "":
            base, version = cgroup_root, 2
        elif "cpu" in controllers.split(","):
            base, version = cgroup_root / controllers, 1
            if not base.is_dir():
                base = cgroup_root / "cpu"  # mounted as cpu,cpuacct with a cpu link, or as cpu alone
        else:
            continue
        parts = [p for p in path.split("/") if p]
        for k in range(len(parts), -1, -1):
            found.append((version, base.joinpath(*parts[:k])))
    return found


def _read_lines(path):
    try:
        return Path(path).read_text().splitlines()
    except OSError:
        return []


def cgroup_cpus(cgroup_root=CGROUP_ROOT, proc_cgroup=PROC_CGROUP):
    """The CPUs the cgroup quotas allow this process, or None when no quota is set."""
    allowed = []
    for version, folder in _cgroup_dirs(Path(cgroup_root), proc_cgroup):
        if version == 2:
            fields = _read(folder / "cpu.max")
            n = _quota(*fields[:2]) if len(fields) >= 2 else None
        else:
            quota, period = _read(folder / "cpu.cfs_quota_us"), _read(folder / "cpu.cfs_period_us")
            n = _quota(quota[0], period[0]) if quota and period else None
        if n:
            allowed.append(n)
    return min(allowed) if allowed else None


def slurm_cpus(environ=None):
    """SLURM_CPUS_PER_TASK as a positive number, or None when unset or not a number."""
    value = (os.environ if environ is None else environ).get("SLURM_CPUS_PER_TASK", "")
    return int(value) if value.strip().isdigit() and int(value) > 0 else None


def usable_cpus(cgroup_root=CGROUP_ROOT, proc_cgroup=PROC_CGROUP, environ=None):
    """The CPUs this process may use: at least 1."""
    limits = [_affinity(), cgroup_cpus(cgroup_root, proc_cgroup), slurm_cpus(environ)]
    return max(1, min(n for n in limits if n))
