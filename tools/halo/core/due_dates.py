"""Due dates, the late policy and extensions of an assignment (issue 34, item 8), and the commit
of a Classroom clone that is graded under them.

In course.toml:

    timezone = "Europe/Berlin"            # optional: for due dates written without an offset

    [assignments.conv1d]
    due = "2026-12-04 23:59"              # or "2026-12-04T23:59:00+01:00" (an offset needs no timezone)
    late = { policy = "penalty", per_day = "10%", cap = "30%", grace_minutes = 15 }
    extensions = { erin = "2026-12-06 23:59", frank = 2 }   # a new due date, or whole extra days

policy "cutoff" (the default) grades each clone at its last commit before the student's due
date; "penalty" grades the latest commit and, when it is after the due date (and its grace),
takes per_day off for each day or part of one, never more than cap. per_day and cap are points
("2", 2) or a percentage of the assignment's points ("10%").

Which date: a commit's committer date. An amend, rebase or cherry-pick made after the due date
gets a new committer date but keeps the old author date, so the author date would let those
through. Both dates are set by the student's own machine (GIT_COMMITTER_DATE forges either), so
a clone alone cannot prove when work was done; without the platform's push log (which a clone
does not carry) this is the best a clone offers. See docs/instructor.md, "Due dates, late work
and extensions".
"""
from __future__ import annotations

import json
import math
import shutil
import subprocess
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone as dt_timezone
from fractions import Fraction
from pathlib import Path
from typing import Optional
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from . import cents
from .table_keys import unknown_keys

POLICIES = ("cutoff", "penalty")
LATE_KEYS = {"policy", "per_day", "cap", "grace_minutes"}
FORMATS = ("%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S")


class DueDateError(Exception):
    """A due date, late policy or extension that cannot be used; str() names the key."""


@dataclass(frozen=True)
class Amount:
    """A number of points, or a percentage of the assignment's points."""
    value: Fraction
    percent: bool

    def points(self, worth) -> Fraction:
        return self.value * cents.exact(worth) / 100 if self.percent else self.value


@dataclass
class Deadline:
    due: datetime                                  # aware
    policy: str = "cutoff"
    per_day: Amount = Amount(Fraction(0), False)
    cap: Optional[Amount] = None
    grace: timedelta = timedelta(0)
    extensions: dict = field(default_factory=dict)  # {student: aware datetime}

    def due_for(self, student) -> datetime:
        return self.extensions.get(student, self.due)

    def days_late(self, student, when: datetime) -> int:
        """Whole days late (a part of a day counts as one) of work dated `when`, after the grace."""
        over = when - self.due_for(student) - self.grace
        if over <= timedelta(0):
            return 0
        return math.ceil(over / timedelta(days=1))

    def penalty(self, student, when: datetime, worth) -> Fraction:
        """Points taken off work dated `when` under this policy (0 under "cutoff" or on time)."""
        days = self.days_late(student, when) if self.policy == "penalty" else 0
        off = self.per_day.points(worth) * days
        if self.cap is not None:
            off = min(off, self.cap.points(worth))
        return off


def _zone(name, where):
    if name is None:
        return None
    if not isinstance(name, str):
        raise DueDateError(f"{where}: timezone should be a name such as \"Europe/Berlin\"")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise DueDateError(f"{where}: timezone {name!r} is not a known time zone (e.g. \"America/New_York\")") from None


