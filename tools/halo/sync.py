"""`./workbook sync`: writes exercises/ (the student tree) from solutions/.

Kernel files get their SOLUTION regions replaced by prompts (regions.py); answers files are
written from the questions (blank in exercises/, the key in solutions/). A file in exercises/
that differs from what would be written is someone's work: it is only replaced with --force,
and then a copy goes to .halo-backups/<time>/ first."""
import difflib
import shutil
import time
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


def out_of_date(root, chapter):
    """[(relative path, current text or None, planned text)] for files that differ."""
    root = Path(root)
    stale = []
    for rel, text in planned_files(root, chapter).items():
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

    edited = [(rel, cur) for rel, cur, _ in stale if cur is not None and str(rel).startswith("exercises")]
    if edited and not force:
        print("Not overwriting files that differ from the generated stubs (someone's work may be in them):")
        for rel, _ in edited:
            print(f"  {rel}")
        print("Run `./workbook sync --force` to replace them; a backup is kept in .halo-backups/.")
        return 1
    if edited:
        backup = root / ".halo-backups" / time.strftime("%Y%m%d-%H%M%S")
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
