"""`./workbook sync`: writes exercises/ (the student tree) from solutions/.

Kernel files get their SOLUTION regions replaced by prompts (regions.py); answers files are
written from the questions (blank in exercises/, the key in solutions/). A file in exercises/
that differs from what would be written is someone's work unless it is exactly what the
generator wrote last time (exercises/.generated.json records a hash of each file written):
someone's work is only replaced with --force, and then a copy goes to .halo-backups/<time>/."""
import datetime
import difflib
import hashlib
import json
import shutil
import tempfile
from pathlib import Path

from . import answers, regions

KERNEL_SUFFIXES = {".cu", ".cuh", ".h", ".hpp"}


def planned_files(root, chapter):
    """{path relative to root: text} for every generated file."""
    root = Path(root)
    files = {}
    for section in chapter.sections:
        src = root / "solutions" / section.folder
        dst = Path("exercises") / section.folder
        for path in sorted(src.iterdir()) if src.exists() else []:
            if path.name == "answers.toml" or not path.is_file():
                continue
            text = path.read_text()
            if path.suffix in KERNEL_SUFFIXES:
                text = regions.make_stub(text, str(path.relative_to(root)))
            files[dst / path.name] = text
        if chapter.questions(section.id):
            files[Path("solutions") / section.folder / "answers.toml"] = answers.answers_template(chapter, section.id, with_key=True)
            files[dst / "answers.toml"] = answers.answers_template(chapter, section.id, with_key=False)
    return files


RECORD = Path("exercises") / ".generated.json"


def _digest(text):
    return hashlib.sha256(text.encode()).hexdigest()


def record_text(files):
    """The record of generated files: which text each exercises/ file had when written."""
    digests = {str(rel): _digest(text) for rel, text in sorted(files.items(), key=lambda kv: str(kv[0]))
               if str(rel).startswith("exercises")}
    return json.dumps({"about": "written by ./workbook sync; a file whose hash differs was edited by someone",
                       "files": digests}, indent=1) + "\n"


def _recorded(root):
    try:
        return json.loads((Path(root) / RECORD).read_text())["files"]
    except (OSError, ValueError, KeyError):
        return {}


def out_of_date(root, chapter):
    """[(relative path, current text or None, planned text)] for files that differ."""
    root = Path(root)
    stale = []
    files = planned_files(root, chapter)
    files[RECORD] = record_text(files)
    for rel, text in files.items():
        path = root / rel
        current = path.read_text() if path.exists() else None
        if current != text:
            stale.append((rel, current, text))
    return stale


def show_diff(rel, current, planned, limit=40):
    diff = list(difflib.unified_diff((current or "").splitlines(), planned.splitlines(),
                                     f"{rel} (committed)", f"{rel} (generated)", lineterm=""))
    for line in diff[:limit]:
        print("    " + line)
    if len(diff) > limit:
        print(f"    ... {len(diff) - limit} more diff lines")


def check_committed(root):
    """`sync --check --committed`: the last commit's exercises/ against what its solutions/ and
    chapters/ generate, whatever the working tree holds."""
    from .chapter_data import load_chapter
    from . import committed
    with tempfile.TemporaryDirectory(prefix="halo-committed-") as tmp:
        for name, data in committed.files(root, "chapters", "solutions", "exercises").items():
            (Path(tmp) / name).parent.mkdir(parents=True, exist_ok=True)
            (Path(tmp) / name).write_bytes(data)
        print("(the last commit's files)")
        return run(tmp, load_chapter(Path(tmp)), check=True)


def run(root, chapter, check=False, force=False):
    root = Path(root)
    stale = out_of_date(root, chapter)
    if check:
        if not stale:
            print("exercises/ and solutions/*/answers.toml are what the generator writes.")
            return 0
        print("These files differ from what `./workbook sync` would write:")
        for rel, current, planned in stale:
            print(f"  {rel}{' (missing)' if current is None else ''}")
            show_diff(rel, current, planned)
        print("Run `./workbook sync` after editing solutions/ or chapters/.")
        return 1

    recorded = _recorded(root)
    edited = [(rel, cur) for rel, cur, _ in stale
              if cur is not None and str(rel).startswith("exercises") and rel != RECORD
              and recorded.get(str(rel)) != _digest(cur)]
    if edited and not force:
        print("Not overwriting files that differ from the generated stubs (someone's work may be in them):")
        for rel, _ in edited:
            print(f"  {rel}")
        print("Run `./workbook sync --force` to replace them; a backup is kept in .halo-backups/.")
        return 1
    if edited:
        backup = root / ".halo-backups" / datetime.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
        for rel, _ in edited:
            (backup / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / rel, backup / rel)
        print(f"Backed up {len(edited)} file(s) to {backup.relative_to(root)}/")
    for rel, _, text in stale:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
        print(f"wrote {rel}")
    if not stale:
        print("Everything is up to date.")
    return 0
