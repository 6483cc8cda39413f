"""`./workbook redteam`: grades every hostile submission of grader/redteam/ and fails each one
the grader rewards (issue 13, item 9).

    python3 -m halo.dev.redteam [--only NAME]... [--mode grade|grade-class|autograder|all] [--build-dir DIR]
                            [--keep] [--commit REV] [--working-tree] [--checkout DIR]
                            [--skip-heavy] [--list] [--timeout S] [--settle S] [--without-bubblewrap NAME]...
    (from tools/; or run(root, names, mode) from the command line's `redteam`)

Each attack (grader/redteam/attacks.toml) is the files it changes, at their exercises/ paths,
and the special files git cannot hold (`special`: links, named pipes, huge files), made as the
attack is laid out.
For each one the runner lays them over a copy of exercises/ and grades the tree from a checkout
of this repository that it owns: by default a clone of `--commit` (HEAD) in the work folder,
with `--working-tree` this checkout's uncommitted changes (but exercises/, a student's) committed on top, in the clone only.
Tampering attacks aim at the checkout they are graded from: never point --checkout at a tree
you care about. The work folder (`--build-dir`, kept and reused: the clone is updated in place
and the grade build restarts from the last clean one, so builds stay warm; a temporary folder
otherwise) holds the clone, the builds, the fake /autograder roots and logs/ (one log per grade).

  grade       ./workbook grade --exercises TREE --build-dir BUILD SECTION [--student ID]
  grade-class ./workbook grade-class CLASS --assignment s<SECTION> --course COURSE --out OUT --fresh
              --jobs 1: a class of one student folder (the submitter's) holding the attack's files,
              graded by the instructor's class runner (harness built once under OUT, the
              submission's kernel files compiled and run per test), scored from the gradebook
  autograder  the Gradescope zip (./workbook export gradescope-autograder), unpacked into a fake
              /autograder root; the attack's files are the submission, submission_metadata.json
              names the submitter; run_autograder runs with AUTOGRADER_ROOT set, as root and as
              an unprivileged user (setpriv --reuid 65534) when the runner is root
              (--users), and with --without-bubblewrap those attacks once more with
              HALO_SANDBOX=rlimits-only. The passes share one fake root: the first builds the
              judges and the runtime, each later one starts from that build, given to its user

and compares the score (grade: passed tests plus right answers of the graded sections in
results.json; grade-class: the student's total in gradebook.csv; autograder: Gradescope's score) with its baseline graded the same way: the
untouched stub, or for load hiding the [[control]] kernel that loads as much and hides nothing.
An attack fails when it scores more, passes every loads test of its section (load hiding),
changes results after the grader finished (checked again `--settle` seconds later when any of
its processes is still running; with none left nothing can change them), leaves a
process running (the runner is a child subreaper: orphans come back to it), changes the
checkout (git status and a listing of path, size, mtime and ctime, build/ left out) or the fake
root's source, leaves files in /tmp, /var/tmp or /dev/shm, connects to 127.0.0.1:47213 (the
runner listens there during each grade), lets the course secret or /etc/passwd's first line
into any output, gives no verdict (no results file, or still running after `--timeout`), or
grades without saying its `message`.

The grader gets the red-team course secret COURSE_SECRET (HALO_COURSE_SECRET, and course.toml in
the checkout and in the fake root's source), a fixed HALO_SEED, PYTHONDONTWRITEBYTECODE=1 (so
that the grader's own .pyc files do not count as changes to the checkout: the runner compiles
the checkout's and the fake root's before the grades, and they are compared before and after
each as every file there is) and NO_COLOR=1.
Running as root, each grade runs in its own mount namespace with a private /tmp (a folder of
the work folder bound over /tmp, the work folder bound back at its own path), /var/tmp and
/dev/shm, so that what an attack leaves there is found exactly, never lands on the machine, and
nothing another program writes there is taken for it; otherwise the real ones are compared before
and after, `--tmp-ignore` leaving out what other users write there.
Grades run under prlimit: RLIMIT_AS (`--as-limit`) and, for the unprivileged user, RLIMIT_NPROC
(`--nproc`), a safety net for running the suite against a grader without limits of its own
(root ignores RLIMIT_NPROC: the fork bomb caps itself at 256 children per process).

One line per attack and mode, `PASS name [mode]` or `FAIL name [mode]: reason; reason`, then
exactly `N passed, M failed`. A baseline whose grade changed the checkout or /tmp, or a control
that passes its loads tests, is a FAIL line too. Exit status 1 when anything failed, 2 on a
usage or set-up error, 77 (CTest's "skipped") when --users asks for root or nobody and the
runner is not root.
"""
from __future__ import annotations

import argparse
import csv
import ctypes
import fnmatch
import hashlib
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.9, 3.10
    import tomli as tomllib  # type: ignore

from ..core import chapter_data, grader_cache
from ..course import class_submissions
from .background_removal import BackgroundRemoval
from . import tree_reset
from .tree_reset import TreeResets, copy_tree as _copy_tree
from ..core.workbook_argv import workbook_argv

ROOT = Path(__file__).resolve().parents[3]
REDTEAM_DIR = Path("grader") / "redteam"
MANIFEST = REDTEAM_DIR / "attacks.toml"

COURSE_SECRET = "halo-redteam-course-secret-3b8e1f0a"  # not a real course's: the variant-* files use it
LISTEN_PORT = 47213  # secret-network-exfiltration connects here
DEFAULT_SUBMITTER = "bob"
NOBODY = 65534
TECHNIQUES = ("exit-status-forgery", "test-list-forgery", "result-tampering", "grader-tampering",
              "build-time-execution", "load-hiding", "secret-reading", "variant-copying",
              "resource-exhaustion", "detached-process", "output-forgery")
STUB = "the stub"
SCORE_PREFIX = "no more than "
SCAN_LIMIT = 64 << 20  # bytes of one output file searched for leaks
# What a grade may change in the checkout: its build, and what git itself rewrites (git status
# refreshes the index).
CHECKOUT_SKIP = ("build", ".git/index", ".git/FETCH_HEAD", ".git/ORIG_HEAD")


def _baseline_env(entry) -> dict:
    """The stub baseline (entry None) runs its untouched stubs (HALO_RUN_STUBS=1, core/untouched_stubs.py):
    every later grade restarts from the baseline's build, which must then hold the judges and the
    runtime, or each attack would build them again (80 s each); the attacks' own grades take the
    shortcut for the sections they leave untouched."""
    return {"HALO_RUN_STUBS": "1"} if entry is None else {}


# What --without-bubblewrap's pass sets HALO_SANDBOX to (core/sandbox.py).
FALLBACK_SANDBOX = "rlimits-only"

# The exit status CTest reports as skipped (SKIP_RETURN_CODE).
SKIPPED = 77


class ManifestError(Exception):
    pass


# ---------------------------------------------------------------- the manifest

@dataclass
class Entry:
    name: str
    section: str
    what: str
    files: list  # paths relative to the attack folder (= to exercises/)
    technique: str = "control"
    baseline: str = STUB  # STUB or a control's name
    message: str = ""
    submitter: str = DEFAULT_SUBMITTER
    heavy: bool = False
    control: bool = False
    special: list = field(default_factory=list)  # tables of attacks.toml's `special`, made at lay-out
    shown_by: str = ""  # an attack's control: what it would have earned had the defence let it through
    shows: str = ""     # a control's claim, checked: SHOWS_MORE (it scores more than the stub)


SPECIAL_KINDS = {"link": ("target",), "fifo": (), "copy": ("target",), "repeat": ("text", "bytes")}
SHOWS_MORE = "more than the stub"
REPEAT_LIMIT = 1 << 30


def _special_problems(where, special, section) -> list:
    """What is wrong with an entry's `special` list: each item {path, kind, ...}, its path in
    the section's folder; link: a `target` (an absolute path, or one in the checkout); fifo: a
    named pipe; copy: a regular file copied from `target` in the checkout; repeat: `text`
    written over and over to `bytes` bytes (a file too big to commit)."""
    if not isinstance(special, list):
        return [f"{where}: special should be an array of tables"]
    problems = []
    for item in special:
        if not isinstance(item, dict) or item.get("kind") not in SPECIAL_KINDS:
            problems.append(f"{where}: special: each item needs a kind, one of {', '.join(SPECIAL_KINDS)}")
            continue
        needs = ("path", "kind") + SPECIAL_KINDS[item["kind"]]
        if set(item) != set(needs):
            problems.append(f"{where}: special {item.get('path')!r}: a {item['kind']} has exactly {', '.join(needs)}")
            continue
        path = item["path"]
        if not isinstance(path, str) or Path(path).is_absolute() or ".." in Path(path).parts or \
                not (isinstance(section, str) and Path(path).parts[0].startswith(section + "-")):
            problems.append(f"{where}: special {path!r} is not a path in section {section}'s folder")
        if item["kind"] == "repeat" and not (isinstance(item["bytes"], int) and 0 < item["bytes"] <= REPEAT_LIMIT
                                             and isinstance(item["text"], str) and item["text"]):
            problems.append(f"{where}: special {path!r}: repeat needs some text and 1 to {REPEAT_LIMIT} bytes")
    return problems


