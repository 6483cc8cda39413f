"""`./workbook release`: a student repository for some sections, ready to push as a GitHub
Classroom template.

    ./workbook release --sections 7.2,7.4 --out DIR [--mode formative|summative]
    ./workbook release --assignment conv1d --out DIR      # sections, points, due, mode from course.toml

Like the Gradescope autograder zip it starts from the last commit (`git archive HEAD`), never
the working tree, so what students get is a version someone committed and can name; files.py
says what is left out and how chapters/ is cut down. Before anything is written:

- no line of any reference solution may be in any file (leaks.py);
- in a summative release, no withheld answer's value may be written in any file (withheld.py);
- the release's own tools, run in it, must list exactly the sections handed out and generate the
  grader's header with every formula the judges name (so a release made from a commit whose tools
  cannot read it is refused here, not found out by the students).

DIR is never overwritten: a DIR that is not empty is refused, and with --force it is kept, renamed
to DIR.backup-<time>, before the release takes its place.

Modes. formative: questions.toml carries the answers, and `./workbook grade` checks them.
summative: the answers of the questions handed out stay with the instructor (the course's
autograder checks them), and so do the formulas only those answers used. What a summative release
cannot hide: formulas the judges need are in it (an answer that is "this load count" can be worked
out from them), and the load tests print the expected counts they compare with.
"""
import datetime
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .. import export_autograder
from ...core.chapter_data import ChapterError, load_chapter
from ...core import assignment as assignments
from . import files as release_files, guard as release_guard, leaks as release_leaks, withheld as release_withheld
from ...core.workbook_argv import workbook_argv


GENERATED = "release"  # the name of the assignment made from --sections and --mode


class _Refused(Exception):
    pass


def _say_refused(message):
    print(f"halo: {message}", file=sys.stderr)
    return 2


def head_chapter(files, into):
    """HEAD's chapter, loaded from its chapters/ written under `into` (the working tree's may differ)."""
    into = Path(into)
    for name, _mode, _mtime, data in files:
        if name == "chapters/manifest.toml" or (name.startswith("chapters/") and name.endswith("/questions.toml")):
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            (into / name).write_bytes(data)
    try:
        return load_chapter(into)
    except ChapterError as e:
        raise _Refused(f"the last commit's chapter does not load: {e}") from None


def choose(chapter, root, sections=None, mode=None, name=None, course=None):
    """The assignment to hand out: the one --assignment/--course names, else one called `release`
    of --sections and --mode with the manifest's points."""
    picked = []
    for i in (i.strip() for i in (sections or "").split(",")):
        if i:
            try:
                s = chapter.section(i)
            except KeyError as e:
                raise _Refused(e.args[0]) from None
            if s in picked:
                raise _Refused(f"section {s.id} is named twice in --sections")
            picked.append(s)
    if name or course:
        try:
            chosen = assignments.load(chapter, root, name, course)
        except assignments.AssignmentError as e:
            raise _Refused(str(e)) from None
        if not chosen.whole_chapter:
            if picked and [s.id for s in picked] != chosen.ids:
                raise _Refused(f"--sections {sections} differs from assignment {chosen.name}'s sections "
                               f"({', '.join(chosen.ids)}): give one or the other")
            if mode and mode != chosen.release:
                raise _Refused(f"--mode {mode} differs from assignment {chosen.name}'s release mode ({chosen.release}): "
                               "change it in the course file, or leave --mode out")
            return chosen
    if not picked:
        raise _Refused("name the sections to hand out: --sections 7.2,7.4 (or --assignment NAME of course.toml)")
    title = f"Convolution workbook: section{'s' if len(picked) > 1 else ''} {', '.join(s.id for s in picked)}"
    return assignments.Assignment(GENERATED, title, picked, mode or "formative")


def _check_out(root, out):
    """Refuses an --out that would write into this repository (but under build/) or over it."""
    root, out = Path(root).resolve(), Path(out).resolve()
    if out == root or root.is_relative_to(out):
        raise _Refused(f"--out {out} holds this repository; choose a folder outside it")
    if out.is_relative_to(root) and not out.is_relative_to(root / "build"):
        raise _Refused(f"--out {out} is inside this repository; choose a folder outside it (or under build/)")
    if out.exists() and not out.is_dir():
        raise _Refused(f"--out {out} is a file")


def _write(tree, folder):
    for rel, (executable, data) in sorted(tree.items()):
        path = Path(folder) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        path.chmod(0o755 if executable else 0o644)


def verify(folder, assignment, head_formulas):
    """Runs the release's own tools in it: the sections it lists, and the grader's header."""
    folder = Path(folder)

    def workbook(*args):
        p = subprocess.run([*workbook_argv(folder), *args], cwd=folder, capture_output=True,
                           text=True, env={k: v for k, v in os.environ.items() if k != "HALO_COURSE_SECRET"})
        if p.returncode != 0:
            raise _Refused(f"the release's own tools fail on it (./workbook {' '.join(args)}): "
                           f"{(p.stderr or p.stdout).strip()[-600:]}\n(the release carries the tools of the last "
                           "commit: are your changes to tools/ committed?)")
        return p.stdout

    listed = [line.split("|")[1] for line in workbook("internal", "sections").splitlines()
              if line.startswith("section|")]
    if sorted(listed) != sorted(assignment.ids):
        raise _Refused(f"the release lists the sections {', '.join(listed) or 'none'}, not {', '.join(assignment.ids)}")
    with tempfile.TemporaryDirectory(prefix="halo-release-header-") as tmp:
        workbook("internal", "emit-header", f"{tmp}/chapter_data.hpp", f"{tmp}/chapter_defines.hpp")
        header = Path(tmp, "chapter_data.hpp").read_text()
    named = set()
    for path in (folder / "grader").rglob("*"):
        if path.is_file() and path.suffix in (".cpp", ".hpp", ".h", ".inc", ".cu", ".cuh"):
            named |= set(release_files.IDENTIFIER.findall(path.read_text(errors="replace")))
    missing = sorted(f for f in head_formulas if f in named and f"inline double {f}(" not in header)
    if missing:
        raise _Refused(f"the release's grader names formulas its header lacks: {', '.join(missing)}")


