"""How every grading path takes a submission: `./workbook grade --exercises DIR`, `grade-class`
and the Gradescope autograder all call take_submission, so a tree is read one way whoever grades it.

The student's files are copied into a private folder before anything reads them, and only
regular files are copied: a symbolic link (to solutions/, to the answer key, to /dev/zero), a
named pipe (which would make a reader wait for ever), a device or a socket is refused, and so is
a file over FILE_BYTES. Each refused file is named in one line of the note, and the untouched
stub is graded in its place, so a refusal costs that file's points and nothing else.

Nothing is followed on the way in: every folder and the file itself are opened without
following links (O_NOFOLLOW, relative to the folder already opened), a file is opened without
waiting (O_NONBLOCK) and checked on the open descriptor, and at most FILE_BYTES + 1 bytes are
read, so a file swapped for a link or a pipe after the walk is refused too.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from . import flat_answers

# The largest stub is 9 KB: a kernel or answers file of a megabyte is no honest submission, and
# a bound here bounds what every later reader (compiler, validator, TOML parser) is given.
FILE_BYTES = 1 << 20
# What a student may send besides kernels: a file of another kind is reported as ignored.
SUBMITTED_SUFFIXES = (".cu", ".cuh", ".toml", ".cpp", ".hpp", ".h")
IGNORED_SHOWN = 10  # a zip of a whole repository must not bury the note
ANSWERS = "answers.toml"


class Refused(Exception):
    """A submitted file that is not read; str() says why, in words for the student."""


def kind_of(mode) -> str:
    """What a file that is not a regular file is, in words ("a symbolic link", ...)."""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def _not_regular(mode) -> str:
    return f"{kind_of(mode)}, not a regular file: only regular files are graded"


def _too_big(size) -> str:
    return f"{size:,} bytes, over the limit of {FILE_BYTES:,} bytes for a submitted file"


def read_regular(top, rel, limit=FILE_BYTES) -> bytes:
    """The bytes of `top`/`rel`, or Refused. No link is followed, neither a folder on the way
    nor the file; the checks are made on the open descriptor, so nothing can be swapped in
    between; a pipe is never waited on and no more than limit + 1 bytes are ever read."""
    parts = Path(rel).parts
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            # lstat first: refusing a device or a pipe must not open it (opening has effects).
            mode = os.lstat(part, dir_fd=fd).st_mode
            if last and not stat.S_ISREG(mode) or not last and not stat.S_ISDIR(mode):
                raise Refused(_not_regular(mode) if last else f"{Path(*parts[:i + 1])} is {kind_of(mode)}")
            flags = os.O_RDONLY | os.O_NOFOLLOW | (os.O_NONBLOCK | os.O_NOCTTY if last else os.O_DIRECTORY)
            try:
                child = os.open(part, flags, dir_fd=fd)
            except OSError as e:  # swapped for a link since the lstat (ELOOP), or gone
                raise Refused(f"cannot be opened without following a link ({e.strerror})") from None
            os.close(fd)
            fd = child
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Refused(_not_regular(st.st_mode))
        if st.st_size > limit:
            raise Refused(_too_big(st.st_size))
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(limit + 1)
        if len(data) > limit:  # grew since the fstat
            raise Refused(_too_big(len(data)))
        return data
    finally:
        os.close(fd)


def _walk(submission: Path):
    """(regular files, [(path, what it is)] of the other entries), relative to `submission`.
    Hidden entries and macOS's __MACOSX are left out; links to folders are entries, never
    walked into. Files come shallowest first; at one depth, a copy inside an exercises/
    folder (a whole repository submitted, other copies of the section folders beside it)
    before the others."""
    files, special = [], []
    for dirpath, dirnames, filenames in os.walk(submission):  # os.walk never follows a link
        here = Path(dirpath)
        keep = []
        for name in sorted(dirnames + filenames):
            if name.startswith(".") or name == "__MACOSX":
                continue
            try:
                mode = os.lstat(here / name).st_mode
            except OSError:
                continue
            rel = (here / name).relative_to(submission)
            if stat.S_ISDIR(mode):
                keep.append(name)
            elif stat.S_ISREG(mode):
                files.append(rel)
            else:
                special.append((rel, kind_of(mode)))
        dirnames[:] = keep
    files.sort(key=lambda p: (len(p.parts), "exercises" not in p.parts[:-2], str(p)))
    return files, special


def _read_tree(folder: Path) -> dict:
    """{relative path: bytes} of a folder we trust (the stubs), regular files only."""
    out = {}
    for dirpath, _, filenames in os.walk(folder):
        for f in filenames:
            p = Path(dirpath) / f
            if p.is_file() and not p.is_symlink():
                out[p.relative_to(folder)] = p.read_bytes()
    return out


def _remove(path: Path):
    if path.is_dir() and not path.is_symlink():
        for child in path.iterdir():
            _remove(child)
        path.rmdir()
    else:
        path.unlink()


def _real_folder(path: Path):
    """`path` as a folder of its own: whatever else stands there (a link, a file) goes first,
    so that nothing written below it lands elsewhere."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        path.mkdir()
        return
    if not stat.S_ISDIR(mode):
        path.unlink()
        path.mkdir()


