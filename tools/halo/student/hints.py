"""`./workbook hint SECTION`: the manifest's hints, revealed one at a time.

How many hints of each section a student has seen is kept in .halo/hints.json at the repository
root (outside exercises/, so a submission never carries it, and ignored by git). Hints point
the way and never give code: tests/test_manifest.py checks that against solutions/.
"""
import json
import os
import sys
import tempfile
import textwrap
from pathlib import Path


def state_path(root):
    return Path(root) / ".halo" / "hints.json"


def read_state(path):
    """{section id: hints revealed}; an unreadable file counts as nothing revealed."""
    try:
        data = json.loads(Path(path).read_text())
        revealed = data.get("revealed", {})
        return {str(k): int(v) for k, v in revealed.items() if int(v) > 0}
    except (OSError, ValueError, AttributeError, TypeError):
        return {}


def write_state(path, revealed):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"about": "hints seen per section, by ./workbook hint; delete to forget",
                       "revealed": dict(sorted(revealed.items()))}, indent=1) + "\n"
    # Written beside and renamed: an interrupted write never leaves half a file.
    fd, tmp = tempfile.mkstemp(prefix=".hints-", dir=path.parent)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def _show(k, hint, new, out):
    label = f"Hint {k}{' (new)' if new else ''}: "
    print(textwrap.fill(hint, width=96, initial_indent=label, subsequent_indent=" " * 4,
                        break_long_words=False, break_on_hyphens=False), file=out)


def run(root, chapter, section_id, show_all=False, reset=False, path=None, out=None):
    """Reveals the next hint of the section (or all, or forgets them); returns the exit status."""
    out = out or sys.stdout
    if section_id is None:  # the section the student is on (status.py's choice)
        from .status import current_section
        section = current_section(root, chapter) or chapter.sections[-1]
        print(f"(hints of {section.id}, the section you are on; ./workbook hint SECTION for another)", file=out)
    else:
        section = chapter.section(section_id)
    path = Path(path) if path else state_path(root)
    revealed = read_state(path)
    hints = list(section.hints)
    sid = section.id

    if reset:
        had = revealed.pop(sid, 0)
        write_state(path, revealed)
        print(f"Forgot the {had} hint(s) of {sid} you had seen; ./workbook hint {sid} starts again at the first."
              if had else f"No hints of {sid} were revealed; nothing to forget.", file=out)
        return 0
    if not hints:
        print(f"{sid} has no hints. Read the lesson: ./workbook lesson {sid}", file=out)
        return 0

    seen = min(revealed.get(sid, 0), len(hints))
    if show_all:
        shown, new = len(hints), set(range(seen + 1, len(hints) + 1))
    elif seen < len(hints):
        shown, new = seen + 1, {seen + 1}
    else:
        shown, new = len(hints), set()
    print(f"Hints for {sid} {section.title}:", file=out)
    for k in range(1, shown + 1):
        _show(k, hints[k - 1], k in new, out)
    if shown != revealed.get(sid, 0):
        revealed[sid] = shown
        write_state(path, revealed)

    left = len(hints) - shown
    if show_all:
        print(f"All {len(hints)} hints of {sid} are shown. (./workbook hint {sid} --reset hides them again.)", file=out)
    elif left:
        print(f"{left} more hint{'s' if left != 1 else ''} for {sid}: run ./workbook hint {sid} again "
              f"when you are stuck again.", file=out)
    elif new:
        print(f"That was the last hint for {sid}. Then grade it: ./workbook grade {sid}", file=out)
    else:
        print(f"No more hints for {sid}: you have seen all {len(hints)}. "
              f"(./workbook hint {sid} --reset hides them again.)", file=out)
    return 0