def _files_of(folder: Path) -> list:
    if not folder.is_dir():
        return []
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() or p.is_symlink())


def manifest_problems(root=ROOT) -> list:
    """Everything wrong with grader/redteam/ (an empty list when it is well-formed): the unit
    test and load_manifest share it."""
    root = Path(root)
    path = root / MANIFEST
    try:
        doc = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        return [f"{path}: {e}"]
    problems = []
    extra = set(doc) - {"attack", "control"}
    if extra:
        problems.append(f"{path}: unknown top-level keys {sorted(extra)}")
    attacks, controls = doc.get("attack", []), doc.get("control", [])
    if not isinstance(attacks, list) or not isinstance(controls, list):
        return problems + [f"{path}: [[attack]] and [[control]] must be arrays of tables"]
    exercises = root / "exercises"
    names = []
    for kind, entries, keys, optional in (
            ("attack", attacks, ("name", "section", "technique", "what", "expect"),
             ("submitter", "heavy", "special", "control")),
            ("control", controls, ("name", "section", "what"), ("special", "shows"))):
        for k, e in enumerate(entries):
            where = f"{path}: {kind} {k + 1}"
            if not isinstance(e, dict):
                problems.append(f"{where}: not a table")
                continue
            name = e.get("name")
            where = f"{path}: {kind} {name!r}" if isinstance(name, str) else where
            for key in keys:
                if not isinstance(e.get(key), (dict if key == "expect" else str)) or e.get(key) in ("", {}):
                    problems.append(f"{where}: {key} is missing or not a {'table' if key == 'expect' else 'string'}")
            unknown = set(e) - set(keys) - set(optional)
            if unknown:
                problems.append(f"{where}: unknown keys {sorted(unknown)}")
            if not isinstance(name, str) or not name:
                continue
            names.append(name)
            if name != Path(name).name or name.startswith("."):
                problems.append(f"{where}: the name must be a plain folder name")
                continue
            if kind == "attack" and e.get("technique") not in TECHNIQUES:
                problems.append(f"{where}: technique {e.get('technique')!r} is not one of {', '.join(TECHNIQUES)}")
            if "submitter" in e and (not isinstance(e["submitter"], str) or not e["submitter"].strip()):
                problems.append(f"{where}: submitter should be a student ID")
            if "heavy" in e and not isinstance(e["heavy"], bool):
                problems.append(f"{where}: heavy should be true or false")
            expect = e.get("expect")
            if isinstance(expect, dict):
                if set(expect) - {"score", "message"}:
                    problems.append(f"{where}: expect has unknown keys {sorted(set(expect) - {'score', 'message'})}")
                score = expect.get("score")
                if not isinstance(score, str) or not score.startswith(SCORE_PREFIX):
                    problems.append(f"{where}: expect.score should read \"{SCORE_PREFIX}{STUB}\" "
                                    f"(or \"{SCORE_PREFIX}<control>\")")
                if not isinstance(expect.get("message", ""), str):
                    problems.append(f"{where}: expect.message should be a string")
            section = e.get("section")
            if "special" in e:
                problems += _special_problems(where, e["special"], section)
            if "shows" in e and e["shows"] != SHOWS_MORE:
                problems.append(f"{where}: shows should read {SHOWS_MORE!r}")
            folder = root / REDTEAM_DIR / name
            if not folder.is_dir():
                if not e.get("special"):  # git keeps no empty folder: special files alone need none
                    problems.append(f"{where}: no folder {folder.relative_to(root)}")
                continue
            files = _files_of(folder)
            if not files and not e.get("special"):
                problems.append(f"{where}: {folder.relative_to(root)} holds no file")
            for rel in files:
                p = folder / rel
                if p.is_symlink():
                    problems.append(f"{where}: {rel} is a link")
                elif not (exercises / rel).is_file():
                    problems.append(f"{where}: {rel} is not a file of exercises/")
                elif isinstance(section, str) and not Path(rel).parts[0].startswith(section + "-"):
                    problems.append(f"{where}: {rel} is not in section {section}'s folder")
    seen = set()
    for n in names:
        if n in seen:
            problems.append(f"{path}: the name {n!r} is used twice")
        seen.add(n)
    controls_named = {c.get("name") for c in controls if isinstance(c, dict)}
    for e in attacks:
        if isinstance(e, dict) and "control" in e and e["control"] not in controls_named:
            problems.append(f"{path}: attack {e.get('name')!r}: control {e['control']!r} is not a [[control]]")
    for e in attacks:
        if isinstance(e, dict) and isinstance(e.get("expect"), dict):
            score = e["expect"].get("score", "")
            if isinstance(score, str) and score.startswith(SCORE_PREFIX):
                base = score[len(SCORE_PREFIX):]
                if base != STUB and base not in controls_named:
                    problems.append(f"{path}: attack {e.get('name')!r}: {base!r} is neither {STUB!r} nor a control")
    folders = {p.name for p in (root / REDTEAM_DIR).iterdir() if p.is_dir()} if (root / REDTEAM_DIR).is_dir() else set()
    for orphan in sorted(folders - seen - {"__pycache__"}):
        problems.append(f"{root / REDTEAM_DIR / orphan}: a folder that attacks.toml does not list")
    return problems


def load_manifest(root=ROOT) -> tuple:
    """(attacks, controls): lists of Entry. ManifestError when the manifest is not well-formed."""
    root = Path(root)
    problems = manifest_problems(root)
    if problems:
        raise ManifestError("\n".join(problems))
    doc = tomllib.loads((root / MANIFEST).read_text())
    attacks, controls = [], []
    for e in doc.get("control", []):
        controls.append(Entry(name=e["name"], section=e["section"], what=e["what"], control=True,
                              files=_files_of(root / REDTEAM_DIR / e["name"]), special=e.get("special", []),
                              shows=e.get("shows", "")))
    for e in doc.get("attack", []):
        expect = e["expect"]
        attacks.append(Entry(name=e["name"], section=e["section"], what=e["what"], technique=e["technique"],
                             baseline=expect["score"][len(SCORE_PREFIX):], message=expect.get("message", ""),
                             submitter=e.get("submitter", DEFAULT_SUBMITTER).strip(), heavy=e.get("heavy", False),
                             files=_files_of(root / REDTEAM_DIR / e["name"]), special=e.get("special", []),
                             shown_by=e.get("control", "")))
    return attacks, controls


def select(attacks, patterns) -> list:
    """The attacks named by `patterns` (names, techniques or shell globs); all when none."""
    if not patterns:
        return list(attacks)
    chosen = [a for a in attacks if any(fnmatch.fnmatchcase(a.name, p) or a.technique == p for p in patterns)]
    unknown = [p for p in patterns if not any(fnmatch.fnmatchcase(a.name, p) or a.technique == p for a in attacks)]
    if unknown:
        raise ManifestError(f"no attack is named {', '.join(unknown)} (--list shows them)")
    return chosen


# ---------------------------------------------------------------- processes

