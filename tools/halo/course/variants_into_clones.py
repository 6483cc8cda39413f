"""`./workbook variants --into-clones DIR --roster FILE`: each GitHub Classroom clone gets its
student's own answers.toml (their numbers, keyed by the course secret), committed into the clone,
ready for the instructor to push. A student cannot compute their numbers without the secret, so
the course hands them out before anything is submitted: the student pulls, answers in their own
file, and `./workbook grade` checks their own numbers (with `./workbook lesson` and the handout
showing the same ones when given the same ID).

Whose clone: the repository's owner, from the clone's `origin` URL (`.../<assignment>-<username>`,
the name Classroom gives it; the folder's name when there is no remote), matched to the roster's
github_username column. The clone is the student's tree: nothing in it is trusted. A file already
there with answers in it (the release's generic answers.toml, answered) is renamed aside and
committed with the new one, never overwritten or followed (hand_back.give); the generic file as it
came is simply replaced; a section folder that is a link is refused."""
from __future__ import annotations

import sys
from pathlib import Path

from ..core import answers, roster_identity, variants
from . import hand_back

MESSAGE = "{path}: your own numbers (variant of {student}) from the course"


def owner_name(clone: Path) -> str:
    """The clone's repository name: the last part of its origin URL, else the folder's name."""
    url = hand_back._git(clone, "remote", "get-url", "origin")
    text = url.stdout.strip() if url.returncode == 0 else ""
    name = text.rstrip("/").replace(":", "/").split("/")[-1] if text else clone.name
    return name[:-4] if name.endswith(".git") else name


def _real_folder(clone: Path, folder: str) -> bool:
    """Whether every part of clone/folder is a real folder (no link planted to write elsewhere)."""
    here = clone
    for part in Path(folder).parts:
        here = here / part
        if here.is_symlink() or not here.is_dir():
            return False
    return True


def _holds(path, shown, student):
    """Whether the clone's file (a regular one) is already `student`'s variant, perhaps answered."""
    if path.is_symlink() or not path.is_file():
        return False
    try:
        return answers.file_student(path, shown) == student
    except answers.AnswersError:
        return False


def into_clones(chapter, sections, clones_dir, roster, secret):
    """Writes and commits each clone's answers files; returns (lines to print, clones missed)."""
    usernames = roster_identity.github_usernames(roster)
    folders = sorted(p for p in Path(clones_dir).iterdir() if p.is_dir() and not p.name.startswith("."))
    lines, done, missed = [], 0, []
    generic = {s.id: answers.answers_template(chapter, s.id) for s in sections if chapter.questions(s.id)}
    for clone in folders:
        if not hand_back._is_clone(clone):
            lines.append(f"variants: {clone.name}: not a git clone; skipped")
            missed.append(clone.name)
            continue
        user = roster_identity.clone_owner(owner_name(clone), usernames)
        if user is None:
            lines.append(f"variants: {clone.name}: its repository {owner_name(clone)!r} ends with no GitHub username "
                         f"of the roster; add the student's github_username to {roster}")
            missed.append(clone.name)
            continue
        student = usernames[user]
        for s in sections:
            if not chapter.questions(s.id):
                continue
            rel = f"exercises/{s.folder}/answers.toml"
            if not _real_folder(clone, f"exercises/{s.folder}"):
                lines.append(f"variants: {clone.name}: exercises/{s.folder} is not a folder of the clone "
                             "(a link?); nothing written there")
                continue
            if _holds(clone / rel, rel, student):  # a run again (a student added) keeps what they answered
                lines.append(f"variants: {clone.name} ({user} = {student}): {rel} already holds their numbers; left as it is")
                continue
            here = clone / rel
            if here.is_file() and not here.is_symlink() and here.read_text(errors="replace") == generic[s.id]:
                here.unlink()  # the release's file as it came: nothing of the student's to keep aside
            text = answers.answers_template(chapter, s.id, student=student, secret=secret)
            said = hand_back.give(clone, rel, text, MESSAGE.format(path=rel, student=student))
            lines.append(f"variants: {clone.name} ({user} = {student}): {said}")
        done += 1
    lines.append(f"variants: {done} of {len(folders)} clones have their student's own answers files committed; "
                 "nothing is pushed: push each clone (git -C CLONE push) so students pull their numbers")
    return lines, missed


def run(root, chapter, clones_dir, roster, assignment_name=None, course=None):
    from ..core import assignment as assignments
    try:
        chosen = assignments.load(chapter, root, assignment_name, course)
        secret = variants.secret_from_env_or_file(root, course)
        if not secret:
            raise variants.VariantError("no course secret (HALO_COURSE_SECRET or secret = \"...\" in course.toml): "
                                        "without one anyone can compute every student's numbers")
        if not Path(clones_dir).is_dir():
            raise variants.VariantError(f"{clones_dir}: no such folder (give the folder of the class's clones)")
        lines, missed = into_clones(chapter, [chapter.section(i) for i in chosen.ids], clones_dir, roster, secret)
    except (assignments.AssignmentError, variants.VariantError) as e:
        print(f"halo: {e}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 1 if missed else 0
