"""grader/redteam/: the red-team suite's manifest is well-formed and covers issue 13's list
(no builds: the runner itself is tools/halo/dev/redteam.py, run by ./workbook redteam)."""
import re
import shutil
import tempfile
import unittest
from pathlib import Path

from halo.dev import redteam
from halo.core.chapter_data import load_chapter
from tests.helpers import REPO_ROOT, stubs

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.9, 3.10
    import tomli as tomllib

SUITE = REPO_ROOT / "grader" / "redteam"


class RealManifest(unittest.TestCase):
    def setUp(self):
        self.doc = tomllib.loads((SUITE / "attacks.toml").read_text())
        self.attacks = self.doc["attack"]
        self.controls = self.doc.get("control", [])

    def test_well_formed(self):
        self.assertEqual(redteam.manifest_problems(REPO_ROOT), [])
        attacks, controls = redteam.load_manifest(REPO_ROOT)
        self.assertEqual(len(attacks), len(self.attacks))
        self.assertEqual(len(controls), len(self.controls))

    def test_at_least_thirty_attacks(self):
        self.assertGreaterEqual(len(self.attacks), 30)

    def test_names_unique(self):
        names = [e["name"] for e in self.attacks + self.controls]
        self.assertEqual(len(names), len(set(names)), [n for n in names if names.count(n) > 1])

    def test_every_technique_has_an_attack(self):
        used = {a["technique"] for a in self.attacks}
        self.assertEqual(set(redteam.TECHNIQUES) - used, set())
        self.assertEqual(used - set(redteam.TECHNIQUES), set())

    def test_fields(self):
        chapter = load_chapter(REPO_ROOT)
        sections = {s.id for s in chapter.sections}
        for a in self.attacks:
            with self.subTest(attack=a["name"]):
                self.assertIn(a["section"], sections)
                self.assertTrue(a["what"].strip().endswith("."), "what is one sentence")
                self.assertNotIn("\n", a["what"])
                score = a["expect"]["score"]
                self.assertTrue(score == "no more than the stub" or
                                score[len("no more than "):] in {c["name"] for c in self.controls}, score)
                self.assertIsInstance(a["expect"].get("message", ""), str)

    def test_load_hiding_is_judged_against_a_control(self):
        controls = {c["name"]: c for c in self.controls}
        for a in self.attacks:
            if a["technique"] == "load-hiding":
                with self.subTest(attack=a["name"]):
                    base = a["expect"]["score"][len("no more than "):]
                    self.assertIn(base, controls)
                    self.assertEqual(controls[base]["section"], a["section"])

    def test_folders_hold_only_exercise_files(self):
        listed = {e["name"] for e in self.attacks + self.controls}
        made = {e["name"] for e in self.attacks + self.controls if e.get("special")}  # files made at lay-out
        folders = {p.name for p in SUITE.iterdir() if p.is_dir() and p.name != "__pycache__"}
        self.assertEqual(folders | made, listed)
        self.assertLessEqual(folders, listed)
        exercises = stubs()
        for name in sorted(listed & folders):
            files = [p for p in (SUITE / name).rglob("*") if not p.is_dir()]
            with self.subTest(attack=name):
                self.assertTrue(files or name in made, "an attack changes at least one file")
                for p in files:
                    rel = p.relative_to(SUITE / name)
                    self.assertFalse(p.is_symlink(), rel)
                    self.assertTrue((exercises / rel).is_file(), f"{rel} is not a file of exercises/")

    def test_kernels_keep_the_stub_signatures(self):
        """Every kernel file declares the functions its stub declares, with the same signature
        (a hostile file still has to link with the tests)."""
        signature = re.compile(r"^(?:__global__ void|cudaError_t) \w+\([^)]*\)", re.M)
        for name in sorted(p.name for p in SUITE.iterdir() if p.is_dir()):
            for p in (SUITE / name).rglob("*.cu"):
                rel = p.relative_to(SUITE / name)
                stub = set(signature.findall((stubs() / rel).read_text()))
                with self.subTest(attack=name, file=str(rel)):
                    self.assertLessEqual(stub, set(signature.findall(p.read_text())))

    def test_variant_files_carry_the_redteam_secret(self):
        from halo.core import variants
        fingerprint = variants.secret_fingerprint(redteam.COURSE_SECRET)
        for a in self.attacks:
            if a["technique"] == "variant-copying":
                for p in (SUITE / a["name"]).rglob("answers.toml"):
                    text = p.read_text()
                    if "variant.course" in text:
                        with self.subTest(attack=a["name"]):
                            self.assertIn(f'variant.course = "{fingerprint}"', text)
                            self.assertIn("submitter", a)


class Problems(unittest.TestCase):
    """manifest_problems names what is wrong."""

    def copy(self):
        root = Path(tempfile.mkdtemp(prefix="halo-redteam-test-"))
        self.addCleanup(shutil.rmtree, root, True)
        shutil.copytree(stubs(), root / "exercises")
        shutil.copytree(SUITE, root / "grader" / "redteam")
        return root

    def edit(self, root, old, new):
        path = root / "grader" / "redteam" / "attacks.toml"
        text = path.read_text()
        self.assertIn(old, text)
        path.write_text(text.replace(old, new, 1))

    def test_unknown_technique(self):
        root = self.copy()
        self.edit(root, 'technique = "exit-status-forgery"', 'technique = "wishful-thinking"')
        self.assertTrue(any("wishful-thinking" in p for p in redteam.manifest_problems(root)))

    def test_file_outside_exercises(self):
        root = self.copy()
        name = redteam.load_manifest(root)[0][0].name
        (root / "grader" / "redteam" / name / "tools").mkdir()
        (root / "grader" / "redteam" / name / "tools" / "x.py").write_text("")
        self.assertTrue(any("tools/x.py is not a file of exercises/" in p for p in redteam.manifest_problems(root)))

    def test_duplicate_and_missing_folder(self):
        root = self.copy()
        first = redteam.load_manifest(root)[0][0].name
        path = root / "grader" / "redteam" / "attacks.toml"
        path.write_text(path.read_text() + f'\n[[attack]]\nname = "{first}"\nsection = "7.2"\n'
                        'technique = "output-forgery"\nwhat = "Again."\n'
                        'expect = { score = "no more than the stub", message = "" }\n'
                        '\n[[attack]]\nname = "no-such-folder"\nsection = "7.2"\n'
                        'technique = "output-forgery"\nwhat = "Gone."\n'
                        'expect = { score = "no more than the stub", message = "" }\n')
        problems = redteam.manifest_problems(root)
        self.assertTrue(any("used twice" in p for p in problems), problems)
        self.assertTrue(any("no folder" in p for p in problems), problems)

    def test_unknown_baseline(self):
        root = self.copy()
        self.edit(root, 'score = "no more than control-loads-5x"', 'score = "no more than control-nothing"')
        self.assertTrue(any("control-nothing" in p for p in redteam.manifest_problems(root)))

    def test_select(self):
        attacks, _ = redteam.load_manifest(REPO_ROOT)
        self.assertEqual({a.technique for a in redteam.select(attacks, ["load-hiding"])}, {"load-hiding"})
        self.assertEqual([a.name for a in redteam.select(attacks, ["exit-destructor-underscore-exit"])],
                         ["exit-destructor-underscore-exit"])
        with self.assertRaises(redteam.ManifestError):
            redteam.select(attacks, ["no-such-attack"])


if __name__ == "__main__":
    unittest.main()