def _set_subreaper():
    """Orphans of the grade (double forks, setsid daemons) are re-parented to this process, so
    that they can be found as its descendants."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


@dataclass
class Proc:
    pid: int
    ppid: int
    state: str
    start: int
    uid: int
    comm: str


def _processes() -> dict:
    procs = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            uid = os.stat(f"/proc/{entry}").st_uid
        except OSError:
            continue
        close = stat.rfind(")")
        fields = stat[close + 2:].split()
        procs[int(entry)] = Proc(int(entry), int(fields[1]), fields[0], int(fields[19]), uid,
                                 stat[stat.find("(") + 1:close])
    return procs


def _cmdline(pid) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def _cwd(pid) -> str:
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return ""


def _reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _exiting(pid) -> bool:
    """Whether a process has let go of its memory: it is in the kernel's exit path (or a zombie,
    or gone), and no code of it runs again. A sandbox's bwrap tearing down its namespaces stays
    there for seconds on a loaded machine (a CI hour with 30 to 40 % of the cores taken by the
    hypervisor), with an empty command line; it is no process the grade left running. A running
    process always has a VmSize line, whatever it did to its own command line."""
    try:
        return "\nVmSize:" not in Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True


def _leftovers(before: set, work: Path, uid: Optional[int]) -> list:
    """Processes started during the grade that are still running: this process's descendants,
    those whose working folder or command line is inside the work folder, and (grading as an
    unprivileged user) that user's new processes."""
    me = os.getpid()
    procs = _processes()
    children = {}
    for p in procs.values():
        children.setdefault(p.ppid, []).append(p.pid)
    mine, stack = set(), [me]
    while stack:
        for c in children.get(stack.pop(), []):
            if c not in mine:
                mine.add(c)
                stack.append(c)
    def someone_elses(p):
        """Started under a process that was already running (a shell looking at the work
        folder, say), other than this one and init: not the grade's."""
        seen = set()
        while p.ppid in procs and p.ppid not in seen:
            seen.add(p.ppid)
            parent = procs[p.ppid]
            if parent.pid in (me, 1):
                return False
            if (parent.pid, parent.start) in before:
                return True
            p = parent
        return False

    found = []
    for p in procs.values():
        if p.pid == me or p.state in ("Z", "X") or (p.pid, p.start) in before or _exiting(p.pid):
            continue
        if p.pid in mine:
            found.append(p)
            continue
        inside = str(work) in _cwd(p.pid) or str(work) in _cmdline(p.pid)
        if (inside or (uid is not None and uid != 0 and p.uid == uid)) and not someone_elses(p):
            found.append(p)
    return found


def _kill_leftovers(before, work, uid) -> list:
    """Kills what the grade left running (SIGKILL, a few rounds: a fork loop keeps adding);
    returns a description of each process found the first time."""
    seen = {}
    for _ in range(5):
        procs = _leftovers(before, work, uid)
        if not procs:
            break
        for p in procs:
            if p.pid not in seen:
                seen[p.pid] = f"pid {p.pid} ({p.comm}) cmd {_cmdline(p.pid)[:120]!r}"
            try:
                os.kill(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.3)
        _reap()
    _reap()
    return list(seen.values())


def _process_marks() -> set:
    return {(p.pid, p.start) for p in _processes().values()}


# ---------------------------------------------------------------- files

def _listing(top: Path, skip=(), ignore=(), ctime=False) -> dict:
    """{relative path: (kind, size, mtime_ns)} under `top`, links not followed. `skip`: relative
    paths left out with everything under them; `ignore`: globs of absolute paths left out.
    `ctime`: a file's and a link's inode change time too, for two listings of one tree (a copy's
    differ): a writer can put a file's size and mtime back (utime), never its ctime.
    os.scandir, not os.walk: taken twice around every grade, over the checkout's 2,000 entries,
    os.walk's was 0.09 s of the runner's CPU a grade, this one 0.02 s."""
    out = {}
    top = str(top)
    if not os.path.exists(top):
        return out
    skip, ignore = set(skip), list(ignore)

    def walk(folder, rel_dir):
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return
        for e in entries:
            rel = f"{rel_dir}/{e.name}" if rel_dir else e.name
            if rel in skip or (ignore and any(fnmatch.fnmatch(e.path, g) for g in ignore)):
                continue
            try:
                if e.is_dir(follow_symlinks=False):
                    out[rel] = ("dir", 0, 0)
                    walk(e.path, rel)
                    continue
                st = e.stat(follow_symlinks=False)
                kind = "link:" + os.readlink(e.path) if e.is_symlink() else "file"
                out[rel] = (kind, st.st_size, st.st_mtime_ns) + ((st.st_ctime_ns,) if ctime else ())
            except OSError:
                continue
    walk(top, "")
    return out


def _differences(before: dict, after: dict, where: str) -> list:
    lines = []
    for rel in sorted(set(before) | set(after)):
        if rel not in before:
            if os.path.dirname(rel) in after and os.path.dirname(rel) not in before:
                continue  # inside a new folder: the folder is named
            lines.append(f"left {where}{rel} behind" if where.startswith("/") else f"added {where}{rel}")
        elif rel not in after:
            lines.append(f"removed {where}{rel}")
        elif before[rel] != after[rel] and before[rel][0] != "dir":
            lines.append(f"changed {where}{rel}")
    return lines


def _clear_folder(folder: Path, keep=()):
    """Removes everything in `folder` except the relative paths in `keep` (folders kept empty)."""
    keep = {Path(k) for k in keep}
    keep_parents = {p for k in keep for p in [k, *k.parents]}
    for dirpath, dirnames, filenames in os.walk(folder, topdown=True):
        rel_dir = Path(dirpath).relative_to(folder)
        for d in list(dirnames):
            rel = rel_dir / d
            if rel in keep_parents and not os.path.islink(Path(dirpath) / d):
                continue
            dirnames.remove(d)
            _remove(Path(dirpath) / d)
        for f in filenames:
            _remove(Path(dirpath) / f)


def _remove(path: Path):
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink()
    except OSError:
        pass


def _restore(target: Path, pristine: Path, before: dict, after: dict):
    """Puts back what changed in `target` from its pristine copy (listing `before`)."""
    for rel in sorted(set(after) - set(before), key=lambda r: -len(Path(r).parts)):
        _remove(target / rel)
    for rel in sorted(before):
        kind = before[rel][0]
        if rel in after and after[rel] == before[rel]:
            continue
        src, dst = pristine / rel, target / rel
        if kind == "dir":
            dst.mkdir(parents=True, exist_ok=True)
            continue
        _remove(dst)
        dst.parent.mkdir(parents=True, exist_ok=True)
        if kind.startswith("link:"):
            os.symlink(kind[5:], dst)
        elif src.exists():
            shutil.copy2(src, dst)


def _hash(path: Path) -> Optional[str]:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _contains(path: Path, needle: bytes) -> bool:
    if not needle:
        return False
    try:
        with open(path, "rb") as f:
            tail, read = b"", 0
            while read < SCAN_LIMIT:
                chunk = f.read(1 << 20)
                if not chunk:
                    return False
                if needle in tail + chunk:
                    return True
                tail = chunk[-len(needle):]
                read += len(chunk)
    except OSError:
        pass
    return False


# ---------------------------------------------------------------- the network listener

class Listener:
    """Accepts connections on 127.0.0.1:LISTEN_PORT while the suite runs and counts them (and
    their bytes, never kept): a grade that reaches it reached the network."""

    def __init__(self):
        self.lock = threading.Lock()
        self.hits = []
        self.sock = None
        try:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", LISTEN_PORT))
            s.listen(16)
            s.settimeout(0.5)
            self.sock = s
        except OSError as e:
            print(f"halo redteam: cannot listen on 127.0.0.1:{LISTEN_PORT} ({e}); the network check is off",
                  file=sys.stderr)
            return
        self.stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            conn.settimeout(2)
            size = 0
            try:
                while size < 1 << 20:
                    data = conn.recv(65536)
                    if not data:
                        break
                    size += len(data)
            except OSError:
                pass
            conn.close()
            with self.lock:
                self.hits.append(size)

    def take(self) -> list:
        with self.lock:
            hits, self.hits = self.hits, []
        return hits

    def close(self):
        if self.sock:
            self.stop.set()
            self.sock.close()


# ---------------------------------------------------------------- one grade

@dataclass
class Outcome:
    score: Optional[float] = None  # None: no readable results
    detail: str = ""               # how the score was made up, for messages
    loads: Optional[tuple] = None  # (loads tests passed, loads tests) of the attacked section
    problems: list = field(default_factory=list)  # what the runner saw go wrong
    results: Optional[Path] = None
    log: Optional[Path] = None
    seconds: float = 0


def _grade_score(path: Path, section: str) -> tuple:
    """(score, detail, loads) from a grade run's results.json; score None when unreadable.
    The summary and the test list are both read and the larger count taken: a tampered file
    cannot lower its score by disagreeing with itself."""
    try:
        doc = json.loads(path.read_text())
        tests = [t for t in doc.get("tests", []) if isinstance(t, dict)]
        score, parts = 0, []
        for sid, s in doc.get("sections", {}).items():
            mine = [t for t in tests if t.get("section") == sid]
            code = sum(t.get("status") == "passed" for t in mine if t.get("kind") != "answers")
            right = sum(t.get("status") == "passed" for t in mine
                        if t.get("kind") == "answers" and not str(t.get("name", "")).endswith("the file is well-formed"))
            passed = max(int(s["tests"]["passed"]), code)
            answers = max(int(s["answers"]["right"]), right)
            score += passed + answers
            parts.append(f"{sid}: {passed}/{s['tests']['total']} tests, {answers}/{s['answers']['asked']} answers")
        loads = [t for t in tests if t.get("section") == section and t.get("kind") == "loads"]
        return float(score), "; ".join(parts), (sum(t.get("status") == "passed" for t in loads), len(loads))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None, "", None


