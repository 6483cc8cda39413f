"""`./workbook reset SECTION`: start a section again from its stub and blank answers.

The files written are exactly those `./workbook sync` would write (sync.planned_files). Every
file of the student's that differs is first copied, byte for byte, to
.halo-backups/<time>/exercises/<folder>/ (the layout sync uses), and the copy is checked before
anything is overwritten. Files that are not part of the stub are left alone. It asks no
question: it is safe to script, because nothing is lost.
"""
import datetime
import os
import shutil
import sys
from pathlib import Path

from ..core import sync


def plan(root, chapter, section):
    """[(relative path, planned text, current bytes or None)] of the section's exercise files
    that differ from what sync would write."""
    root = Path(root)
    mine = Path("exercises") / section.folder
    changes = []
    for rel, text in sorted(sync.planned_files(root, chapter).items(), key=lambda kv: str(kv[0])):
        if rel.parent != mine and mine not in rel.parents:
            continue
        path = root / rel
        current = path.read_bytes() if path.is_file() else None
        if current != text.encode():
            changes.append((rel, text, current))
    return changes


def _new_backup_dir(root):
    base = Path(root) / ".halo-backups"
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    for k in range(100):
        folder = base / (stamp if k == 0 else f"{stamp}-{k}")
        try:
            folder.mkdir(parents=True)
            return folder
        except FileExistsError:
            continue
    raise OSError(f"cannot make a fresh backup folder under {base}")


def run(root, chapter, section_id, dry_run=False, out=None):
    out = out or sys.stdout
    root = Path(root)
    section = chapter.section(section_id)  # KeyError names the sections
    folder = Path("exercises") / section.folder
    changes = plan(root, chapter, section)
    planned = {rel for rel in sync.planned_files(root, chapter) if rel.parent == folder}
    extra = sorted(p.relative_to(root) for p in (root / folder).rglob("*")
                   if p.is_file() and p.relative_to(root) not in planned) if (root / folder).is_dir() else []

    def say(line=""):
        print(line, file=out)

    if not changes:
        say(f"{folder}/ is already the stub and blank answers: nothing to reset.")
        return 0
    edited = [(rel, cur) for rel, _, cur in changes if cur is not None]
    if dry_run:
        say(f"./workbook reset {section.id} would:")
        for rel, _, cur in changes:
            say(f"  back up and restore {rel}" if cur is not None else f"  write {rel} (missing)")
        if edited:
            say(f"  (copying {len(edited)} file(s) to .halo-backups/<time>/{folder}/ first)")
        for rel in extra:
            say(f"  leave {rel} alone (not part of the stub)")
        say("Nothing was changed (--dry-run).")
        return 0

    backup = None
    if edited:
        backup = _new_backup_dir(root)
        for rel, current in edited:
            target = backup / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / rel, target)
            if target.read_bytes() != current:  # a full disk, say: stop before anything is lost
                say(f"halo: the backup {target} does not match {rel}; nothing was reset")
                return 1
        shown = os.path.relpath(backup, root)
        say(f"Backed up {len(edited)} file(s) of yours to {shown}/")
    for rel, text, _ in changes:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)  # as sync writes it
        say(f"restored {rel}")
    for rel in extra:
        say(f"left {rel} alone (not part of the stub)")
    if backup:
        say(f"Your previous files are in {os.path.relpath(backup / folder, root)}/")
    return 0
