"""tools/halo is split by who uses it (halo/__init__.py says which package is whose): core
imports nothing outside core, no module lies loose beside cli.py, and no two modules import
each other, even lazily inside a function (a circle hides until the wrong one is imported first)."""
import ast
import unittest
from pathlib import Path

from .helpers import REPO_ROOT

TOOLS = REPO_ROOT / "tools"
PACKAGES = ("core", "student", "course", "site", "bench", "dev")
LOOSE = ("halo", "halo.cli")  # the package itself and the command line: the only modules outside PACKAGES
USER_ROOMS = ("core", "student", "course", "site")
# Crossings between the student's and the course's rooms still to move into core/ (issue 34, item
# 10): none. The check of the other direction below keeps it so.
NOT_YET_MOVED = set()


def _name(path):
    parts = list(path.relative_to(TOOLS).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules():
    """{module: path} of every Python module of halo but the scripts of data folders (the
    autograder's own scripts, the Numba simulator), which are run, not imported."""
    return {_name(p): p for p in (TOOLS / "halo").rglob("*.py")
            if (p.parent / "__init__.py").is_file() and "__pycache__" not in p.parts}


def imports(mods):
    """{module: modules of halo it imports anywhere in its text}."""
    graph = {}
    for m, path in mods.items():
        package = m if path.name == "__init__.py" else m.rsplit(".", 1)[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    target = ".".join(base[:len(base) - node.level + 1] + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                found |= {f"{target}.{a.name}" if f"{target}.{a.name}" in mods else target for a in node.names}
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
        # A package's __init__ runs before its modules: importing one's own package is no circle.
        graph[m] = {d for d in found if d in mods and d != m and not m.startswith(d + ".")}
    return graph


def circles(graph):
    """Groups of modules that import each other (strongly connected components), by Tarjan."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while not group or group[-1] != v:
                group.append(stack.pop())
                on.discard(group[-1])
            if len(group) > 1:
                out.append(sorted(group))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


class PackageLayout(unittest.TestCase):
    def setUp(self):
        self.mods = modules()
        self.graph = imports(self.mods)

    def test_the_search_finds_the_modules_and_their_imports(self):
        self.assertIn("halo.core.answers", self.mods)
        self.assertIn("halo.core.variants", self.graph["halo.core.answers"])
        self.assertEqual(circles({"a": {"b"}, "b": {"a"}, "c": {"a"}}), [["a", "b"]])  # the check can fail

    def test_every_module_belongs_to_a_package_of_an_audience(self):
        loose = [m for m in self.mods if m not in LOOSE and m.split(".")[1] not in PACKAGES]
        self.assertFalse(loose, "modules outside core/student/course/site/bench/dev")

    def test_core_imports_only_core(self):
        bad = [f"{m} imports {d}" for m, ds in self.graph.items() if m.startswith("halo.core.")
               for d in ds if not d.startswith("halo.core")]
        self.assertFalse(bad)

    def test_rooms_do_not_reach_into_each_other(self):
        """student and course stand on core (what both use is there); dev, the project's checks
        of itself, is imported by nothing a user runs (bench and cli aside: they run checks)."""
        bad = set()
        for m, ds in self.graph.items():
            room = m.split(".")[1] if m.count(".") else ""
            for d in ds:
                other = d.split(".")[1] if d.count(".") else ""
                if {room, other} == {"student", "course"} or (other == "dev" and room in USER_ROOMS):
                    bad.add(f"{m} imports {d}")
        self.assertEqual(sorted(bad - NOT_YET_MOVED), [])
        self.assertEqual(sorted(NOT_YET_MOVED - bad), [], "moved: take it off NOT_YET_MOVED")

    def test_no_import_circle(self):
        self.assertEqual(circles(self.graph), [])


if __name__ == "__main__":
    unittest.main()