def moment(value, zone, where) -> datetime:
    """An aware datetime from a TOML datetime or a string, in `zone` when it names no offset."""
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, date):
        raise DueDateError(f"{where}: {value} is a date without a time; write e.g. \"{value} 23:59\"")
    elif isinstance(value, str):
        parsed = None
        try:
            parsed = datetime.fromisoformat(value.strip())
        except ValueError:
            for fmt in FORMATS:
                try:
                    parsed = datetime.strptime(value.strip(), fmt)
                    break
                except ValueError:
                    pass
        if parsed is None or len(value.strip()) <= 10:  # a date alone: which minute of it is meant?
            raise DueDateError(f"{where}: {value!r} is not a date and time like \"2026-12-04 23:59\" "
                               "or \"2026-12-04T23:59:00+01:00\"")
    else:
        raise DueDateError(f"{where}: should be a date and time like \"2026-12-04 23:59\"")
    if parsed.tzinfo is None:
        if zone is None:
            raise DueDateError(f"{where}: {value} names no time zone: add an offset (+01:00) or set "
                               "timezone = \"Area/City\" at the top of the course file")
        parsed = parsed.replace(tzinfo=zone)
    return parsed


def _amount(value, where) -> Amount:
    if isinstance(value, bool):
        raise DueDateError(f"{where}: should be points (2) or a percentage (\"10%\")")
    if isinstance(value, (int, float)):
        number, percent = cents.exact(value), False
    elif isinstance(value, str):
        text = value.strip()
        percent = text.endswith("%")
        try:
            number = Fraction(text[:-1].strip() if percent else text)
        except ValueError:
            raise DueDateError(f"{where}: {value!r} should be points (2) or a percentage (\"10%\")") from None
    else:
        raise DueDateError(f"{where}: should be points (2) or a percentage (\"10%\")")
    if number < 0 or (percent and number > 100):
        raise DueDateError(f"{where}: {value!r} should be between 0 and {'100%' if percent else 'the points'}")
    return Amount(number, percent)


def parse(raw, course_timezone, where) -> Optional[Deadline]:
    """The Deadline of an assignment's table `raw` (None without a due date); `where` names it."""
    zone = _zone(course_timezone, f"{where.split(':')[0]}: timezone")
    if raw.get("due") is None:
        for key in ("late", "extensions"):
            if key in raw:
                raise DueDateError(f"{where}: {key} needs a due date (due = \"2026-12-04 23:59\")")
        return None
    due = moment(raw["due"], zone, f"{where}: due")
    late = raw.get("late", {})
    if not isinstance(late, dict):
        raise DueDateError(f"{where}: late should be a table like {{ policy = \"penalty\", per_day = \"10%\" }}")
    stray = unknown_keys(late, LATE_KEYS)
    if stray:
        raise DueDateError(f"{where}: late: {stray}")
    policy = late.get("policy", "cutoff")
    if policy not in POLICIES:
        raise DueDateError(f"{where}: late.policy should be one of {', '.join(POLICIES)}")
    if policy == "penalty" and "per_day" not in late:
        raise DueDateError(f"{where}: late.policy = \"penalty\" needs per_day (points, or a percentage \"10%\")")
    if policy == "cutoff" and set(late) & {"per_day", "cap"}:
        raise DueDateError(f"{where}: late.{sorted(set(late) & {'per_day', 'cap'})[0]} has no effect under "
                           "policy \"cutoff\" (work after the due date is not graded)")
    grace = late.get("grace_minutes", 0)
    if isinstance(grace, bool) or not isinstance(grace, int) or grace < 0:
        raise DueDateError(f"{where}: late.grace_minutes should be a whole number of minutes >= 0")
    deadline = Deadline(due, policy, grace=timedelta(minutes=grace))
    if "per_day" in late:
        deadline.per_day = _amount(late["per_day"], f"{where}: late.per_day")
    if "cap" in late:
        deadline.cap = _amount(late["cap"], f"{where}: late.cap")
    extensions = raw.get("extensions", {})
    if not isinstance(extensions, dict):
        raise DueDateError(f"{where}: extensions should be a table {{ student = \"2026-12-06 23:59\" or days }}")
    for student, value in extensions.items():
        key = f"{where}: extensions.{student}"
        if isinstance(value, int) and not isinstance(value, bool):
            if value <= 0:
                raise DueDateError(f"{key}: extra days should be a whole number > 0")
            deadline.extensions[student] = due + timedelta(days=value)
        else:
            deadline.extensions[student] = moment(value, zone, key)
    return deadline


