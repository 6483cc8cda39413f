"""Known-wrong kernels: the real 7.2 list loads, each mutant is the solution with exactly one
change and a header line, bad specs are refused, and unchanged mutants keep their timestamps."""
import json
import os
import re
import shutil
import tempfile
import unittest
from pathlib import Path

from halo.core.chapter_data import load_chapter
from halo.core.wrong_kernels import WrongKernel, WrongKernelError, load, write_tree
from tests.helpers import REPO_ROOT

FOLDER = "7.2-basic-1d"
KERNEL = "convolution_1d_basic.cu"


class RealList(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)
        cls.section = cls.chapter.section("7.2")
        cls.wrong = load(REPO_ROOT, cls.section)
        cls.solutions = REPO_ROOT / "solutions" / FOLDER

    def setUp(self):
        tmp = tempfile.TemporaryDirectory(prefix="halo-wrong-")
        self.addCleanup(tmp.cleanup)
        self.out = Path(tmp.name) / "out"

    def test_list_loads(self):
        self.assertGreaterEqual(len(self.wrong), 5)
        slugs = [w.slug for w in self.wrong]
        self.assertEqual(len(set(slugs)), len(slugs), slugs)
        for w in self.wrong:
            with self.subTest(name=w.name):
                self.assertIsInstance(w, WrongKernel)
                self.assertRegex(w.slug, r"^[a-z0-9]+(-[a-z0-9]+)*$")
                re.compile(w.expect)
                self.assertTrue((self.solutions / w.file).is_file(), w.file)
                self.assertTrue(w.why, "every known-wrong kernel should say why it is wrong")
                self.assertNotEqual(w.replace, w.with_)

    def test_slug(self):
        w = WrongKernel("Ghost test uses > instead of >=", KERNEL, "a", "b", "", "x")
        self.assertEqual(w.slug, "ghost-test-uses-instead-of")
        w = WrongKernel("start index i - Mask_Width (not i - n)", KERNEL, "a", "b", "", "x")
        self.assertEqual(w.slug, "start-index-i-mask-width-not-i-n")

    def test_each_mutant_is_one_change_plus_a_header(self):
        for w in self.wrong:
            with self.subTest(name=w.name):
                write_tree(REPO_ROOT, self.section, w, self.out)
                solution = (self.solutions / w.file).read_text()
                mutant = (self.out / w.file).read_text()
                header, rest = mutant.split("\n", 1)
                self.assertEqual(header, f"// Known-wrong kernel '{w.name}': {w.why}")
                self.assertEqual(solution.count(w.replace), 1)
                at = solution.index(w.replace)
                self.assertEqual(rest[:at], solution[:at])
                self.assertEqual(rest[at:at + len(w.with_)], w.with_)
                self.assertEqual(rest[at + len(w.with_):], solution[at + len(w.replace):])
                self.assertEqual(len(mutant.splitlines()),
                                 len(solution.splitlines()) + 1 + w.with_.count("\n") - w.replace.count("\n"))
                # every other file of the section comes through unchanged, and nothing else
                names = sorted(p.name for p in self.solutions.iterdir() if p.is_file())
                self.assertEqual(sorted(p.name for p in self.out.iterdir()), names)
                for name in names:
                    if name != w.file:
                        self.assertEqual((self.out / name).read_text(), (self.solutions / name).read_text())

    def test_stale_files_removed(self):
        self.out.mkdir(parents=True)
        (self.out / "old_kernel.cu").write_text("left over\n")
        write_tree(REPO_ROOT, self.section, self.wrong[0], self.out)
        self.assertFalse((self.out / "old_kernel.cu").exists())
        self.assertTrue((self.out / self.wrong[0].file).exists())

    def test_unchanged_files_are_not_rewritten(self):
        w = self.wrong[0]
        write_tree(REPO_ROOT, self.section, w, self.out)
        old = 1_000_000_000 * 10**9  # 2001, so a rewrite would certainly change it
        files = sorted(self.out.iterdir())
        self.assertTrue(files)
        for path in files:
            os.utime(path, ns=(old, old))
        write_tree(REPO_ROOT, self.section, w, self.out)
        for path in files:
            self.assertEqual(path.stat().st_mtime_ns, old, f"{path.name} was rewritten")
        # ...but a different mutant rewrites the kernel (and only the kernel)
        other = next(x for x in self.wrong if x.file == w.file and x.replace != w.replace)
        write_tree(REPO_ROOT, self.section, other, self.out)
        for path in files:
            if path.name == w.file:
                self.assertNotEqual(path.stat().st_mtime_ns, old)
                self.assertTrue(path.read_text().startswith(f"// Known-wrong kernel '{other.name}'"))
            else:
                self.assertEqual(path.stat().st_mtime_ns, old, f"{path.name} was rewritten")

    def test_no_list_no_entries(self):
        tmp = Path(self.out).parent
        self.assertEqual(load(tmp, self.section), [])