def write_tree(files: dict, out: Path):
    """Makes `out` hold exactly `files` ({relative path: bytes}). A file whose bytes are already
    there is left alone (its build stays warm); everything else is replaced, never written
    through: a link planted in `out` by an earlier grade is removed, not followed."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    _real_folder(out)
    wanted = {Path(p) for p in files}
    folders = {q for p in wanted for q in p.parents if q != Path(".")}
    for dirpath, dirnames, filenames in os.walk(out, topdown=False):
        for name in dirnames + filenames:
            full = Path(dirpath) / name
            rel = full.relative_to(out)
            regular = stat.S_ISREG(os.lstat(full).st_mode)
            real_dir = full.is_dir() and not full.is_symlink()
            if (rel in wanted and regular) or (rel in folders and real_dir):
                continue
            _remove(full)
    for rel in sorted(wanted, key=lambda p: len(p.parts)):
        for parent in reversed(rel.parents[:-1]):
            _real_folder(out / parent)
        path = out / rel
        if path.is_file() and not path.is_symlink() and path.read_bytes() == files[rel]:
            continue
        tmp = path.with_name(path.name + ".halo-tmp")
        tmp.write_bytes(files[rel])
        os.replace(tmp, path)


# A section's line of the note when none of its files came (core/statuses.py reads it: "missing").
NOTHING_SUBMITTED = "nothing submitted (the untouched stub is graded)"


def _owners(chapter):
    """{kernel file name: how many sections have a kernel of that name}."""
    owners = {}
    for s in chapter.sections:
        for k in s.kernels:
            owners[k] = owners.get(k, 0) + 1
    return owners


def _candidates(files, name, section, folders, owners):
    """The submitted copies of `name` for `section`: inside its folder; a kernel file whose
    name only one section uses may also be anywhere outside a section folder."""
    found = [f for f in files if f.name == name and f.parent.name == section.folder]
    if not found and name != ANSWERS and owners.get(name) == 1:
        found = [f for f in files if f.name == name and f.parent.name not in folders]
    return found


def _refused_lines(special, chapter, folders):
    """One line per link, pipe or device a grader would have read: a section folder, or a
    file named like a workbook file or with a source suffix (other oddities are no file of
    the workbook and are left out without a word, as other files are)."""
    names = {k for s in chapter.sections for k in s.kernels} | {ANSWERS}
    lines = []
    for rel, what in special:
        if rel.name in folders or rel.name in names or rel.suffix in SUBMITTED_SUFFIXES:
            lines.append(f"refused {rel}: {what}, not a regular file; only regular files are graded")
    return lines


def _place_flat_answers(chapter, submission, files, folders):
    """({section folder: [answers files outside every section folder that its questions say are
    that section's]}, [(file, why it could not be placed)]): flat_answers.py."""
    ids = flat_answers.question_ids(chapter)
    placed, unplaced = {}, []
    for rel in files:
        if rel.suffix != ".toml" or rel.parent.name in folders:
            continue
        try:
            folder, why = flat_answers.identify(read_regular(submission, rel), str(rel), ids)
        except Refused as e:
            folder, why = None, str(e)
        if folder:
            placed.setdefault(folder, []).append(rel)
        else:
            unplaced.append((rel, why))
    return placed, unplaced


def take_submission(chapter, submission, clean_exercises, out):
    """Writes `out`: a copy of `clean_exercises` with the student's files laid over it.
    Returns the lines of a note saying which files were taken, and which were refused.

    A submission is either a tree shaped like exercises/ (section folders such as
    7.2-basic-1d/, at any depth: a zip of the whole repository works), or the kernel files
    themselves, matched by name to the manifest's kernels. answers.toml is the same name in
    every section, so it is taken only from inside a section folder. When a name is found
    more than once, the shallowest copy wins and the note says so. A refused file (see the
    module's note) leaves the untouched stub in its place."""
    submission, out = Path(submission), Path(out)
    tree = _read_tree(Path(clean_exercises))
    files, special = _walk(submission) if submission.is_dir() else ([], [])
    folders = {s.folder for s in chapter.sections}
    owners = _owners(chapter)
    used, lines, refused = set(), [], _refused_lines(special, chapter, folders)
    flat, unplaced = _place_flat_answers(chapter, submission, files, folders)
    for s in chapter.sections:
        took, missing = [], []
        for name in list(s.kernels) + [ANSWERS]:
            candidates = _candidates(files, name, s, folders, owners)
            by_questions = not candidates and name == ANSWERS and s.folder in flat
            if by_questions:
                candidates = flat[s.folder]
            if not candidates:
                missing.append(name)
                continue
            used.add(candidates[0])
            try:
                tree[Path(s.folder) / name] = read_regular(submission, candidates[0])
            except Refused as e:
                refused.append(f"refused {candidates[0]}: {e} (the untouched stub is graded in its place)")
                continue
            took.append(f"{name} (from {candidates[0]}" + (f", {s.id}'s by its questions" if by_questions else "")
                        + (f"; {len(candidates) - 1} other copies ignored)" if len(candidates) > 1 else ")"))
        line = f"{s.folder}: " + ("; ".join(took) if took else NOTHING_SUBMITTED)
        if missing and took:
            line += f"; not submitted: {', '.join(missing)} (the untouched stub is graded)"
        lines.append(line)
    write_tree(tree, out)
    lines += refused
    lines += [f"ignored {rel}: an answers file outside its section's folder, and {why}" for rel, why in unplaced
              if rel not in used]
    placed_or_said = used | {rel for rel, _ in unplaced} | {rel for rels in flat.values() for rel in rels}
    lines += _ignored_lines([f for f in files if f not in placed_or_said and f.suffix in SUBMITTED_SUFFIXES])
    if not files and not special:
        lines.append("The submission is empty: the untouched stubs are graded.")
    return ["Files graded:"] + ["  " + line for line in lines]


def _ignored_lines(ignored):
    lines = []
    for f in ignored[:IGNORED_SHOWN]:
        if f.name == ANSWERS:
            lines.append(f"ignored {f}: an answers.toml is read only inside its section's folder "
                         "(for example 7.2-basic-1d/answers.toml)")
        else:
            lines.append(f"ignored {f}: not a file of the workbook, or not in its section's folder")
    if len(ignored) > IGNORED_SHOWN:
        lines.append(f"... and {len(ignored) - IGNORED_SHOWN} more files ignored")
    return lines