def _class_score(path: Path, section: str) -> tuple:
    """(score, detail, loads) of a grade-class run: the student's total in the gradebook next to
    OUT/work/students/<student>/results.json (`path`), the loads from that results.json."""
    _score, detail, loads = _grade_score(path, section)
    try:
        gradebook = path.parents[3] / "gradebook.csv"
        rows = list(csv.reader(gradebook.read_text().splitlines()))
        # A name that starts like a formula is written with a quote in front (spreadsheet.py).
        row = next(r for r in rows[1:] if r and r[0] in (path.parent.name, "'" + path.parent.name))
        total = float(row[rows[0].index(next(h for h in rows[0] if h.startswith("total")))])
        return total, f"{total:g} points in the gradebook ({row[-1]}); {detail}", loads
    except (OSError, ValueError, IndexError, StopIteration):
        return None, "", None


# Read independently of the grader's own neutraliser (halo.core.spreadsheet), so that the check
# still holds if that one is broken: a cell a spreadsheet evaluates starts with one of these and
# is not a plain number.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _formula_cells(csv_path: Path) -> list:
    """The cells of a CSV file that a spreadsheet would run as formulas (CSV injection)."""
    try:
        with open(csv_path, newline="") as f:  # newline="": a quoted cell may hold a line break
            rows = list(csv.reader(f))
    except OSError:
        return []
    number = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")  # a spreadsheet's number, no formula
    return [cell for row in rows for cell in row if cell.startswith(_FORMULA_STARTS) and not number.fullmatch(cell)]


def _gradescope_score(path: Path, section: str) -> tuple:
    try:
        doc = json.loads(path.read_text())
        tests = [t for t in doc.get("tests", []) if isinstance(t, dict)]
        total = sum(float(t.get("score", 0) or 0) for t in tests)
        score = max(float(doc.get("score", 0) or 0), total)
        worth = sum(float(t.get("max_score", 0) or 0) for t in tests)
        loads = [t for t in tests if (t.get("tags") or [None, None])[:2] == [section, "loads"]]
        return score, f"{score:g} of {worth:g} points", (sum(t.get("status") == "passed" for t in loads), len(loads))
    except (OSError, ValueError, TypeError, AttributeError):
        return None, "", None


# ---------------------------------------------------------------- the runner