class BadSpecs(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory(prefix="halo-wrong-")
        self.addCleanup(tmp.cleanup)
        self.root = Path(tmp.name)
        for tree in ("chapters", "solutions"):
            shutil.copytree(REPO_ROOT / tree, self.root / tree)
        (self.root / "grader" / "wrong").mkdir(parents=True)
        self.section = load_chapter(self.root).section("7.2")
        self.spec = self.root / "grader" / "wrong" / f"{FOLDER}.toml"
        self.out = self.root / "out"

    def write_spec(self, *entries):
        text = ""
        for e in entries:
            text += "[[wrong]]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in e.items()) + "\n"
        self.spec.write_text(text)

    @staticmethod
    def entry(**kw):
        e = {"name": "a mistake", "file": KERNEL, "replace": "P[i] = sum;", "with": "P[i] = 0;",
             "why": "because", "expect": "wrong"}
        e.update(kw)
        return e

    def load(self):
        return load(self.root, self.section)

    def load_error(self):
        with self.assertRaises(WrongKernelError) as cm:
            self.load()
        return str(cm.exception)

    def write_error(self, w):
        with self.assertRaises(WrongKernelError) as cm:
            write_tree(self.root, self.section, w, self.out)
        return str(cm.exception)

    def test_own_spec_loads(self):
        self.write_spec(self.entry(), self.entry(name="another one", why=""))
        got = self.load()
        self.assertEqual([(w.name, w.file, w.replace, w.with_, w.why, w.expect) for w in got], [
            ("a mistake", KERNEL, "P[i] = sum;", "P[i] = 0;", "because", "wrong"),
            ("another one", KERNEL, "P[i] = sum;", "P[i] = 0;", "", "wrong")])

    def test_replace_text_missing(self):
        self.write_spec(self.entry(replace="no such text anywhere"))
        [w] = self.load()
        msg = self.write_error(w)
        self.assertIn("'a mistake'", msg)
        self.assertIn(f"occurs 0 times in solutions/{FOLDER}/{KERNEL}", msg)
        self.assertIn("exactly once", msg)
        self.assertIn("'no such text anywhere'", msg)

    def test_replace_text_twice(self):
        sol = self.root / "solutions" / FOLDER / KERNEL
        sol.write_text(sol.read_text() + "// twice-marker\n// twice-marker\n")
        self.write_spec(self.entry(replace="twice-marker"))
        [w] = self.load()
        msg = self.write_error(w)
        self.assertIn(f"occurs 2 times in solutions/{FOLDER}/{KERNEL}", msg)
        self.assertFalse((self.out / KERNEL).exists(), "no mutant may be written")

    def test_missing_file(self):
        self.write_spec(self.entry(file="nope.cu"))
        [w] = self.load()
        self.assertEqual(self.write_error(w), f"'a mistake': solutions/{FOLDER}/nope.cu does not exist")

    def test_name_with_bar_or_semicolon(self):
        for bad in ("a | b", "a; b", "x;y", "line\nbreak"):
            with self.subTest(name=bad):
                self.write_spec(self.entry(name=bad))
                msg = self.load_error()
                self.assertIn(str(self.spec), msg)
                self.assertIn("entry 1", msg)
                self.assertIn("may not contain | ; or a newline", msg)

    def test_missing_fields(self):
        e = self.entry()
        del e["expect"], e["with"]
        self.write_spec(self.entry(), e)
        msg = self.load_error()
        self.assertEqual(msg, f"{self.spec}: entry 2 lacks with, expect")

    def test_bad_regex(self):
        self.write_spec(self.entry(expect="P\\[(0"))
        msg = self.load_error()
        self.assertIn("'a mistake': expect is not a valid regular expression", msg)

    def test_names_differing_only_in_punctuation(self):
        self.write_spec(self.entry(name="no i < Width guard"), self.entry(name="no i > width guard!"))
        self.assertIn("differ only in punctuation", self.load_error())


if __name__ == "__main__":
    unittest.main()
