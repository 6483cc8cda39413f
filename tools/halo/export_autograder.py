"""`./workbook export gradescope-autograder`: the zip to upload to Gradescope as the
assignment's autograder, and the rules by which run_autograder reads a submission.

The zip's root holds setup.sh and run_autograder (from tools/halo/autograder/) and halo/, a
copy of this repository, which Gradescope unpacks to /autograder/source/halo. The copy leaves
out solutions/: student code is compiled and run inside the grading container, and a kernel
that could `#include` the reference solution would grade itself. Nothing in `./workbook grade`
reads solutions/ (the exercises' stubs, the tests and the chapter's formulas are all it needs).
"""
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parent / "autograder"
ROOT_FILES = ("setup.sh", "run_autograder")
# Left out of the copy: the reference kernels (see above), and what is never source.
EXCLUDED_TOP = ("solutions", "build", ".git", ".venv", ".halo-backups")
EXCLUDED_NAMES = ("__pycache__", "course.toml", "compile_commands.json")
# What a student may send besides kernels: a file of another kind is reported as ignored.
SUBMITTED_SUFFIXES = (".cu", ".cuh", ".toml", ".cpp", ".hpp", ".h")
IGNORED_SHOWN = 10  # a zip of a whole repository must not bury the note


def _excluded(rel):
    parts = Path(rel).parts
    return not parts or parts[0] in EXCLUDED_TOP or any(p in EXCLUDED_NAMES or p.endswith(".pyc") for p in parts)


def repository_files(root):
    """The repository's files (relative paths) as git sees them, tracked and new, minus the
    excluded ones; without git (a copy, say), every file under root but the excluded ones."""
    root = Path(root)
    try:
        p = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           capture_output=True, text=True, check=True)
        names = sorted({n for n in p.stdout.split("\0") if n})
    except (OSError, subprocess.CalledProcessError):
        names = sorted(str(Path(d, f).relative_to(root)) for d, _, fs in os.walk(root) for f in fs)
    # git lists a tracked file deleted in the working tree too; links are not copied.
    return [n for n in names if not _excluded(n) and (root / n).is_file() and not (root / n).is_symlink()]


def build_zip(root, out):
    """Writes the autograder zip; returns the number of repository files it carries."""
    root, out = Path(root), Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    files = repository_files(root)
    tmp = out.with_name(out.name + ".partial")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for name in ROOT_FILES:  # ZipFile.write keeps the Unix mode: both stay executable
            z.write(TEMPLATES / name, name)
        for rel in files:
            z.write(root / rel, f"halo/{rel}")
    tmp.replace(out)
    return len(files)


def extract(zip_path, dest):
    """Unpacks a zip keeping Unix modes and times, as unzip does (ZipFile.extractall drops the
    modes, and with them the executable bits of run_autograder and ./workbook)."""
    import time
    dest = Path(dest)
    with zipfile.ZipFile(zip_path) as z:
        for info in z.infolist():
            path = Path(z.extract(info, dest))
            mode = (info.external_attr >> 16) & 0o7777
            if mode and not info.is_dir():
                path.chmod(mode)
            stamp = time.mktime(info.date_time + (0, 0, -1))
            os.utime(path, (stamp, stamp))


def _submitted_files(submission):
    """Regular files under the submission (relative paths), shallowest first. Links are never
    followed: a link to the reference tree must not become the student's kernel."""
    found = []
    for dirpath, dirnames, filenames in os.walk(submission):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__MACOSX")
        for f in sorted(filenames):
            path = Path(dirpath) / f
            if not f.startswith(".") and path.is_file() and not path.is_symlink():
                found.append(path.relative_to(submission))
    # Shallowest first; at one depth, a copy inside an exercises/ folder (a whole repository
    # submitted, with other copies of the section folders beside it) before the others.
    return sorted(found, key=lambda p: (len(p.parts), "exercises" not in p.parts[:-2], str(p)))


def take_submission(chapter, submission, clean_exercises, out):
    """Writes `out`: a copy of `clean_exercises` with the student's files laid over it.
    Returns the lines of a note saying which files were taken.

    A submission is either a tree shaped like exercises/ (section folders such as
    7.2-basic-1d/, at any depth: a zip of the whole repository works), or the kernel files
    themselves, matched by name to the manifest's kernels. answers.toml is the same name in
    every section, so it is taken only from inside a section folder. When a name is found
    more than once, the shallowest copy wins and the note says so."""
    submission, out = Path(submission), Path(out)
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(clean_exercises, out)
    files = _submitted_files(submission) if submission.is_dir() else []
    folders = {s.folder for s in chapter.sections}
    owners = {}
    for s in chapter.sections:
        for k in s.kernels:
            owners[k] = owners.get(k, 0) + 1
    used, lines = set(), []
    for s in chapter.sections:
        took, missing = [], []
        for name in list(s.kernels) + ["answers.toml"]:
            candidates = [f for f in files if f.name == name and f.parent.name == s.folder]
            if not candidates and name != "answers.toml" and owners.get(name) == 1:
                candidates = [f for f in files if f.name == name and f.parent.name not in folders]
            if not candidates:
                missing.append(name)
                continue
            shutil.copyfile(submission / candidates[0], out / s.folder / name)
            used.add(candidates[0])
            took.append(f"{name} (from {candidates[0]}"
                        + (f"; {len(candidates) - 1} other copies ignored)" if len(candidates) > 1 else ")"))
        line = f"{s.folder}: " + ("; ".join(took) if took else "nothing submitted (the untouched stub is graded)")
        if missing and took:
            line += f"; not submitted: {', '.join(missing)} (the untouched stub is graded)"
        lines.append(line)
    ignored = [f for f in files if f not in used and f.suffix in SUBMITTED_SUFFIXES]
    for f in ignored[:IGNORED_SHOWN]:
        if f.name == "answers.toml":
            lines.append(f"ignored {f}: an answers.toml is read only inside its section's folder "
                         "(for example 7.2-basic-1d/answers.toml)")
        else:
            lines.append(f"ignored {f}: not a file of the workbook, or not in its section's folder")
    if len(ignored) > IGNORED_SHOWN:
        lines.append(f"... and {len(ignored) - IGNORED_SHOWN} more files ignored")
    if not files:
        lines.append("The submission is empty: the untouched stubs are graded.")
    return ["Files graded:"] + ["  " + line for line in lines]


def run(root, out=None):
    root = Path(root)
    out = Path(out) if out else root / "build" / "gradescope-autograder.zip"
    for name in ROOT_FILES:
        if not (TEMPLATES / name).is_file():
            print(f"halo: {TEMPLATES / name} is missing", file=sys.stderr)
            return 2
    count = build_zip(root, out)
    print(f"wrote {out}: setup.sh, run_autograder and a copy of Halo ({count} files, solutions/ left out). "
          "Upload it as the assignment's autograder on Gradescope (Ubuntu 22.04 base image); give the "
          "assignment the manifest's points.")
    return 0
