"""`grade-class --hand-back`: each student's feedback, written into their own GitHub Classroom
clone as FEEDBACK-<assignment>.md and committed there, ready for the instructor to push.

The clone is the student's tree: nothing in it is trusted. A file already at that name (theirs, a
link planted to make us write elsewhere, a folder) is renamed aside and committed with the
feedback, never overwritten or followed; only the grader's own earlier feedback, unchanged since
it committed it, is replaced in place. Git runs with hooks and the file-system monitor off, so
nothing of the clone's runs. A submission that is not a git clone (a Gradescope export, a plain
folder) is named and left alone."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

AUTHOR_NAME, AUTHOR_EMAIL = "Halo grader", "halo-grader@localhost"
# The clone's own hooks and monitor must not run: -c settings win over its .git/config.
GIT = ["git", "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false",
       "-c", f"user.name={AUTHOR_NAME}", "-c", f"user.email={AUTHOR_EMAIL}", "-c", "commit.gpgsign=false"]


def file_name(assignment):
    return f"FEEDBACK-{assignment}.md"


def hand_back(subs, feedback_dir, assignment):
    """Hands each submission's feedback/<student>.md back; returns the lines to print."""
    name = file_name(assignment)
    lines, committed = [], 0
    for sub in subs:
        md = Path(feedback_dir) / f"{sub.student}.md"
        clone = Path(sub.path)
        if not md.is_file():
            lines.append(f"hand-back: {sub.student}: no feedback (not graded), nothing written")
        elif not _is_clone(clone):
            lines.append(f"hand-back: {sub.student}: {clone} is not a git clone; hand out {md} yourself")
        else:
            said = give(clone, name, md.read_text())
            committed += said.startswith("committed")
            lines.append(f"hand-back: {sub.student}: {said}")
    lines.append(f"hand-back: feedback committed into {committed} of {len(subs)} clones as {name}; nothing is "
                 "pushed: push each clone (git -C CLONE push) when you release the grades")
    return lines


def _git(clone, *args):
    return subprocess.run([*GIT, "-C", str(clone), *args], capture_output=True, text=True)


def _is_clone(folder):
    top = _git(folder, "rev-parse", "--show-toplevel") if folder.is_dir() else None
    return bool(top and top.returncode == 0 and Path(top.stdout.strip()).resolve() == folder.resolve())


def give(clone, name, text, message=None):
    """Writes `text` as `name` (a path inside `clone`, its folders already there) and commits it
    with `message` (with the backup of what was there, if any); returns what was done, in words."""
    target = clone / name
    backup = None
    if os.path.lexists(target):
        if target.is_file() and not target.is_symlink() and target.read_text(errors="replace") == text:
            return f"{name} is already this feedback; nothing to commit"
        if _ours_unchanged(clone, name):
            target.unlink()
        else:
            backup = _free_name(clone, name)
            os.rename(target, backup)  # renames a link or a folder itself, never what it points to
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    paths = [name] + ([str(backup.relative_to(clone))] if backup else [])
    add = _git(clone, "add", "--", *paths)
    done = add if add.returncode else _git(clone, "commit", "--no-verify", "-q", "-m",
                                            message or f"{name}: feedback from the grader", "--", *paths)
    if done.returncode:
        return f"wrote {target} but git could not commit it: {(done.stderr or done.stdout).strip()}"
    kept = f" (what was there is kept as {backup.relative_to(clone)})" if backup else ""
    return f"committed {name} in {clone}{kept}"


def _ours_unchanged(clone, name):
    """Whether `name` is the grader's own feedback as it committed it: a regular file, the same as
    in HEAD, last committed by the grader. Anything else is the student's and is kept."""
    target = clone / name
    if target.is_symlink() or not target.is_file():
        return False
    if _git(clone, "diff", "--quiet", "HEAD", "--", name).returncode != 0:
        return False
    author = _git(clone, "log", "-1", "--format=%ae", "--", name).stdout.strip()
    return author == AUTHOR_EMAIL


def _free_name(clone, name):
    k = 1
    while os.path.lexists(clone / f"{name}.yours-{k}"):
        k += 1
    return clone / f"{name}.yours-{k}"