def _backup_path(out):
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    for k in range(100):
        candidate = out.with_name(f"{out.name}.backup-{stamp}" + (f"-{k}" if k else ""))
        if not candidate.exists():
            return candidate
    raise _Refused(f"cannot find a free name for a backup of {out}")


def run(root, sections=None, out=None, mode=None, assignment_name=None, course=None, force=False):
    root = Path(root)
    try:
        if release_guard.is_release(root):
            raise _Refused("this is a student release: ./workbook release is for instructors")
        if not out:
            raise _Refused("say where the release goes: --out DIR")
        out = Path(out).resolve()
        _check_out(root, out)
        if not force and out.is_dir() and any(out.iterdir()):
            raise _Refused(f"{out} is not empty; nothing was written. --force keeps it as "
                           f"{out.name}.backup-<time> beside it and writes the release in its place")
        if not (root / ".git").exists():
            raise _Refused(f"{root} is not a git checkout: a release is made from the last commit")
        try:
            files = export_autograder.committed_files(root)
            commit = export_autograder._git(root, "rev-parse", "HEAD").decode().strip()
            dirty = [n for n in export_autograder.uncommitted(root) if not export_autograder.excluded(n)]
        except export_autograder.ExportError as e:
            raise _Refused(str(e)) from None
        with tempfile.TemporaryDirectory(prefix="halo-release-") as tmp:
            chapter = head_chapter(files, Path(tmp) / "head")
            chosen = choose(chapter, root, sections, mode, assignment_name, course)
            from_course = chosen.name != GENERATED or bool(assignment_name)
            created = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
            try:
                tree, summary = release_files.build(files, chapter, chosen, commit, created)
            except release_files.ReleaseError as e:
                raise _Refused(str(e)) from None
            hits = release_leaks.find({rel: data for rel, (_x, data) in tree.items()},
                                      release_leaks.secret_lines({n: d for n, _m, _t, d in files}))
            given = [h for h in hits if h[0].startswith(release_leaks.GIVEN)]
            leaks = [h for h in hits if h not in given]
            if leaks:
                raise _Refused(f"{len(leaks)} line(s) of reference solutions would be in the release:\n  "
                               + "\n  ".join(f"{rel}: {line!r} (from {src})" for rel, line, src in leaks[:20]))
            quoted = release_withheld.find({rel: data for rel, (_x, data) in tree.items()},
                                           release_withheld.withheld_values(chapter, summary["withheld"]))
            if quoted:
                raise _Refused(f"{len(quoted)} withheld answer(s) would be in the release, written in a file it "
                               "keeps:\n  " + "\n  ".join(f"{rel}:{n}: {form} (the answer of {q})"
                                                          for rel, n, form, q in quoted[:20]))
            out.parent.mkdir(parents=True, exist_ok=True)
            stage = out.with_name(f".{out.name}.partial-{os.getpid()}")
            _write(tree, stage)
            try:
                verify(stage, chosen, set(chapter.formulas))
                backup = None
                if out.exists() and any(out.iterdir()):
                    if not force:  # filled while the release was being made
                        raise _Refused(f"{out} is not empty; nothing was written")
                    backup = _backup_path(out)
                    out.rename(backup)
                elif out.exists():
                    out.rmdir()
                stage.rename(out)
            finally:
                if stage.exists():
                    shutil.rmtree(stage)
    except _Refused as e:
        return _say_refused(e)
    _report(out, chosen, from_course, commit, len(tree), summary, given, dirty, backup)
    return 0


def _report(out, chosen, from_course, commit, count, summary, given, dirty, backup):
    if backup:
        print(f"kept what was in {out} as {backup}")
    if dirty:
        print("halo: warning: uncommitted changes; the release holds the committed version of (or, for a file "
              "never committed, leaves out):\n  " + "\n  ".join(dirty), file=sys.stderr)
    print(f"wrote {out}: assignment {chosen.name} ({', '.join(chosen.ids)}; {chosen.release}; "
          f"{chosen.total():g} points{'; due ' + chosen.due if chosen.due else ''}) from commit {commit[:12]}, "
          f"{count} files; no solutions/, answer keys or reference kernel text.")
    if summary["withheld"]:
        n = sum(len(ids) for ids in summary["withheld"].values())
        zip_of = (f"--assignment {chosen.name}" if from_course else
                  "--assignment NAME, for an assignment of course.toml with these sections")
        print(f"summative: the answers of {n} questions are not in it; the course's autograder checks them "
              f"(./workbook export gradescope-autograder {zip_of}).")
    for sid, ids in summary["quoted"].items():
        print(f"summative, but {sid}'s lesson prints the answers of {', '.join(ids)}: those stay in it")
    if summary["dropped_formulas"]:
        print(f"left out {len(summary['dropped_formulas'])} formulas that only questions not handed out "
              "(or withheld answers) use.")
    handed_out = {f"solutions/{s.folder}/" for s in chosen.sections}
    for rel, line, src in given:  # by design; worth a word only when that solution is part of the assignment
        if any(src.startswith(h) for h in handed_out):
            print(f"note: {rel}, given code the stubs include, holds {line!r} of {src}")
    print(f"Next: cd {out} && git init && git add -A && git commit -m 'Assignment {chosen.name}', then push it and "
          "mark the repository a template for GitHub Classroom.")
