"""What the README and the lessons show of the grader's output is quoted from real runs.

A page marks each such block with a comment on the line before it:

    <!-- quoted: grade 7.2, ghost cells not skipped -->

and the block that follows (fenced, or indented by four spaces) must be made of lines of that
run's output, in the order the run printed them (leading and trailing blanks aside; a line "..."
stands for lines left out). A lesson's placeholders ({{ measurement.X.Y }}) are filled in first,
as students read them. The runs are made by the student-path check (ctest_check.py): RUNS names
them, each a section and the kernel in it.
"""
import re
from pathlib import Path

from ..core.lesson import lesson_context, render_text

MARKER = re.compile(r"^<!-- quoted: (?P<run>[^>]+?) -->\s*$")
# run name -> (section, the wrong kernel of grader/wrong/ in it, or None for the reference)
RUNS = {
    "grade 7.2, ghost cells not skipped": ("7.2", "ghost cells not skipped"),
    "grade 7.2, the reference kernel": ("7.2", None),
}


def _pages(root, chapter):
    """(path, text as a reader sees it) of the README and every lesson."""
    root = Path(root)
    yield root / "README.md", (root / "README.md").read_text()
    for s in chapter.sections:
        path = root / "chapters" / s.folder / "lesson.md"
        if path.is_file():
            yield path, render_text(path.read_text(), lesson_context(chapter, s.id), str(path))


def _block(lines, start):
    """The lines of the block that starts after line `start` (fenced or indented), unindented."""
    k = start + 1
    while k < len(lines) and not lines[k].strip():
        k += 1
    if k < len(lines) and lines[k].startswith("```"):
        end = next(e for e in range(k + 1, len(lines)) if lines[e].startswith("```"))
        return lines[k + 1:end]
    out = []
    while k < len(lines) and (lines[k].startswith("    ") or not lines[k].strip()):
        out.append(lines[k][4:])
        k += 1
    while out and not out[-1].strip():
        out.pop()
    return out


def quotes(root, chapter):
    """[(page, line number, run name, block lines)] of every marked block."""
    found = []
    for path, text in _pages(root, chapter):
        lines = text.splitlines()
        for k, line in enumerate(lines):
            m = MARKER.match(line)
            if m:
                found.append((path, k + 1, m.group("run"), _block(lines, k)))
    return found


def unquoted(block, output):
    """The first line of `block` not found in `output` after the lines before it; None when every
    line is there, in order."""
    said = [line.strip() for line in output.splitlines()]
    at = 0
    for line in block:
        if not line.strip() or line.strip() == "...":
            continue
        try:
            at = said.index(line.strip(), at) + 1
        except ValueError:
            return line
    return None


def problems(root, chapter, outputs):
    """Why the marked blocks are not quotes of `outputs` ({run name: output}); unknown runs too."""
    out = []
    for path, line, run, block in quotes(root, chapter):
        where = f"{Path(path).relative_to(root)}:{line}"
        if run not in outputs:
            out.append(f"{where}: no run named {run!r} (the runs: {', '.join(RUNS)})")
            continue
        missing = unquoted(block, outputs[run])
        if missing is not None:
            out.append(f"{where}: the block is not what '{run}' printed; this line is not in its output "
                       f"(or not in that order): {missing.strip()!r}")
    return out