class Runner:
    def __init__(self, root, work: Path, args):
        self.root = Path(root)
        self.work = work
        self.args = args
        self.is_root = os.geteuid() == 0
        self.seed = args.seed or str(random.randrange(10 ** 9))
        self.passwd_line = b""
        try:
            self.passwd_line = Path("/etc/passwd").read_bytes().splitlines()[0]
        except (OSError, IndexError):
            pass
        self.listener = None
        # The trees a reset replaces, removed while the next grade runs (background_removal.py).
        self.removal = BackgroundRemoval(work / "discarded")
        self.resets = TreeResets(self.removal.discard)  # each grade's tree put back, only what it changed
        self.lines = []  # (ok, text)
        self.private_tmp = self._private_tmp_possible() if args.tmp in ("auto", "private") else False
        if args.tmp == "private" and not self.private_tmp:
            raise ManifestError("--tmp private needs root and unshare (mount namespaces)")
        self.priv = work / "tmp-private"
        # /var/tmp and /dev/shm get folders of their own too: another program on the machine (a
        # container build writes to /var/tmp) must not read as something the grade left behind.
        self.priv_others = {"/var/tmp": work / "var-tmp-private", "/dev/shm": work / "dev-shm-private"}
        self.checkout = Path(args.checkout).resolve() if args.checkout else work / "checkout"
        self.student_flag = False
        self.grade_baselines = {}  # section -> Outcome
        self.built_root = False  # whether an autograder pass of this run has made the fake root
        self.control_outcomes = {}  # (mode key, control name) -> Outcome
        self.grader_cache = None  # the red team's own copy of the grader's libraries (_lay_grader_cache)
        self.grader_cache_state = {}
        self.machine_copy = False  # whether the grades import the copy as the machine's (_lay_grader_cache)

    # ------------------------------------------------------------ set-up

    def _private_tmp_possible(self) -> bool:
        if not self.is_root or not shutil.which("unshare"):
            return False
        p = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"], capture_output=True)
        return p.returncode == 0

    def say(self, text):
        print(text, flush=True)

    def prepare_checkout(self):
        if self.args.checkout:
            if not (self.checkout / "workbook").is_file():
                raise ManifestError(f"{self.checkout} is not a Halo checkout")
        else:
            src = self.root
            p = subprocess.run(["git", "-C", str(src), "rev-parse", "--verify", "--quiet", self.args.commit + "^{commit}"],
                               capture_output=True, text=True)
            if p.returncode != 0:
                raise ManifestError(f"--commit {self.args.commit}: no such commit in {src}")
            commit = p.stdout.strip()
            git = ["git", "-C", str(self.checkout)]
            if (self.checkout / ".git").is_dir():  # a kept work folder: update in place, builds stay warm
                subprocess.run(git + ["fetch", "--quiet", "--no-tags", str(src)], check=True)
            else:
                _remove(self.checkout)
                subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", "--no-checkout", str(src),
                                str(self.checkout)], check=True)
            subprocess.run(git + ["checkout", "--quiet", "--detach", commit], check=True)
            subprocess.run(git + ["reset", "--quiet", "--hard", commit], check=True)
            subprocess.run(git + ["clean", "-fdxq"], check=True)
            if self.args.working_tree:
                self._overlay_working_tree(src)
        self._compile_tools(self.checkout / "tools")
        course = self.checkout / "course.toml"
        if not course.exists():
            course.write_text(f'secret = "{COURSE_SECRET}"\n')
        self.extra_secrets = []
        try:
            text = course.read_text()
            if COURSE_SECRET not in text:
                self.extra_secrets.append(tomllib.loads(text).get("secret", ""))
        except (OSError, tomllib.TOMLDecodeError):
            pass
        self.pristine = self.work / "checkout.pristine"
        self.refresh_pristine()
        help_text = subprocess.run([*workbook_argv(self.checkout), "grade", "--help"],
                                   capture_output=True, text=True, cwd=self.checkout).stdout
        self.student_flag = "--student" in help_text
        self._lay_grader_cache()

    def _lay_grader_cache(self):
        """The grader's libraries for every tree this run grades in (core/grader_cache.py): a
        copy of the check's (HALO_GRADER_CACHE), else empty (the first baseline's build fills it).
        The copy belongs to the runner and to no grade: files of the runner's user, which neither
        a worker nor, in the nobody passes, a grade can write, and listed (lstat, change times
        included: tree_reset.listing) around every grade, like the checkout. A grade that
        changes it fails, and the copy is laid again before the next."""
        if self.grader_cache is None:
            self.grader_cache_source = os.environ.get(grader_cache.ENV)
        self.grader_cache = self.work / "grader-cache"
        _remove(self.grader_cache)
        source = self.grader_cache_source
        if source and Path(source).is_dir():
            shutil.copytree(source, self.grader_cache, symlinks=True,
                            ignore=shutil.ignore_patterns(".staging-*"))
        else:
            self.grader_cache.mkdir(parents=True)
        self.grader_cache.chmod(0o755)
        self.grader_cache_state = tree_reset.listing(self.grader_cache)
        # A root runner with libraries to share lays them as a student's machine has them after
        # `sudo ./workbook setup` (core/machine_grader.py): the grades import them as the
        # machine's copy, which a grade trusts only while root alone can change it, and the
        # attacks on it (tamper-machine-grader) find it where a student's grade would.
        entries = [e for e in self.grader_cache.iterdir() if e.is_dir()]
        self.machine_copy = bool(entries) and all(grader_cache.only_root_can_change(e) for e in entries)

    def _compile_tools(self, tree: Path):
        """Bytecode of the Python under `tree` (the checkout's tools/, the fake root's source), beside its sources (__pycache__, ignored by git),
        compiled by the runner before any grade: the grades write none (PYTHONDONTWRITEBYTECODE),
        so without it each of the some three hundred grades compiles the grader's tools from
        source. The files are part of the tree the runner compares before and after each grade.
        checked-hash: a pyc is used only while its source's bytes are the ones compiled (the
        fake root's source is copied back before every grade, with new times)."""
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
        subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "checked-hash",
                        str(tree)], env=env, stdout=subprocess.DEVNULL, check=True)

    def refresh_pristine(self):
        _remove(self.pristine)
        shutil.copytree(self.checkout, self.pristine, symlinks=True, ignore=self._checkout_ignore)

    def _checkout_ignore(self, dirpath, names):
        return ["build"] if Path(dirpath) == self.checkout else []

    def _overlay_working_tree(self, src):
        p = subprocess.run(["git", "-C", str(src), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           capture_output=True, text=True, check=True)
        for rel in filter(None, p.stdout.split("\0")):
            if rel.startswith("exercises/"):  # a student's edits there are no part of the grader under test
                continue
            s, d = src / rel, self.checkout / rel
            if s.is_file() or s.is_symlink():
                d.parent.mkdir(parents=True, exist_ok=True)
                _remove(d)
                shutil.copy2(s, d, follow_symlinks=False)
            elif d.exists():
                _remove(d)
        # Committed in the clone (never in the source): `git archive HEAD` (the exporter) and a
        # clean `git status` then see the working tree.
        subprocess.run(["git", "-C", str(self.checkout), "add", "-A"], check=True)
        subprocess.run(["git", "-C", str(self.checkout), "-c", "user.name=halo redteam", "-c",
                        "user.email=redteam@localhost", "commit", "--quiet", "--allow-empty", "--no-verify",
                        "-m", f"the working tree of {src}"], check=True)

    def checkout_state(self) -> tuple:
        listing = _listing(self.checkout, skip=CHECKOUT_SKIP, ctime=True)
        status = subprocess.run(["git", "-C", str(self.checkout), "status", "--porcelain"], capture_output=True,
                                text=True).stdout
        return listing, status

    def shared_tmp_state(self) -> dict:
        ignore = [str(self.work), str(self.work) + "/*"] + list(self.args.tmp_ignore)
        state = {}
        tops = [] if self.private_tmp else ["/var/tmp", "/dev/shm", "/tmp"]
        for top in tops:
            for rel, v in _listing(Path(top), ignore=ignore).items():
                state[os.path.join(top, rel)] = v
        return state

    def private_tmp_keep(self) -> list:
        """The mount point of the work folder inside the private /tmp (kept, empty)."""
        try:
            return [str(self.work.relative_to("/tmp"))]
        except ValueError:
            return []

    def take_private_leftovers(self) -> list:
        """"left X behind" for each top-level thing a grade left in its private /tmp, /var/tmp
        and /dev/shm, which are then emptied."""
        left = []
        for top, folder, keep in [("/tmp", self.priv, self.private_tmp_keep()),
                                  *((t, f, []) for t, f in self.priv_others.items())]:
            inside = _listing(folder)
            for k in keep:
                for p in [Path(k), *Path(k).parents]:
                    inside.pop(str(p), None)
            left += [f"left {top}/{rel} behind" for rel in sorted(inside) if os.path.dirname(rel) not in inside]
            _clear_folder(folder, keep=keep)
        return left

    # ------------------------------------------------------------ running one grade

    def _wrap(self, cmd, uid) -> list:
        if uid is not None and uid != os.geteuid():
            cmd = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"] + cmd
        if not self.private_tmp:
            return cmd
        self.priv.mkdir(parents=True, exist_ok=True)
        os.chmod(self.priv, 0o1777)
        keep = self.private_tmp_keep()
        for folder in self.priv_others.values():
            folder.mkdir(parents=True, exist_ok=True)
            os.chmod(folder, 0o1777)
        # /var/tmp and /dev/shm first: their folders sit in the work folder, which /tmp may cover.
        others = " && ".join(f'mount --bind "${k + 1}" {top}' for k, top in enumerate(self.priv_others))
        args = [str(folder) for folder in self.priv_others.values()]
        n = len(args)
        if keep:
            (self.priv / keep[0]).mkdir(parents=True, exist_ok=True)
            script = f'{others} && mount --bind "${n + 1}" "${n + 2}" && mount --rbind "${n + 3}" /tmp && shift {n + 3} && exec "$@"'
            args += [str(self.work), str(self.priv / keep[0]), str(self.priv)]
        else:
            script = f'{others} && mount --rbind "${n + 1}" /tmp && shift {n + 1} && exec "$@"'
            args += [str(self.priv)]
        return ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", script, "sh"] + args + cmd

    def _limits(self, cmd, uid) -> list:
        """prlimit in front of the command (no preexec_fn: the listener is a thread)."""
        limits = []
        if self.args.as_limit:
            limits.append(f"--as={self.args.as_limit}:{self.args.as_limit}")
        if self.args.nproc and uid not in (None, 0) and shutil.which("prlimit"):
            limits.append(f"--nproc={self.args.nproc}:{self.args.nproc}")
        if not limits or not shutil.which("prlimit"):
            return cmd
        return ["prlimit"] + limits + ["--"] + cmd

    def grade_once(self, cmd, cwd, env, uid, results: Path, section: str, log: Path, scorer,
                   leak_files, extra_state=None, adopt=False) -> Outcome:
        """Runs one grade and everything the runner checks around it. With `adopt` (a baseline:
        the grader alone), what it changes in the checkout is reported and then kept, so that
        the attacks are judged on what they add."""
        out = Outcome(results=results, log=log)
        ck_before = self.checkout_state()
        tmp_before = self.shared_tmp_state()
        extra_before = extra_state() if extra_state else None
        if self.private_tmp:
            _clear_folder(self.priv, keep=self.private_tmp_keep())
            for folder in self.priv_others.values():
                _clear_folder(folder, keep=[])
        if self.listener:
            self.listener.take()
        marks = _process_marks()
        start = time.monotonic()
        with open(log, "wb") as f:
            proc = subprocess.Popen(self._limits(self._wrap(cmd, uid), uid), cwd=cwd, env=env,
                                    stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT,
                                    start_new_session=True)
            try:
                proc.wait(timeout=self.args.timeout)
            except subprocess.TimeoutExpired:
                out.problems.append(f"grading did not finish within {self.args.timeout:g} s (killed)")
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait()
        seconds = time.monotonic() - start
        first = _hash(results)
        first_score = scorer(results, section)[0] if first else None
        # Only a process of the grade can change its results later: with none left (the runner
        # is a subreaper, so none escapes the count), there is nothing to wait for.
        if _leftovers(marks, self.work, uid):
            time.sleep(self.args.settle)
        for p in _kill_leftovers(marks, self.work, uid):
            out.problems.append(f"left a process running: {p}")
        out.score, out.detail, out.loads = scorer(results, section)
        later = _hash(results)
        if first != later:
            out.problems.append(f"{results.name} changed within {self.args.settle:g} s after the grader finished "
                                f"(score {first_score} then {out.score})")
        if out.score is None and not any("did not finish" in p for p in out.problems):
            out.problems.append(f"no readable {results.name}: the grader gave no verdict")
        # What the grade left behind.
        ck_after = self.checkout_state()
        changes = _differences(ck_before[0], ck_after[0], "")
        if ck_before[1] != ck_after[1] and not changes:
            changes.append("changed git status: " + " | ".join(ck_after[1].splitlines()[:3]))
        for c in changes[:8]:
            out.problems.append(c.replace("added ", "added to the checkout: ").replace(
                "changed ", "changed the checkout's ").replace("removed ", "removed from the checkout: "))
        if len(changes) > 8:
            out.problems.append(f"... and {len(changes) - 8} more changes to the checkout")
        if (changes or ck_before[1] != ck_after[1]) and not adopt:
            _restore(self.checkout, self.pristine, ck_before[0], ck_after[0])
        elif changes:
            self.refresh_pristine()
        tmp_after = self.shared_tmp_state()
        left = [d for d in _differences(tmp_before, tmp_after, "/") if d.startswith("left")]
        if self.private_tmp:
            left += self.take_private_leftovers()
        for d in left[:8]:
            out.problems.append(d.replace("left //", "left /"))
        if self.grader_cache:
            cache_now = tree_reset.listing(self.grader_cache)
            if cache_now != self.grader_cache_state:
                if adopt:  # a baseline's build published the libraries the later grades import
                    self.grader_cache_state = cache_now
                else:
                    out.problems.append("changed the grader's library cache, which the next grades import")
                    self._lay_grader_cache()
        if extra_state:
            changed = _differences(extra_before, extra_state(), "")
            for c in changed[:8]:
                out.problems.append(c.replace("added ", "added to the fake root's source: ").replace(
                    "changed ", "changed the fake root's source: ").replace("removed ", "removed from the fake root's source: "))
        # What it told, and to whom.
        if self.listener:
            hits = self.listener.take()
            if hits:
                out.problems.append(f"reached the network: {len(hits)} connection(s) to 127.0.0.1:{LISTEN_PORT} "
                                    f"({sum(hits)} bytes sent)")
        for needle, what in [(COURSE_SECRET.encode(), "the course secret")] + \
                [(s.encode(), "the checkout's own course secret") for s in self.extra_secrets if s] + \
                [(self.passwd_line, "/etc/passwd's first line")]:
            hits = [p for p in leak_files() if _contains(p, needle)]
            if hits:
                out.problems.append(f"{what} appears in {', '.join(self._short(p) for p in hits[:3])}")
        out.seconds = seconds
        return out

    def _short(self, path: Path) -> str:
        try:
            return str(Path(path).relative_to(self.work))
        except ValueError:
            return str(path)

    def _env(self, extra=None, uid=None) -> dict:
        env = dict(os.environ)
        env.update({"HALO_COURSE_SECRET": COURSE_SECRET, "HALO_SEED": self.seed, "NO_COLOR": "1",
                    "PYTHONDONTWRITEBYTECODE": "1"})
        # HALO_CHAPTER_CHECKED_IN: the check's record of its chapter is not a student's (the
        # autograder names its own build folder).
        for k in ("PYTHONPYCACHEPREFIX", grader_cache.ENV, grader_cache.MACHINE_ENV, grader_cache.MACHINE_OFF,
                  "HALO_REPORT_DIR", "AUTOGRADER_ROOT", "HALO_AUTOGRADER_WORK", "HALO_AUTOGRADER_BUILD",
                  chapter_data.CHECKED_IN_ENV):
            env.pop(k, None)
        # Never the check's own: the runner's copy, checked around every grade; as the machine's
        # copy where _lay_grader_cache could lay it so (nothing is published there), else as a
        # cache the first baseline's build fills.
        if self.grader_cache:
            env[grader_cache.MACHINE_ENV if self.machine_copy else grader_cache.ENV] = str(self.grader_cache)
        if uid not in (None, 0) and uid != os.geteuid():
            home = self.work / f"home-{uid}"
            home.mkdir(exist_ok=True)
            os.chown(home, uid, uid)
            env["HOME"] = str(home)
            env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                          if not p.startswith("/root"))
        env.update(extra or {})
        return env

    # ------------------------------------------------------------ mode: grade

    def _lay_tree(self, entry: Optional[Entry]) -> Path:
        """A copy of exercises/ with the entry's files over it, every file dated now: newer than
        anything the warm build compiled before (a stub's kernel, too, is compiled afresh)."""
        tree = self.work / "tree" / "exercises"
        _remove(tree.parent)
        shutil.copytree(self.checkout / "exercises", tree)
        for rel in (entry.files if entry else []):
            shutil.copyfile(self.root / REDTEAM_DIR / entry.name / rel, tree / rel)
        now = time.time()
        for dirpath, _, filenames in os.walk(tree):
            for f in filenames:
                if not os.path.islink(os.path.join(dirpath, f)):
                    os.utime(os.path.join(dirpath, f), (now, now))
        self._make_special(entry, tree)  # after the dates: utime would open a pipe, follow a link
        return tree

    def _make_special(self, entry: Optional[Entry], folder: Path):
        """The entry's special files (attacks.toml's `special`) under `folder`, replacing what
        is there: a link, to an absolute path or to one in the checkout the grader runs from
        (solutions/ is there); a named pipe; a copy of a checkout file; a file too big to commit."""
        for item in (entry.special if entry else []):
            dst = folder / item["path"]
            _remove(dst)
            dst.parent.mkdir(parents=True, exist_ok=True)
            kind = item["kind"]
            if kind == "link":
                os.symlink(Path(item["target"]) if Path(item["target"]).is_absolute()
                           else self.checkout / item["target"], dst)
            elif kind == "fifo":
                os.mkfifo(dst)
            elif kind == "copy":
                shutil.copyfile(self.checkout / item["target"], dst)
            else:  # repeat
                chunk = item["text"].encode() * max(1, (1 << 20) // len(item["text"].encode()))
                with open(dst, "wb") as f:
                    left = item["bytes"]
                    while left > 0:
                        left -= f.write(chunk[:left])

    def grade_mode(self, entry: Optional[Entry], section: str) -> Outcome:
        build = self.work / "build"
        tree = self._lay_tree(entry)
        cmd = [*workbook_argv(self.checkout), "grade", "--exercises", str(tree),
               "--build-dir", str(build), section]
        submitter = entry.submitter if entry else DEFAULT_SUBMITTER
        if self.student_flag:
            cmd += ["--student", submitter]
        results = build / "results.json"
        _remove(results)
        log = self.work / "logs" / f"grade-{entry.name if entry else 'stub-' + section}.log"
        log.parent.mkdir(exist_ok=True)

        def leak_files():
            return [log, results, build / "junit.xml"] + sorted((build / "report").glob("*.xml"))
        return self.grade_once(cmd, self.checkout, self._env(_baseline_env(entry)), None, results, section, log,
                               _grade_score, leak_files, adopt=entry is None)

    def _lay_attack(self, entry: Optional[Entry], folder: Path):
        """The attack's files (none for a baseline) in a new `folder`, dated now."""
        folder.mkdir(parents=True)
        now = time.time()
        for rel in (entry.files if entry else []):
            dst = folder / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(self.root / REDTEAM_DIR / entry.name / rel, dst)
            os.utime(dst, (now, now))
        self._make_special(entry, folder)

    # ------------------------------------------------------------ mode: grade-class

    def class_course(self) -> Path:
        """A course file with the red-team secret and one assignment per section, `s7_2` for 7.2."""
        course = self.work / "class-course.toml"
        sections = subprocess.run([*workbook_argv(self.checkout), "internal", "sections"],
                                  cwd=self.checkout, capture_output=True, text=True, check=True).stdout
        ids = [line.split("|")[1] for line in sections.splitlines() if line.startswith("section|")]
        course.write_text(f'secret = "{COURSE_SECRET}"\n' + "".join(
            f'\n[assignments.s{sid.replace(".", "_")}]\nsections = ["{sid}"]\n' for sid in ids))
        return course

    def grade_class_mode(self, entry: Optional[Entry], section: str) -> Outcome:
        submitter = entry.submitter if entry else DEFAULT_SUBMITTER
        subs = self.work / "class-submissions"
        _remove(subs)
        self._lay_attack(entry, subs / submitter)
        # The gradebook's name for the student, as grade-class makes it from the folder's name.
        student = class_submissions.find(subs)[0].student
        out = self.work / "class"
        for old in (out / "gradebook.csv", out / "feedback", out / "class-report.md", out / "work" / "students"):
            _remove(old)
        cmd = [*workbook_argv(self.checkout), "grade-class", str(subs), "--out", str(out),
               "--course", str(self.course), "--assignment", f"s{section.replace('.', '_')}", "--fresh", "--jobs", "1"]
        results = out / "work" / "students" / student / "results.json"
        log = self.work / "logs" / f"grade-class-{entry.name if entry else 'stub-' + section}.log"
        log.parent.mkdir(exist_ok=True)

        def leak_files():
            return [log, results, out / "gradebook.csv", out / "class-report.md"] + \
                sorted((out / "feedback").glob("*")) + sorted((out / "work" / "students").rglob("*.xml"))
        outcome = self.grade_once(cmd, self.checkout, self._env(), None, results, section, log, _class_score,
                                  leak_files, adopt=entry is None)
        for cell in _formula_cells(out / "gradebook.csv")[:3]:
            outcome.problems.append(f"gradebook.csv holds {cell!r}, which a spreadsheet runs as a formula")
        return outcome

    # ------------------------------------------------------------ mode: autograder

    def export_zip(self) -> Path:
        out = self.work / "gradescope-autograder.zip"
        _remove(out)
        p = subprocess.run([*workbook_argv(self.checkout), "export", "gradescope-autograder",
                            "--out", str(out)], cwd=self.checkout, capture_output=True, text=True,
                           env=self._env())
        if p.returncode != 0 or not out.is_file():
            raise ManifestError(f"the autograder zip could not be exported:\n{p.stdout}{p.stderr}")
        pristine, now = _listing(self.pristine, skip=CHECKOUT_SKIP), _listing(self.checkout, skip=CHECKOUT_SKIP)
        if _differences(pristine, now, ""):  # the exporter's own traces: not the attacks'
            _restore(self.checkout, self.pristine, pristine, now)
        return out

    @staticmethod
    def _extract(zip_path: Path, dest: Path):
        """unzip with Unix modes kept (ZipFile.extractall drops them)."""
        with zipfile.ZipFile(zip_path) as z:
            for info in z.infolist():
                path = Path(z.extract(info, dest))
                mode = (info.external_attr >> 16) & 0o7777
                if mode and not info.is_dir():
                    path.chmod(mode)

    def fake_root(self, user: str, zip_path: Path) -> Path:
        """The fake /autograder root of one pass. Every pass of a run uses the same path, so that
        a later pass starts from the first pass's root as its stub baseline left it (the zip's
        build of the judges and the runtime, warm: CMake's build folder cannot move), given to
        its user; the first unpacks the zip."""
        ag = self.work / "autograder"
        pristine = ag.with_name(ag.name + ".pristine")
        if self.built_root and pristine.exists():
            self.resets.reset(pristine, ag)
            if self.is_root:
                uid = NOBODY if user == "nobody" else 0
                subprocess.run(["chown", "-R", f"{uid}:{uid}", str(ag)], check=True)
            _copy_tree(ag, pristine, self.removal.discard)  # each grade of the pass starts from this
            self.resets.same(pristine, ag)
            return ag
        self.built_root = True
        for p in (ag, pristine):
            _remove(p)
        ag.mkdir(parents=True)
        self._extract(zip_path, ag / "source")
        self._compile_tools(ag / "source")
        shutil.copy2(ag / "source" / "run_autograder", ag / "run_autograder")
        (ag / "source" / "halo" / "course.toml").write_text(f'secret = "{COURSE_SECRET}"\n')
        (ag / "submission").mkdir()
        (ag / "results").mkdir()
        if user == "nobody":
            subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(ag)], check=True)
        return ag

    def _uid(self, user):
        return NOBODY if user == "nobody" else None

    def autograder_mode(self, ag: Path, user: str, entry: Optional[Entry], section: str, pass_env=None,
                        slug=None) -> Outcome:
        pristine = ag.with_name(ag.name + ".pristine")
        if pristine.exists():
            self.resets.reset(pristine, ag)
        sub = ag / "submission"
        _remove(sub)
        self._lay_attack(entry, sub)
        submitter = entry.submitter if entry else DEFAULT_SUBMITTER
        (ag / "submission_metadata.json").write_text(json.dumps({
            "id": 1, "created_at": "2026-01-01T00:00:00.000000-08:00", "submission_method": "upload",
            "assignment": {"id": 1, "title": "Halo: convolution"},
            "users": [{"email": f"{submitter}@example.edu", "id": 2, "name": submitter.title(), "sid": submitter}],
        }, indent=2) + "\n")
        results = ag / "results" / "results.json"
        _remove(results)
        if user == "nobody":
            subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(sub), str(ag / "submission_metadata.json"),
                            str(ag / "results")], check=True)
        log = self.work / "logs" / f"autograder-{slug or user}-{entry.name if entry else 'stub'}.log"
        log.parent.mkdir(exist_ok=True)
        uid = self._uid(user)
        env = self._env({"AUTOGRADER_ROOT": str(ag), **_baseline_env(entry), **(pass_env or {})}, uid)

        def leak_files():
            work = ag / "halo-work"
            return [log, results, work / "grade.log", work / "submission.txt", work / "build" / "results.json",
                    work / "build" / "junit.xml"] + sorted((work / "build" / "report").glob("*.xml"))

        def source_state():
            return _listing(ag / "source", ctime=True)
        return self.grade_once([str(ag / "run_autograder")], ag, env, uid, results, section, log,
                               _gradescope_score, leak_files, extra_state=source_state, adopt=entry is None)

    # ------------------------------------------------------------ judging

    def report(self, ok: bool, text: str):
        self.lines.append((ok, text))
        self.say(("PASS " if ok else "FAIL ") + text)

    def judge(self, entry: Entry, label: str, out: Outcome, base: Optional[Outcome], base_name: str):
        problems = list(out.problems)
        if base is None or base.score is None:
            problems.append(f"its baseline ({base_name}) could not be graded")
        elif out.score is not None and out.score > base.score + 1e-6:
            owner = base_name + ("'" if base_name.endswith("s") else "'s")
            problems.append(f"scored {out.score:g} > {owner} {base.score:g} ({out.detail})")
        if entry.technique == "load-hiding" and out.loads and out.loads[1] and out.loads[0] == out.loads[1]:
            problems.append(f"all {out.loads[1]} of its loads tests pass: the extra loads were not seen")
        if entry.message:
            said = any(_contains(p, entry.message.encode()) for p in [out.log, out.results] if p)
            if not said:
                problems.append(f"the grader never said {entry.message!r}")
        if problems:
            self.report(False, f"{entry.name} [{label}]: " + "; ".join(problems))
        else:
            self.report(True, f"{entry.name} [{label}]")

    def baseline_report(self, name: str, label: str, out: Outcome):
        """A baseline's own grade: the runner's checks must hold for the grader alone too."""
        self.say(f"  {name} [{label}]: {out.detail or 'no results'} ({getattr(out, 'seconds', 0):.0f} s)")
        if out.problems:
            self.report(False, f"{name} [{label}]: the grader alone: " + "; ".join(out.problems))

    def control_report(self, entry: Entry, label: str, out: Outcome, stub: Optional[Outcome] = None):
        self.baseline_report(entry.name, label, out)
        if entry.shows == SHOWS_MORE and (out.score is None or stub is None or stub.score is None
                                          or out.score <= stub.score + 1e-6):
            self.report(False, f"{entry.name} [{label}]: the control scores {out.score} against the stub's "
                               f"{stub.score if stub else None}: it does not show that its attack would have paid")
        # A load-hiding control must fail a loads test; a "more than the stub" control is a right
        # submission copied in (the reference kernel), which passes them as it should.
        if not entry.shows and out.loads and out.loads[1] and out.loads[0] == out.loads[1]:
            self.report(False, f"{entry.name} [{label}]: the control passes all {out.loads[1]} of its loads tests: "
                               "the grader does not see 5x the loads, so load hiding cannot be judged")

    # ------------------------------------------------------------ the whole run

    def run(self, attacks, controls, modes, users, without_bwrap=()) -> int:
        """`without_bwrap`: attacks graded once more through the autograder, as the first of
        `users`, with HALO_SANDBOX=rlimits-only (the fallback where bubblewrap cannot start)."""
        self.listener = Listener()
        try:
            self.prepare_checkout()
            self.say(f"halo redteam: {len(attacks)} attacks, modes {', '.join(modes)}, checkout {self.checkout}, "
                     f"work folder {self.work}, HALO_SEED={self.seed}, /tmp "
                     f"{'private per grade' if self.private_tmp else 'shared (compared before and after)'}"
                     + ("" if self.student_flag else "; grade has no --student: the submitter is not passed"))
            used_controls = self._controls_of(attacks, controls)
            if "grade" in modes:
                self._run_grade(attacks, used_controls)
            if "grade-class" in modes:
                self._run_grade_class(attacks, used_controls)
            if "autograder" in modes:
                zip_path = self.export_zip()
                for user in users:
                    self._run_autograder(attacks, used_controls, user, zip_path)
                if without_bwrap:
                    self._run_autograder(without_bwrap, self._controls_of(without_bwrap, controls), users[0],
                                         zip_path, sandbox=FALLBACK_SANDBOX)
        finally:
            if self.listener:
                self.listener.close()
            self.removal.close()
        failed = sum(not ok for ok, _ in self.lines)
        passed = sum(ok for ok, _ in self.lines)
        self.say(f"{passed} passed, {failed} failed")
        return 1 if failed else 0

    @staticmethod
    def _controls_of(attacks, controls) -> list:
        """The controls these attacks are judged against or shown by."""
        needed = {a.baseline for a in attacks if a.baseline != STUB} | {a.shown_by for a in attacks if a.shown_by}
        return [c for c in controls if c.name in needed]

    def _run_grade(self, attacks, controls):
        label = "grade"
        build = self.work / "build"
        build_pristine = self.work / "build.pristine"
        if build_pristine.exists():  # a kept work folder: start from the last clean build, not the last attack's
            self.resets.reset(build_pristine, build)
        for section in sorted({a.section for a in attacks} | {c.section for c in controls}):
            out = self.grade_mode(None, section)
            self.grade_baselines[section] = out
            self.baseline_report(f"stub {section}", label, out)
        if build.exists():
            _copy_tree(build, build_pristine, self.removal.discard)
            self.resets.same(build_pristine, build)
        for c in controls:
            if build_pristine.exists():
                self.resets.reset(build_pristine, build)
            out = self.grade_mode(c, c.section)
            self.control_outcomes[(label, c.name)] = out
            self.control_report(c, label, out, self.grade_baselines.get(c.section))
        for a in attacks:
            if build_pristine.exists():
                self.resets.reset(build_pristine, build)
            out = self.grade_mode(a, a.section)
            if a.baseline == STUB:
                base, base_name = self.grade_baselines.get(a.section), f"stub {a.section}"
            else:
                base, base_name = self.control_outcomes.get((label, a.baseline)), a.baseline
            self.judge(a, label, out, base, base_name)

    def _run_grade_class(self, attacks, controls):
        """Every attack graded by grade-class: one class of one submission a run, the harness
        under the work folder built by the first run and reused (as an instructor's is)."""
        label = "grade-class"
        self.course = self.class_course()
        baselines = {}
        for section in sorted({a.section for a in attacks} | {c.section for c in controls}):
            baselines[section] = self.grade_class_mode(None, section)
            self.baseline_report(f"stub {section}", label, baselines[section])
        for c in controls:
            out = self.grade_class_mode(c, c.section)
            self.control_outcomes[(label, c.name)] = out
            self.control_report(c, label, out, baselines.get(c.section))
        for a in attacks:
            out = self.grade_class_mode(a, a.section)
            if a.baseline == STUB:
                base, base_name = baselines.get(a.section), f"stub {a.section}"
            else:
                base, base_name = self.control_outcomes.get((label, a.baseline)), a.baseline
            self.judge(a, label, out, base, base_name)

    def _run_autograder(self, attacks, controls, user, zip_path, sandbox=None):
        """One pass: the stub, the controls and the attacks through the autograder as `user`,
        with HALO_SANDBOX=`sandbox` when given."""
        label = f"autograder as {user}" + (" without bubblewrap" if sandbox else "")
        ag = self.fake_root(user, zip_path)
        pass_env = {"HALO_SANDBOX": sandbox} if sandbox else {}
        slug = label.replace("autograder as ", "").replace(" ", "-")
        base = self.autograder_mode(ag, user, None, "", pass_env, slug)
        self.baseline_report("stub", label, base)
        _copy_tree(ag, ag.with_name(ag.name + ".pristine"), self.removal.discard)
        self.resets.same(ag.with_name(ag.name + ".pristine"), ag)
        for c in controls:
            out = self.autograder_mode(ag, user, c, c.section, pass_env, slug)
            self.control_outcomes[(label, c.name)] = out
            self.control_report(c, label, out, base)
        for a in attacks:
            out = self.autograder_mode(ag, user, a, a.section, pass_env, slug)
            if a.baseline == STUB:
                b, name = base, "the stubs"
            else:
                b, name = self.control_outcomes.get((label, a.baseline)), a.baseline
            self.judge(a, label, out, b, name)


