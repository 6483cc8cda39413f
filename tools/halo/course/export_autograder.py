"""`./workbook export gradescope-autograder`: the zip to upload to Gradescope as the
assignment's autograder. The rules by which run_autograder reads a submission are
core/intake.py's, the same for every grading path.

The zip's root holds setup.sh and run_autograder (from tools/halo/course/autograder/) and halo/, a
copy of this repository, which Gradescope unpacks to /autograder/source/halo.

The copy is the last commit (`git archive HEAD`), never the working tree: what students are
graded against is then a version someone committed and can name, not whatever an editor left
unsaved. Uncommitted changes to the stubs refuse the export (--allow-dirty overrides); other
uncommitted changes are named in a warning.

The copy carries no reference kernel text (EXCLUDED says what is left out and why): student
code is compiled and run inside the grading container, where it could read, #include or print
any file of the copy.
"""
import io
import os
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path, PurePosixPath

# Kept importable from here for callers that know it by this module (grade-class, tests).
from ..core.intake import take_submission  # noqa: F401

TEMPLATES = Path(__file__).resolve().parent / "autograder"
ROOT_FILES = ("setup.sh", "run_autograder")
TEMPLATES_IN_REPO = "tools/halo/course/autograder"  # where the zip's root files come from, in HEAD

# Left out of the zip, and why. Grading needs only what `./workbook grade --exercises DIR` and
# `./workbook export gradescope` read: CMake in grade mode (grader/CMakeLists.txt and
# grader/cmake/, which build grader/cpu, grader/platform, grader/include, grader/testing and
# grader/sections and nothing below), chapters/manifest.toml and chapters/*/questions.toml, the
# stubs and the Python tools the grade run imports. A folder ends with "/".
EXCLUDED = {
    "solutions/": "the reference kernels and answer keys themselves",
    "grader/wrong/": "known-wrong kernels, written as edits of the reference kernels (each quotes "
                     "the reference lines it changes); only `./workbook check` builds them",
    "grader/redteam/": "hostile submissions for `./workbook check`; grading never reads them",
    "grader/learners/": "the learner corpus: right and wrong kernels, some of them edits of the reference "
                        "kernels; only `./workbook check` builds them",
    "grader/remote/tests/": "the worker sandbox's own tests (a deliberately hostile fake worker); check mode only",
    "grader/bench/": "benchmarks: speed_of_light/ holds the 7.9 kernel's steps v0-v2, the rest "
                     "compiles solutions/; only check mode builds them",
    "grader/cpu/tests/": "the runtime's own tests, only built in check mode; their kernels share "
                         "lines with the references (7.2's thread index line)",
    "chapters/errata.toml": "the errata's corrected code holds lines of the SOLUTION regions (the "
                            "student docs hide them); read by handouts, docs and the diagnostics "
                            "page, never by grading",
    "tools/halo/dev/numba_sim/": "the 7.2 and 7.4 reference kernels written line for line for Numba; "
                                 "only `./workbook bench --cpu` runs them",
    "tools/halo/bench/bench_loop.py": "quotes 7.4's inner loop, the line it edits and times; only "
                                      "`./workbook bench --loop` imports it",
    "tools/tests/": "the tools' unit tests quote reference lines (test_bench_cpu.py the 7.4 loop, "
                    "test_docs_site.py a 7.8 line); only `./workbook check` runs them",
    # Never source, should one be committed by mistake.
    "build/": "build output",
    ".venv/": "a local virtual environment",
    ".halo/": "local state",
    ".halo-backups/": "copies `./workbook reset` keeps",
}
COURSE_FILE = "course.toml"
ROSTER_FILE = "roster.csv"  # where run_autograder looks for the roster (names and emails: private)
# Left out wherever they are: the course secret (the export writes its own course.toml, of one
# assignment, when asked), and what a build or Python writes.
EXCLUDED_NAMES = (COURSE_FILE, "compile_commands.json", "__pycache__")
EXCLUDED_SUFFIXES = (".pyc",)

