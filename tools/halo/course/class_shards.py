"""How `grade-class --shard K/N` splits a class, and the locks that let shards share one folder.

A shard is a fixed part of the class's full, sorted student list (student i of the list is in
shard i mod N + 1): the same for every run and every listing order, whichever shards ran
before, and never computed from a subset (sub-folders would rename students: class_submissions
strips the prefix that a subset's names share). Shards of one class share OUT/work/: the
harness is built there once, under a lock, and each student is graded under their own lock, so
a shard run twice, or two runs racing, grade a student once and never leave half a result.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
from pathlib import Path

PLAN = "shards.json"   # in OUT/work: how many shards the class was last split into


class ShardError(ValueError):
    """--shard is not K/N with 1 <= K <= N (the message says so)."""


def parse(text):
    """(k, n) from "K/N", 1-based as the instructor writes it."""
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "")
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise ShardError(f"--shard {text!r}: expected K/N with 1 <= K <= N (e.g. 3/8)")
    return int(m.group(1)), int(m.group(2))


def shard_of(position, count):
    """The 1-based shard of the student at `position` (0-based) of the sorted class list."""
    return position % count + 1


def pick(subs, k, n):
    """The submissions of shard k of n, from the whole class (sorted by student)."""
    ordered = sorted(subs, key=lambda s: s.student)
    return [s for i, s in enumerate(ordered) if shard_of(i, n) == k]


def remember(work, n):
    """Records the split, so that --collect can name the shard a missing student belongs to."""
    path = Path(work) / PLAN
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{PLAN}.{os.getpid()}")
    tmp.write_text(json.dumps({"count": n}) + "\n")
    tmp.replace(path)


def planned(work):
    """The shard count the last shard run used, or None (the class was graded unsharded)."""
    try:
        return int(json.loads((Path(work) / PLAN).read_text())["count"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


@contextlib.contextmanager
def locked(path):
    """Holds an exclusive flock on `path` (created if need be) for the block; another holder
    waits. flock is released by the kernel when its holder dies, so a killed shard never
    leaves a lock behind (on NFS, Linux maps flock to the server's byte-range locks)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