# ---------------------------------------------------------------- entry points

def _size(text: str) -> int:
    text = text.strip().upper()
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m halo.dev.redteam", description=__doc__.splitlines()[0])
    p.add_argument("--only", action="append", default=[], metavar="NAME",
                   help="an attack's name, a technique or a shell glob (may repeat; default: every attack)")
    p.add_argument("--mode", choices=["grade", "grade-class", "autograder", "all"], default="grade",
                   help="grade: ./workbook grade --exercises; grade-class: the instructor's class runner; autograder: the Gradescope zip in a fake /autograder "
                        "(as root and as an unprivileged user); all: both")
    p.add_argument("--build-dir", metavar="DIR", help="the work folder (checkout clone, builds, logs), kept and "
                                                       "reused; default: a temporary folder, removed after")
    p.add_argument("--keep", action="store_true", help="keep the temporary work folder")
    p.add_argument("--checkout", metavar="DIR", help="grade from this checkout, in place (tampering attacks "
                                                      "write to it; the runner puts it back); default: a clone")
    p.add_argument("--commit", default="HEAD", metavar="REV",
                   help="with the default clone: the commit of this repository to grade from (default HEAD)")
    p.add_argument("--working-tree", action="store_true",
                   help="with the default clone: also copy this checkout's uncommitted changes into it (and commit "
                        "them there)")
    p.add_argument("--users", default=None, help="autograder users, comma-separated: root, nobody "
                                                  "(default: both when run as root, else the current user)")
    p.add_argument("--without-bubblewrap", action="append", default=[], metavar="NAME",
                   help="with --mode autograder: grade these attacks (names, techniques or globs; may repeat) once "
                        f"more as the first --users user with HALO_SANDBOX={FALLBACK_SANDBOX}, from the same fake "
                        "root and build")
    p.add_argument("--timeout", type=float, default=900, help="seconds one grade may take (default 900)")
    p.add_argument("--settle", type=float, default=8, help="seconds to wait after a grade that left a process running, before judging (default 8)")
    p.add_argument("--tmp", choices=["auto", "private", "shared"], default="auto",
                   help="a private /tmp per grade (root) or the real /tmp compared before and after")
    p.add_argument("--tmp-ignore", action="append", default=[], metavar="GLOB",
                   help="absolute paths of /tmp, /var/tmp and /dev/shm that others write to (may repeat)")
    p.add_argument("--skip-heavy", action="store_true", help="leave out the attacks marked heavy")
    p.add_argument("--nproc", type=int, default=4096, help="RLIMIT_NPROC for grades as an unprivileged user")
    p.add_argument("--as-limit", type=_size, default=_size("8G"), help="RLIMIT_AS of every grading process "
                                                                       "(default 8G; 0: none)")
    p.add_argument("--seed", help="HALO_SEED for every grade (default: one random seed per run)")
    p.add_argument("--list", action="store_true", help="list the attacks and exit")
    return p