# Uncommitted changes to these refuse the export: they are what students start from.
STUB_PATTERNS = ("exercises/*/*.cu", "exercises/*/answers.toml")
# Uncommitted changes elsewhere in these are named in a warning (the zip has HEAD's version).
WATCHED = ("exercises", "chapters", "grader", "tools", "workbook", "CMakeLists.txt", "CMakePresets.json")


class ExportError(Exception):
    """Why the zip cannot be built (the message is for the user)."""


def excluded(rel):
    """True when the repository path `rel` (relative, with /) stays out of the zip."""
    path = PurePosixPath(rel)
    if any(p in EXCLUDED_NAMES for p in path.parts) or rel.endswith(EXCLUDED_SUFFIXES):
        return True
    return any(rel == e or (e.endswith("/") and rel.startswith(e)) for e in EXCLUDED)


def _git(root, *args):
    p = subprocess.run(["git", "-C", str(root), *args], capture_output=True)
    if p.returncode != 0:
        raise ExportError(f"git {' '.join(args)} failed: {p.stderr.decode(errors='replace').strip()}")
    return p.stdout


def _check_checkout(root):
    if not (Path(root) / ".git").exists():
        raise ExportError(f"{root} is not a git checkout (no .git): the autograder zip is built from the "
                          "last commit, so export from a clone of the repository")
    try:
        _git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    except ExportError:
        raise ExportError(f"{root} has no commit yet: the autograder zip is built from the last commit") from None


def uncommitted(root):
    """The watched paths whose working-tree state differs from HEAD: changed, staged, deleted
    or new (untracked, not ignored). Sorted, relative, with /."""
    changed = _git(root, "diff", "--name-only", "--no-renames", "-z", "HEAD", "--", *WATCHED)
    new = _git(root, "ls-files", "--others", "--exclude-standard", "-z", "--", *WATCHED)
    return sorted({n for n in (changed + new).decode().split("\0") if n})


def is_stub(rel):
    path = PurePosixPath(rel)
    return any(path.match(p) and len(path.parts) == 3 for p in STUB_PATTERNS)


def committed_files(root):
    """[(path, mode, mtime, bytes)] of HEAD's regular files, from `git archive` (links, which
    the zip never held, are left out)."""
    data = _git(root, "archive", "--format=tar", "HEAD")
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        return [(m.name, m.mode, m.mtime, tar.extractfile(m).read()) for m in tar.getmembers() if m.isfile()]


def _add(z, name, mode, mtime, data, private=False):
    info = zipfile.ZipInfo(name, time.localtime(max(mtime, 315532800))[:6])  # zip dates start in 1980
    # Git knows only "executable or not"; git archive writes 0775/0664. Write what unzip should
    # give: run_autograder and ./workbook executable, nothing group-writable; the course file
    # readable by its owner only (setup.sh makes sure again).
    info.external_attr = (0o100000 | (0o600 if private else 0o755 if mode & 0o111 else 0o644)) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data)


def build_zip(root, out, course_text=None, roster_text=None):
    """Writes the autograder zip from HEAD of the checkout at `root` (no check of the working
    tree: run() does that), with `course_text` as halo/course.toml and `roster_text` as
    halo/roster.csv (submitter.py matches a submitter's email to the roster ID through it) when
    given; returns the number of repository files it carries."""
    root, out = Path(root), Path(out)
    _check_checkout(root)
    files = committed_files(root)
    by_name = {name: (mode, mtime, data) for name, mode, mtime, data in files}
    missing = [n for n in ROOT_FILES if f"{TEMPLATES_IN_REPO}/{n}" not in by_name]
    if missing:
        raise ExportError(f"{', '.join(missing)} not committed in {TEMPLATES_IN_REPO}/")
    kept = [f for f in files if not excluded(f[0])]
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".partial")
    with zipfile.ZipFile(tmp, "w") as z:
        for name in ROOT_FILES:
            _add(z, name, *by_name[f"{TEMPLATES_IN_REPO}/{name}"])
        for name, mode, mtime, data in kept:
            _add(z, f"halo/{name}", mode, mtime, data)
        if course_text is not None:
            _add(z, f"halo/{COURSE_FILE}", 0o644, time.time(), course_text.encode(), private=True)
        if roster_text is not None:
            _add(z, f"halo/{ROSTER_FILE}", 0o644, time.time(), roster_text.encode(), private=True)
    tmp.replace(out)
    return len(kept)


