"""chapters/manifest.toml: points, visibility and hints are read and checked, and no hint gives
away solution code."""
import re
import unittest

from halo.core.chapter_data import ChapterError, load_chapter
from tests.helpers import REPO_ROOT, make_chapter

SECTION = "[formulas.one]\nparams = []\nexpr = '1'\n"


def _with_manifest_lines(lines: str):
    root = make_chapter(SECTION)
    manifest = root / "chapters" / "manifest.toml"
    manifest.write_text(manifest.read_text() + lines)
    return root


class ManifestFields(unittest.TestCase):
    def test_defaults(self):
        s = load_chapter(make_chapter(SECTION)).sections[0]
        self.assertEqual((s.points, s.visibility, s.hints), ({}, "visible", []))

    def test_read(self):
        root = _with_manifest_lines('points = { answers = 3 }\nvisibility = "hidden"\nhints = ["look left", "then right"]\n')
        s = load_chapter(root).sections[0]
        self.assertEqual((s.points, s.visibility, s.hints), ({"answers": 3}, "hidden", ["look left", "then right"]))

    def test_errors_name_the_field(self):
        for lines, word in (('visibility = "secret"\n', "visibility"), ("points = { tests = -1 }\n", "points"),
                            ("points = { tests = 2 }\n", "no tests"), ("hints = [1]\n", "hints"),
                            ("colour = 1\n", "unknown key")):
            with self.subTest(lines=lines), self.assertRaises(ChapterError) as ctx:
                load_chapter(_with_manifest_lines(lines))
            self.assertIn(word, str(ctx.exception))


class RealManifest(unittest.TestCase):
    def setUp(self):
        self.chapter = load_chapter(REPO_ROOT)

    def test_every_section_has_points_and_hints(self):
        for s in self.chapter.sections:
            with self.subTest(section=s.id):
                self.assertTrue(s.hints)
                self.assertGreater(sum(s.points.values()), 0)
                self.assertEqual("tests" in s.points, bool(s.kernels))

    def test_no_hint_contains_a_line_of_solution_code(self):
        code = set()
        for path in (REPO_ROOT / "solutions").rglob("*.cu"):
            inside = False
            for line in path.read_text().splitlines():
                if re.match(r"\s*// BEGIN SOLUTION", line):
                    inside = True
                elif re.match(r"\s*// END SOLUTION", line):
                    inside = False
                elif inside and len(line.strip()) > 12 and not line.strip().startswith("//"):
                    code.add(line.strip())
        self.assertGreater(len(code), 100)  # the check has something to look for
        for s in self.chapter.sections:
            for hint in s.hints:
                for line in code:
                    self.assertNotIn(line, hint, f"a hint of {s.id} quotes solution code")
