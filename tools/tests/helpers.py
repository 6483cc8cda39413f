"""Shared test helpers: the repository root and throwaway chapters."""
import atexit
import re
import shutil
import tempfile
import textwrap
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
_COMMITTED = {}


def committed_tree(name):
    """HEAD's top folder `name` (exercises, solutions, chapters), written once per test process:
    a student's edits of exercises/ must never change what these tests see. Without git (a
    tarball of the project), the working tree's folder."""
    if name not in _COMMITTED:
        from halo.core import committed
        out = Path(tempfile.mkdtemp(prefix=f"halo-test-{name}-"))
        atexit.register(shutil.rmtree, out, True)
        try:
            committed.write(REPO_ROOT, name, out)
        except committed.CommittedError:
            shutil.rmtree(out)
            shutil.copytree(REPO_ROOT / name, out)
        _COMMITTED[name] = out
    return _COMMITTED[name]


def stubs():
    """The stubs as committed: HEAD's exercises/."""
    return committed_tree("exercises")


def source_tree(name):
    """A top folder of the repository to copy in a test: exercises/ is the committed stubs."""
    return stubs() if name == "exercises" else REPO_ROOT / name


def scratch_dir(prefix="halo-test-") -> Path:
    """A new empty folder, removed when the test process exits: tests leave nothing in /tmp."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, path, True)
    return path


def make_chapter(*sections: str) -> Path:
    """A temporary repo root with one section per questions.toml text (folders s1, s2, ...)."""
    root = scratch_dir()
    manifest = []
    for k, text in enumerate(sections, 1):
        manifest.append(f'[[sections]]\nid = "{k}.0"\nslug = "s{k}"\ntitle = "Section {k}"\n'
                        f'folder = "s{k}"\nkernels = []\n')
        (root / "chapters" / f"s{k}").mkdir(parents=True)
        (root / "chapters" / f"s{k}" / "questions.toml").write_text(textwrap.dedent(text))
    (root / "chapters" / "manifest.toml").write_text("\n".join(manifest))
    return root


def result_test(name, status="passed", message="", seconds=0.5):
    """One test entry of a grade run's results.json, its section and kind read from its name."""
    m = re.match(r"^(?:([a-z ]+): )?(\d+\.\d+) \S+ / ([a-z-]+) / ", name)
    return {"name": name, "section": m.group(2), "kind": m.group(3), "status": status,
            "message": message, "seconds": seconds}


def section_result(build="ok", build_output=""):
    """One section of a grade run's results.json, with nothing counted yet."""
    return {"title": "t", "has_kernels": True, "build": build, "build_output": build_output,
            "tests": {"passed": 0, "total": 0, "not_run": 0}, "answers": {"right": 0, "asked": 0}, "loads": []}