# ---------------------------------------------------------------- a clone's commit

@dataclass
class Pick:
    """The commit of a clone to grade, and what the student reads about it."""
    commit: Optional[str]   # None: no commit before the due date
    when: Optional[datetime]
    later: int              # commits after the due date that are not graded (cutoff)
    days_late: int          # >0: graded the latest commit, which is this late (penalty)
    note: str


# A clone's own config may ask git to run programs (a signature check, a file-system monitor):
# turned off for every command here, which only read objects (no hooks, filters or checkouts).
SAFE_GIT = ("-c", "log.showSignature=false", "-c", "core.fsmonitor=false")


def _git(clone, *args, check=True):
    return subprocess.run(["git", *SAFE_GIT, "-C", str(clone), *args], capture_output=True, check=check)


def is_clone(path) -> bool:
    return (Path(path) / ".git").exists()


def history(clone):
    """[(commit, committer datetime)] of HEAD's first-parent chain, newest first."""
    done = _git(clone, "log", "--first-parent", "--format=%H %ct", "HEAD", check=False)
    if done.returncode != 0:  # a clone with no commit yet: nothing was handed in
        return []
    out = done.stdout.decode().split("\n")
    return [(h, datetime.fromtimestamp(int(t), dt_timezone.utc)) for h, t in (line.split() for line in out if line)]


def pick(clone, deadline: Deadline, student) -> Pick:
    """Which commit of `clone` is graded: under "cutoff" the last (from HEAD back along first
    parents) dated at or before the student's due date; under "penalty" the latest, with the
    days it is late."""
    due = deadline.due_for(student)
    commits = history(clone)
    shown = due.strftime("%Y-%m-%d %H:%M %Z").strip()
    if deadline.policy == "penalty" and commits:
        head, when = commits[0]
        days = deadline.days_late(student, when)
        note = (f"graded commit {head[:10]} (committed {when:%Y-%m-%d %H:%M} UTC), "
                + (f"{days} day(s) after the due date {shown}: late" if days else f"before the due date {shown}"))
        return Pick(head, when, 0, days, note)
    for later, (commit, when) in enumerate(commits):
        if when <= due + deadline.grace:
            note = f"graded commit {commit[:10]} (committed {when:%Y-%m-%d %H:%M} UTC), the last before the due date {shown}"
            if later:
                note += f"; {later} later commit(s) not graded"
            return Pick(commit, when, later, 0, note)
    return Pick(None, None, len(commits), 0, f"no commit before the due date {shown}: nothing graded")


def write_tree(clone, commit, dest) -> None:
    """The files of `commit` into `dest` (plain files only: no links, no submodules), read as
    objects so that nothing in the student's repository runs."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    listing = _git(clone, "ls-tree", "-r", "-z", "--full-tree", commit).stdout.split(b"\0")
    for entry in listing:
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        mode, kind, sha = meta.split()
        name = path.decode(errors="replace")
        if kind != b"blob" or mode == b"120000" or name.startswith("/") or ".." in Path(name).parts:
            continue
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(_git(clone, "cat-file", "blob", sha.decode()).stdout)


def graded_source(deadline: Optional[Deadline], path, student, home):
    """(the folder to grade, a note for the student or None) of a submission at `path`: a
    Classroom clone under a due date is graded as its picked commit, written into home/at-due
    (and home/due.json says which commit and how late, for the gradebook); anything else as it is."""
    home = Path(home)
    due_file = home / "due.json"
    if deadline is None or not is_clone(path):
        due_file.unlink(missing_ok=True)
        return Path(path), None
    chosen = pick(path, deadline, student)
    tree = home / "at-due"
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    if chosen.commit:
        write_tree(path, chosen.commit, tree)
    due_file.write_text(json.dumps({"commit": chosen.commit, "days_late": chosen.days_late,
                                    "later_commits": chosen.later, "note": chosen.note}) + "\n")
    return tree, chosen.note
