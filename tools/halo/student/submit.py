"""`./workbook submit`: the student's tree checked before it is handed in, and handed in the way
their platform takes it.

Gradescope: a zip of exercises/<section>/ (kernel files and answers.toml), folders kept, written
to build/submit/; dragging the zip itself keeps the folders, where dragging files flattens them
(a flat answers.toml is then placed by its questions when it can be: core/flat_answers.py).
GitHub Classroom: nothing to write; the repository is the submission, so it says what is not
committed yet and the commands that hand it in. What is checked, each named with its line: a
kernel file missing or using what a kernel file may not, and answers entries that do not read."""
from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

from ..core import validate
from ..core.answers import AnswersError, broken_lines, parse_answers

ZIP = Path("build") / "submit" / "halo-submission.zip"
PLATFORMS = ("gradescope", "classroom")


def _problems(root: Path, section) -> list:
    folder = Path("exercises") / section.folder
    out = []
    for name in section.kernels:
        path = root / folder / name
        if not path.is_file():
            out.append(f"{folder / name}: missing (the untouched stub would be graded)")
            continue
        for f in validate.validate_source(path, path.read_text(errors="replace")):
            out.append(f"{folder / name}:{f.line}: {f.message}")
    answers = root / folder / "answers.toml"
    if answers.is_file():
        try:
            parsed = parse_answers(answers, str(folder / "answers.toml"))
            out += [f"{broken_lines(parsed, b)}: {b.what} (this entry scores 0; the others count)" for b in parsed.broken]
        except AnswersError as e:
            out.append(str(e))
    return out


def _zip(root: Path, sections) -> Path:
    out = root / ZIP
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for s in sections:
            for name in list(s.kernels) + ["answers.toml"]:
                path = root / "exercises" / s.folder / name
                if path.is_file():
                    z.write(path, f"exercises/{s.folder}/{name}")
    return out


def _uncommitted(root: Path) -> list:
    run = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", "exercises"],
                         capture_output=True, text=True)
    return [line[3:] for line in run.stdout.splitlines()] if run.returncode == 0 else []


def run(root, chapter, section_ids, to) -> int:
    root = Path(root)
    sections = ([chapter.section(s) for s in section_ids] if section_ids else
                [s for s in chapter.sections if (root / "exercises" / s.folder).is_dir()])
    problems = [p for s in sections for p in _problems(root, s)]
    for p in problems:
        print(f"check: {p}")
    ids = " ".join(s.id for s in sections)
    if to == "gradescope":
        path = _zip(root, sections)
        print(f"wrote {path.relative_to(root)} (sections {ids}): upload this zip to the Gradescope assignment "
              "as it is, not the files inside it, so that each file keeps its section's folder")
    else:
        changed = _uncommitted(root)
        if changed:
            print(f"not committed yet: {', '.join(changed[:8])}{' ...' if len(changed) > 8 else ''}")
        print('hand in with: git add exercises && git commit -m "Submit ' + ids + '" && git push'
              if changed else "everything in exercises/ is committed: git push hands it in (if you have not yet)")
    if problems:
        print(f"{len(problems)} problem{'s' if len(problems) > 1 else ''} above: they cost points; "
              "./workbook grade shows what the grader will say")
    return 1 if problems else 0