def extract(zip_path, dest):
    """Unpacks a zip keeping Unix modes and times, as unzip does (ZipFile.extractall drops the
    modes, and with them the executable bits of run_autograder and ./workbook)."""
    dest = Path(dest)
    with zipfile.ZipFile(zip_path) as z:
        for info in z.infolist():
            path = Path(z.extract(info, dest))
            mode = (info.external_attr >> 16) & 0o7777
            if mode and not info.is_dir():
                path.chmod(mode)
            stamp = time.mktime(info.date_time + (0, 0, -1))
            os.utime(path, (stamp, stamp))


def course_for_zip(root, chapter, assignment_name=None, course=None):
    """(course.toml text for the zip, a line saying what it holds) from the instructor's course
    file: the course secret and the one assignment graded. (None, line) without a course file."""
    from ..core import variants
    from ..core import assignment as assignments
    path = assignments.course_file(root, course)
    if path is None or path.name == assignments.RELEASE_FILE:
        return None, ("no course.toml: the zip grades every section with the manifest's points, and without a "
                      "course secret (answers are checked against the self-study variants)")
    try:
        chosen = assignments.load(chapter, root, assignment_name, path)
        secret = variants.secret_from_env_or_file(root, path)
    except (assignments.AssignmentError, variants.VariantError) as e:
        raise ExportError(str(e)) from None
    what = "every section" if chosen.whole_chapter else f"assignment {chosen.name} ({', '.join(chosen.ids)})"
    return assignments.to_toml(chosen, secret), (
        f"it carries {path.name}'s course secret and scores {what} out of {chosen.total():g} points: "
        "keep the zip to instructors (Gradescope does not show autograder files to students)")


def roster_for_zip(roster):
    """The roster's text, checked (every row an ID; no account of two students), or None."""
    if roster is None:
        return None
    from ..core import roster_identity, variants
    try:
        roster_identity.identities(roster)
    except variants.VariantError as e:
        raise ExportError(str(e)) from None
    return Path(roster).read_text(encoding="utf-8-sig")


def run(root, out=None, allow_dirty=False, chapter=None, assignment_name=None, course=None, roster=None):
    root = Path(root)
    out = Path(out) if out else root / "build" / "gradescope-autograder.zip"
    try:
        _check_checkout(root)
        course_text, course_note = course_for_zip(root, chapter, assignment_name, course) if chapter else (None, "")
        roster_text = roster_for_zip(roster)
        dirty = [n for n in uncommitted(root) if not excluded(n)]
        stubs = [n for n in dirty if is_stub(n)]
        if stubs and not allow_dirty:
            print("halo: uncommitted changes to the stubs students are graded against:\n  " + "\n  ".join(stubs)
                  + "\nThe autograder zip is built from the last commit, so it would not hold them. Commit or "
                  "stash them and export again (--allow-dirty exports the committed version anyway).",
                  file=sys.stderr)
            return 2
        if dirty:
            print("halo: warning: uncommitted changes; the zip holds the committed version of (or, for a "
                  "file never committed, leaves out):\n  " + "\n  ".join(dirty), file=sys.stderr)
        count = build_zip(root, out, course_text, roster_text)
    except ExportError as e:
        print(f"halo: {e}", file=sys.stderr)
        return 2
    commit = _git(root, "rev-parse", "--short", "HEAD").decode().strip()
    print(f"wrote {out}: setup.sh, run_autograder and Halo as of commit {commit} ({count} files; solutions/ "
          "and every other file holding reference kernel text left out). Upload it as the assignment's "
          f"autograder on Gradescope (Ubuntu 22.04 base image). The zip: {course_note}.")
    return 0