def run(root=ROOT, names=None, mode="grade", argv=None) -> int:
    """The runner, for the command line's `redteam`: `names` as --only, `mode` as --mode;
    `argv` any other options."""
    args = parser().parse_args(list(argv or []))
    if names:
        args.only = list(names)
    if mode:
        args.mode = mode
    return _main(Path(root), args)


def _main(root: Path, args) -> int:
    try:
        attacks, controls = load_manifest(root)
        chosen = select(attacks, args.only)
        fallback = select(attacks, args.without_bubblewrap) if args.without_bubblewrap else []
    except ManifestError as e:
        print(f"halo redteam: {e}", file=sys.stderr)
        return 2
    if args.skip_heavy:
        chosen = [a for a in chosen if not a.heavy]
    without_bwrap = [a for a in fallback if a in chosen]  # --only and --skip-heavy narrow this pass too
    if without_bwrap and args.mode not in ("autograder", "all"):
        print("halo redteam: --without-bubblewrap is a pass of --mode autograder", file=sys.stderr)
        return 2
    if args.list:
        for a in chosen:
            print(f"{a.name:36} {a.section:4} {a.technique:22} {'(heavy) ' if a.heavy else ''}{a.what}")
        print(f"{len(chosen)} attacks")
        return 0
    modes = ["grade", "grade-class", "autograder"] if args.mode == "all" else [args.mode]
    is_root = os.geteuid() == 0
    users = [u.strip() for u in args.users.split(",")] if args.users else (["root", "nobody"] if is_root else ["self"])
    if any(u not in ("root", "nobody", "self") for u in users):
        print("halo redteam: --users takes root, nobody and self", file=sys.stderr)
        return 2
    if not is_root and {"root", "nobody"} & set(users):
        # CTest reads 77 as "skipped" (SKIP_RETURN_CODE): a machine without root cannot play Gradescope.
        print("halo redteam: grading as root or as nobody needs root; skipped", file=sys.stderr)
        return SKIPPED
    if not _set_subreaper():
        print("halo redteam: cannot become a child subreaper; detached processes may go unnoticed", file=sys.stderr)
    if args.build_dir:
        work = Path(args.build_dir).resolve()
        work.mkdir(parents=True, exist_ok=True)
        keep = True
    else:
        work = Path(tempfile.mkdtemp(prefix="halo-redteam-"))
        keep = args.keep
    os.chmod(work, 0o755)  # an unprivileged grade must reach its fake root inside
    if "nobody" in users and args.mode in ("autograder", "all"):
        closed = [str(p) for p in work.parents if not os.stat(p).st_mode & 0o001]
        if closed:
            print(f"halo redteam: the unprivileged user cannot reach {work} ({', '.join(closed)} closed to others); "
                  "choose another --build-dir", file=sys.stderr)
            return 2
    if str(work) in ("/", "/tmp"):
        print("halo redteam: the work folder must be a folder of its own", file=sys.stderr)
        return 2
    try:
        runner = Runner(root, work, args)
        return runner.run(chosen, controls, modes, users, without_bwrap)
    except (ManifestError, subprocess.CalledProcessError) as e:
        print(f"halo redteam: {e}", file=sys.stderr)
        return 2
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"work folder kept: {work}", file=sys.stderr)


def main(argv=None) -> int:
    return _main(ROOT, parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
