"""The resource limits grading runs under, against the hard limits of the account that grades.

Every step that touches submission code asks for limits of its own (the compile in sandbox.py,
the worker in grader/platform/linux/worker_process.cpp). An unprivileged process cannot raise a hard
limit, so on a course server with, say, `ulimit -t 120` a step that asks for more failed to
start, and every student scored 0. Now each step asks for min(wanted, hard) (`fitted`), and
`shortfall` is checked once before anything is graded: where a hard limit is below what grading
needs at all, the grade stops with one line naming the limit and the value needed.
"""
from __future__ import annotations

import os
import resource
from dataclasses import dataclass

INFINITY = resource.RLIM_INFINITY


@dataclass(frozen=True)
class Need:
    resource: int
    flag: str      # the `ulimit` option letter that sets it (bash)
    name: str      # what it limits, in words
    needed: int    # the least grading works with, in the resource's own unit
    unit: int      # bytes per `ulimit` unit (1 for seconds and counts)
    shown: str     # how `needed` reads in the message


# What grading needs at all, per process (rlimits count per process, NPROC per uid). On the 2-core
# machine a fresh build and grade of the reference 7.2 and 7.6 passes with every hard limit at
# these values (`prlimit --cpu=30 --as=2G --fsize=32M --nofile=256`), and no file of a build is
# over 2 MiB. Above them the steps' own limits are fitted under the hard limit, which is safe: a
# submission that needs more than the account allows fails its own tests, and no one else's.
NEEDS = (
    Need(resource.RLIMIT_CPU, "t", "CPU time", 30, 1, "30 s"),
    Need(resource.RLIMIT_AS, "v", "address space", 2 << 30, 1024, "2 GiB"),
    Need(resource.RLIMIT_FSIZE, "f", "file size", 32 << 20, 1024, "32 MiB"),
    # The worker keeps 64 files open at most; ninja and clang need more than the worker does.
    Need(resource.RLIMIT_NOFILE, "n", "open files", 256, 1, "256"),
)
# Tasks (processes and threads) a worker may need: one thread per core and the judge's margin
# (grader/remote/judge_client.cpp), plus bubblewrap's own.
WORKER_TASKS = 64


def hard(res):
    """The hard limit of `res` in this process (RLIM_INFINITY when there is none)."""
    return resource.getrlimit(res)[1]


def fitted(res, wanted_soft, wanted_hard=None):
    """(soft, hard) to ask for: what the step wants, cut to the hard limit it runs under, since
    asking for more fails with EPERM and the step would not start at all."""
    wanted_hard = wanted_soft if wanted_hard is None else wanted_hard
    limit = hard(res)
    top = wanted_hard if limit == INFINITY else min(wanted_hard, limit)
    return min(wanted_soft, top), top


def _tasks_of(uid):
    """Tasks (threads included) that `uid` runs now: RLIMIT_NPROC counts them all against the
    worker of an unprivileged grader, which shares its uid."""
    total = 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status") as f:
                fields = dict(line.split(":", 1) for line in f if ":" in line)
        except OSError:
            continue  # ended while we looked
        if int(fields.get("Uid", "-1").split()[0]) == uid:
            total += int(fields.get("Threads", "1"))
    return total


def _processes_needed():
    """Tasks the uid must still be allowed to start. A root grader's workers get a uid of their
    own (an empty count); anyone else's share the grader's uid with what it already runs."""
    if os.geteuid() == 0:
        return WORKER_TASKS
    return _tasks_of(os.getuid()) + WORKER_TASKS


def _line(flag, name, have, needed_units, shown):
    return (f"halo: the hard limit on {name} here (ulimit -H{flag}: {have}) is below the {shown} grading needs; "
            f"nothing was graded: raise it (ulimit -H{flag} {needed_units} or more) or grade from another account")


def shortfall():
    """None when every hard limit leaves grading room to work; else the one line to stop on,
    naming the first limit that is too tight and the value it needs."""
    for need in NEEDS:
        have = hard(need.resource)
        if have != INFINITY and have < need.needed:
            units = -(-need.needed // need.unit)  # rounded up: ulimit -v and -f count KiB
            return _line(need.flag, need.name, have // need.unit, units, need.shown)
    have = hard(resource.RLIMIT_NPROC)
    needed = _processes_needed()
    if have != INFINITY and have < needed:
        return _line("u", "processes", have, needed, f"{needed} processes")
    return None
