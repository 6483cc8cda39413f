"""The grader's libraries built once for the trees of one set of sources (core/grader_cache.py):
a tree at another path with the same inputs finds them, any byte of difference in an input does
not, a tree that builds its own keeps doing so, and a build publishes only libraries that hold
no path of their tree."""
import contextlib
import io
import os
import shutil
import stat
import tempfile
import unittest
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

from halo.core import grader_cache


ROOT = Path(__file__).resolve().parents[2]


def _tree(top: Path) -> Path:
    """A tree with the project's chapters (no input of the key: the test shows it) and stand-ins
    for the libraries' sources, a kernels' given header among them."""
    for rel in ("CMakeLists.txt", "grader/CMakeLists.txt", "grader/cpu/scheduler.cpp", "grader/testing/compare.cpp",
                "grader/cpu/tests/test_scheduler.cpp", "exercises/7.2/kernel.cu", "grader/include/halo/launch.hpp",
                "grader/include/halo/given/tile_copy.cuh"):
        path = top / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"// {rel}\n")
    shutil.copytree(ROOT / "chapters", top / "chapters")
    return top


class GraderCache(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="halo-grader-cache-test-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.cache = self.tmp / "cache"
        self.cache.mkdir()
        # A stand-in cmake: `cmake --build DIR --target ...` has nothing to do.
        cmake = self.tmp / "cmake"
        cmake.write_text("#!/bin/sh\nexit 0\n")
        cmake.chmod(cmake.stat().st_mode | stat.S_IEXEC)
        self.tc = SimpleNamespace(cxx=shutil.which("sh"), cmake=str(cmake))
        env = mock.patch.dict(os.environ, {grader_cache.ENV: str(self.cache)})
        env.start()
        self.addCleanup(env.stop)

    def _built(self, root: Path, libs_value="", holding=b"", mode="grade") -> Path:
        """A build of `root` in `mode` that built its libraries (each holding `holding`)."""
        build = root / "build" / mode
        (build / "grader").mkdir(parents=True)
        (build / "CMakeCache.txt").write_text(f"CMAKE_HOME_DIRECTORY:INTERNAL={root}\nHALO_MODE:STRING={mode}\n"
                                              f"{grader_cache.CMAKE_VAR}:PATH={libs_value}\n")
        for name in grader_cache.LIBRARIES:
            (build / "grader" / f"lib{name}.a").write_bytes(b"!<arch>\n" + name.encode() + holding)
        return build

    def test_the_same_sources_at_another_path_have_the_same_key(self):
        a, b = _tree(self.tmp / "a"), _tree(self.tmp / "elsewhere" / "b")
        self.assertEqual(grader_cache.key(a, self.tc), grader_cache.key(b, self.tc))
        (b / "exercises/7.2/kernel.cu").write_text("// a student's kernel is no input of the libraries\n")
        (b / "grader/cpu/tests/test_scheduler.cpp").write_text("// nor are the runtime's own tests\n")
        (b / "chapters/errata.toml").unlink()  # nor the chapter (the zip leaves the errata out)
        questions = b / "chapters/7.2-basic-1d/questions.toml"  # nor a formula (chapter_data.hpp), nor a release's
        questions.write_text(questions.read_text().replace('expr = "floor_div(Mask_Width, 2)"',
                                                           'expr = "floor_div(Mask_Width, 2) + 0"', 1))
        self.assertEqual(grader_cache.key(a, self.tc), grader_cache.key(b, self.tc))
        # nor the kernels' given headers, of which a release of 7.2 and 7.4 holds none of 7.9's
        (b / "grader/include/halo/given/tile_copy.cuh").unlink()
        self.assertEqual(grader_cache.key(a, self.tc), grader_cache.key(b, self.tc))

    def test_any_byte_of_an_input_is_another_key(self):
        a = _tree(self.tmp / "a")
        before = grader_cache.key(a, self.tc)
        for rel in ("grader/cpu/scheduler.cpp", "grader/CMakeLists.txt", "grader/testing/compare.cpp",
                    "grader/include/halo/launch.hpp"):
            b = _tree(self.tmp / rel.replace("/", "_"))
            (b / rel).write_text((b / rel).read_text() + " ")
            self.assertNotEqual(grader_cache.key(b, self.tc), before, rel)
        (a / "grader/include/halo/new.hpp").write_text("#pragma once\n")
        self.assertNotEqual(grader_cache.key(a, self.tc), before, "a new header")

    def test_a_build_publishes_and_another_tree_imports(self):
        a, b = _tree(self.tmp / "a"), _tree(self.tmp / "b")
        self.assertEqual(grader_cache.libraries_for(b, self.tc, b / "build" / "grade"), "", "nothing published yet")
        self.assertTrue(grader_cache.publish(self.tc, self._built(a)))
        entry = self.cache / grader_cache.key(a, self.tc)
        self.assertEqual(sorted(p.name for p in entry.iterdir()), sorted(f"lib{n}.a" for n in grader_cache.LIBRARIES))
        self.assertEqual(grader_cache.libraries_for(b, self.tc, b / "build" / "grade"), str(entry))
        self.assertFalse(grader_cache.publish(self.tc, self._built(b)), "published once")
        (b / "grader/cpu/scheduler.cpp").write_text("// changed\n")
        self.assertEqual(grader_cache.libraries_for(b, self.tc, b / "build" / "grade"), "", "changed sources: build")

    def test_the_check_s_own_build_publishes_for_the_trees_it_makes(self):
        a, b = _tree(self.tmp / "a"), _tree(self.tmp / "b")
        self.assertTrue(grader_cache.publish(self.tc, self._built(a, mode="check")))
        self.assertEqual(grader_cache.libraries_for(b, self.tc, b / "build" / "grade"),
                         str(self.cache / grader_cache.key(a, self.tc)))
        c = _tree(self.tmp / "c")
        (c / "grader/cpu/scheduler.cpp").write_text("// other sources: a key of their own\n")
        self.assertFalse(grader_cache.publish(self.tc, self._built(c, mode="another")), "only grade and check builds")

    def test_a_tree_that_built_its_own_keeps_them(self):
        a = _tree(self.tmp / "a")
        build = self._built(a)
        self.assertTrue(grader_cache.publish(self.tc, build))
        self.assertEqual(grader_cache.libraries_for(a, self.tc, build), "")

    def test_libraries_that_hold_their_tree_s_path_are_not_published(self):
        a = _tree(self.tmp / "a")
        build = self._built(a, holding=os.fsencode(f"{a.resolve()}/grader/cpu/source_lines.cpp"))
        with contextlib.redirect_stderr(io.StringIO()) as said:
            self.assertFalse(grader_cache.publish(self.tc, build))
        self.assertIn("holds the path of its tree", said.getvalue())
        self.assertEqual(list(self.cache.iterdir()), [])

    def test_nothing_without_the_cache_or_from_an_importing_build(self):
        a = _tree(self.tmp / "a")
        # Nor from the machine's copy, which this machine may have (`sudo ./workbook setup`).
        with mock.patch.dict(os.environ, {grader_cache.MACHINE_ENV: str(self.tmp / "none")}, clear=True):
            self.assertFalse(grader_cache.publish(self.tc, self._built(a)))
            self.assertEqual(grader_cache.libraries_for(a, self.tc, a / "build" / "grade"), "")
        b = _tree(self.tmp / "b")
        self.assertFalse(grader_cache.publish(self.tc, self._built(b, libs_value=str(self.cache / "x"))))
        self.assertEqual(list(self.cache.iterdir()), [])


if __name__ == "__main__":
    unittest.main()
