"""The student's record: each section's latest result, kept across grade runs.

A grade run writes its build folder's results.json for the sections it graded, and nothing
else. `status` must not forget that 7.2 passed because the last run graded 7.4 only, nor show an
instructor's grade of someone else's tree as the student's own. So a grade run of the student's
own exercises/ also merges its sections into .halo/record.json at the repository root (ignored
by git, like hints.json), and a section graded again replaces only itself. Grading another tree
(--exercises DIR: an instructor's, the autograder's, the red team's) leaves no trace in it.

The record reads like a results.json (sections, tests), so status and next_step work on either;
each section adds "graded_at", the time.time() of its run, for "edited since".
"""
import json
import os
import time
from pathlib import Path

VERSION = 1


def record_path(root):
    return Path(root) / ".halo" / "record.json"


def _key(exercises):
    return str(Path(exercises).resolve())


def _read(path):
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return {"version": VERSION, "trees": {}}
    if not isinstance(data, dict) or not isinstance(data.get("trees"), dict):
        return {"version": VERSION, "trees": {}}
    return data


def save_run(root, res, now=None):
    """Merges a grade run's sections (and their tests) into the record, when the run graded the
    student's own exercises/ (and returns True); any other tree is left out."""
    if _key(res["exercises"]) != _key(Path(root) / "exercises"):
        return False
    path = record_path(root)
    data = _read(path)
    tree = data["trees"].setdefault(_key(res["exercises"]), {"sections": {}, "tests": {}})
    now = time.time() if now is None else now
    for sid, entry in res["sections"].items():
        tree["sections"][sid] = {**entry, "graded_at": now, "created": res.get("created"), "seed": res.get("seed")}
        tree["tests"][sid] = [t for t in res["tests"] if t.get("section") == sid]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.partial")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(path)  # a reader never sees half a file
    return True


def load(root):
    """The record of the student's exercises/, shaped like a results.json; None before any run."""
    exercises = Path(root) / "exercises"
    tree = _read(record_path(root))["trees"].get(_key(exercises))
    if not tree or not tree.get("sections"):
        return None
    sections = tree["sections"]
    latest = max(sections.values(), key=lambda e: e.get("graded_at", 0))
    return {"exercises": _key(exercises), "created": latest.get("created"),
            "sections": sections, "tests": [t for sid in sections for t in tree["tests"].get(sid, [])]}
