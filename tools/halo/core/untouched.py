"""What is left untouched, said in one line per section: a kernel still the stub ("still a stub —
open FILE, TODO at line N") and questions not answered yet. A first grade of the whole chapter
is mostly that, and a screen of failures per stub buries what a student needs: which file to
open, where."""
import re

# The note the grader adds to every failure of a process whose stub's HALO_TODO() ran
# (grader/testing/launch_check.cpp, stub_notes).
STUB_NOTE = "still a stub: "
_STUB_NOTE = re.compile("^" + re.escape(STUB_NOTE) + r"(\S+?):(\d+): TODO", re.M)
# A kernel written with its HALO_TODO line left in: not a stub (launch_check.hpp, kTodoLeftIn).
TODO_LEFT_IN = "HALO_TODO line is still there"


def is_stub(message):
    """Whether a failed test's message is that of an unwritten stub (and nothing else)."""
    return bool(_STUB_NOTE.search(message or "")) and TODO_LEFT_IN not in (message or "")


def todos(messages):
    """{file: [line, ...]} of the stub TODOs the messages name, files and lines in order."""
    found = {}
    for m in messages:
        for path, line in _STUB_NOTE.findall(m or ""):
            found.setdefault(path, set()).add(int(line))
    return {path: sorted(lines) for path, lines in sorted(found.items())}


def _where(found):
    parts = []
    for path, lines in found.items():
        at = f"TODO at line {lines[0]}" if len(lines) == 1 else f"TODOs at lines {', '.join(map(str, lines))}"
        parts.append(f"{path}, {at}")
    return " and ".join(parts)


def unanswered_file(message):
    """The answers file a "not answered" message names (its second line starts with path:line:)."""
    lines = (message or "").splitlines()
    m = re.match(r"^(\S+?):\d+: ", lines[1]) if len(lines) > 1 else None
    return m.group(1) if m else None


def section_line(sid, slug, stub_messages, unanswered, asked, answers_path):
    """One line for a section: its stub TODOs (from the stub tests' messages), then its questions
    when none is answered yet; None when there is neither."""
    parts = []
    found = todos(stub_messages)
    if found:
        parts.append(f"still a stub — open {_where(found)}")
    if unanswered and len(unanswered) == asked:
        file = f" in {answers_path}" if answers_path else ""
        parts.append(f"{'its' if found else ''} {asked} question{'s' if asked != 1 else ''} to answer{file}".lstrip())
    return f"{sid} {slug}: " + "; ".join(parts) if parts else None
