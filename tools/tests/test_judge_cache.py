"""Every section's judge compiled once for the trees of one set of inputs (core/judge_cache.py):
a tree at another path with the same inputs finds them; a byte of difference in a section's tests,
a given header, a formula of the chapter or an input of the libraries does not; a tree that
compiled its own keeps them; a build publishes only objects that name no path of their tree; the
machine's copy is linked only while root alone can change every file of it."""
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

from halo.core import grader_cache, judge_cache
from tests.test_grader_cache import _tree
from tests.test_machine_grader import as_the_machine_s_copy

SECTIONS = judge_cache.section_ids(Path(__file__).resolve().parents[2])


def _judges_tree(top: Path) -> Path:
    root = _tree(top)
    for rel in ("grader/sections/7.2-basic-1d/test_basic_1d.cpp", "grader/sections/7.2-basic-1d/inputs.hpp",
                "tools/halo/core/cpp_header.py", "tools/halo/cli.py", "tools/halo/course/roster.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"// {rel}\n")
    return root


class JudgeCache(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="halo-judge-cache-test-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.tmp.chmod(0o755)
        self.cache = self.tmp / "cache"
        self.cache.mkdir()
        cmake = self.tmp / "cmake"  # `cmake --build DIR --target ...` has nothing to do
        cmake.write_text("#!/bin/sh\nexit 0\n")
        cmake.chmod(cmake.stat().st_mode | stat.S_IEXEC)
        self.tc = SimpleNamespace(cxx=shutil.which("sh"), cmake=str(cmake), nvcc=None)
        env = {k: v for k, v in os.environ.items() if k != grader_cache.MACHINE_OFF}
        env[grader_cache.ENV] = str(self.cache)
        patch = mock.patch.dict(os.environ, env, clear=True)
        patch.start()
        self.addCleanup(patch.stop)

    def _built(self, root: Path, holding=b"", judges_value="", mode="check") -> Path:
        """A build of `root` that compiled every section's judge (each object holding `holding`)."""
        build = root / "build" / mode
        made = build / "grader" / "CMakeFiles"
        made.mkdir(parents=True)
        (build / "CMakeCache.txt").write_text(f"CMAKE_HOME_DIRECTORY:INTERNAL={root}\nHALO_MODE:STRING={mode}\n"
                                              f"{judge_cache.CMAKE_VAR}:PATH={judges_value}\n")
        for sid in SECTIONS:
            obj = made / f"judge_{sid}.dir" / "sections" / "folder" / "test_it.cpp.o"
            entries = made / f"halo_worker_entries_{sid}.dir" / "remote" / "worker_entries.cpp.o"
            for path in (obj, entries):
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(b"\x7fELF" + sid.encode() + holding)
        return build

    def test_the_same_inputs_at_another_path_have_the_same_key(self):
        a, b = _judges_tree(self.tmp / "a"), _judges_tree(self.tmp / "elsewhere" / "b")
        self.assertEqual(judge_cache.key(a, self.tc), judge_cache.key(b, self.tc))
        (b / "exercises/7.2/kernel.cu").write_text("// a student's kernel is no input of the judges\n")
        (b / "chapters/errata.toml").unlink()  # nor the errata, which no generated header holds
        (b / "tools/halo/course/roster.py").write_text("# nor the course tools\n")
        self.assertEqual(judge_cache.key(a, self.tc), judge_cache.key(b, self.tc))

    def test_any_byte_of_an_input_is_another_key(self):
        before = judge_cache.key(_judges_tree(self.tmp / "a"), self.tc)
        edits = {"a section's tests": "grader/sections/7.2-basic-1d/inputs.hpp",
                 "a kernels' given header": "grader/include/halo/given/tile_copy.cuh",
                 "an input of the libraries": "grader/testing/compare.cpp",
                 "the code that writes the chapter's headers": "tools/halo/core/cpp_header.py",
                 "the command line that runs it": "tools/halo/cli.py"}
        for what, rel in edits.items():
            b = _judges_tree(self.tmp / rel.replace("/", "_"))
            (b / rel).write_text((b / rel).read_text() + " ")
            self.assertNotEqual(judge_cache.key(b, self.tc), before, what)
        c = _judges_tree(self.tmp / "formula")  # chapter_data.hpp holds the formulas the tests evaluate
        questions = c / "chapters/7.2-basic-1d/questions.toml"
        questions.write_text(questions.read_text().replace('expr = "floor_div(Mask_Width, 2)"',
                                                           'expr = "floor_div(Mask_Width, 2) + 0"', 1))
        self.assertNotEqual(judge_cache.key(c, self.tc), before, "a formula of the chapter")

    def test_the_check_s_build_publishes_and_another_tree_links_them(self):
        a, b = _judges_tree(self.tmp / "a"), _judges_tree(self.tmp / "b")
        self.assertEqual(judge_cache.judges_for(b, self.tc, b / "build" / "grade"), "", "nothing published yet")
        self.assertTrue(judge_cache.publish(self.tc, self._built(a)))
        entry = self.cache / judge_cache.key(a, self.tc)
        self.assertEqual(sorted(p.name for p in entry.iterdir()), sorted(SECTIONS))
        self.assertEqual(sorted(str(p.relative_to(entry / "7_2")) for p in (entry / "7_2").rglob("*")),
                         ["judge", "judge/test_it.cpp.o", "worker_entries.o"])
        self.assertEqual(judge_cache.judges_for(b, self.tc, b / "build" / "grade"), str(entry))
        self.assertFalse(judge_cache.publish(self.tc, self._built(b)), "published once")
        (b / "grader/sections/7.2-basic-1d/test_basic_1d.cpp").write_text("// a new test\n")
        self.assertEqual(judge_cache.judges_for(b, self.tc, b / "build" / "grade"), "", "changed tests: compile")

    def test_a_tree_that_compiled_its_own_keeps_them(self):
        a = _judges_tree(self.tmp / "a")
        self.assertTrue(judge_cache.publish(self.tc, self._built(a)))
        own = self._built(a, mode="grade")
        self.assertEqual(judge_cache.judges_for(a, self.tc, own), "")
        (own / "CMakeCache.txt").write_text(f"CMAKE_HOME_DIRECTORY:INTERNAL={a}\n{judge_cache.CMAKE_VAR}:PATH=\n")
        shutil.rmtree(own / "grader")
        self.assertNotEqual(judge_cache.judges_for(a, self.tc, own), "", "control: none compiled yet")

    def test_objects_that_name_their_tree_are_not_published(self):
        for where in ("tree", "build folder"):
            a = _judges_tree(self.tmp / where.replace(" ", "-"))
            holding = a if where == "tree" else a / "build" / "check"
            build = self._built(a, holding=os.fsencode(f"{holding.resolve()}/grader/sections/x.cpp"))
            with contextlib.redirect_stderr(io.StringIO()) as said:
                self.assertFalse(judge_cache.publish(self.tc, build), where)
            self.assertIn("names the path of its tree", said.getvalue())
        self.assertEqual(list(self.cache.iterdir()), [])

    def test_nothing_from_a_build_that_linked_imported_judges_or_missed_a_section(self):
        a = _judges_tree(self.tmp / "a")
        self.assertFalse(judge_cache.publish(self.tc, self._built(a, judges_value=str(self.cache / "x"))))
        b = _judges_tree(self.tmp / "b")
        build = self._built(b)
        shutil.rmtree(build / "grader" / "CMakeFiles" / f"judge_{SECTIONS[-1]}.dir")
        self.assertFalse(judge_cache.publish(self.tc, build), "a section not compiled")
        self.assertEqual(list(self.cache.iterdir()), [])


class MachineCopy(unittest.TestCase):
    """With no HALO_GRADER_CACHE: the machine's copy (`sudo ./workbook setup`), linked only while
    root alone can change the entry and every file and folder in it."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="halo-judge-machine-test-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.tmp.chmod(0o755)
        self.tc = SimpleNamespace(cxx=shutil.which("sh"), cmake=shutil.which("true"), nvcc=None)
        self.folder = self.tmp / "var" / "grader"
        self.tree = _judges_tree(self.tmp / "clone")
        self.build = self.tree / "build" / "grade"
        self.entry = self.folder / judge_cache.key(self.tree, self.tc)
        self.object = self.entry / "7_2" / "judge" / "test_basic_1d.cpp.o"
        self.object.parent.mkdir(parents=True)
        self.object.write_bytes(b"\x7fELF")
        (self.entry / "7_2" / "worker_entries.o").write_bytes(b"\x7fELF")
        for p in self.folder.parent, *sorted(self.folder.rglob("*")), self.folder:
            p.chmod(0o755 if p.is_dir() else 0o644)
        as_the_machine_s_copy(self, self.folder)

    def judges(self):
        return judge_cache.judges_for(self.tree, self.tc, self.build)

    def test_a_first_grade_links_the_machine_s_copy(self):
        self.assertEqual(self.judges(), str(self.entry))
        self.assertEqual(self.judges(), str(self.entry), "again, from the build folder's memo")
        (self.tree / "grader/sections/7.2-basic-1d/inputs.hpp").write_text("// a pull changed the tests\n")
        self.assertEqual(self.judges(), "")

    def test_an_object_or_a_folder_inside_that_others_may_write_is_refused(self):
        for path, mode, kept in ((self.object, 0o666, 0o644), (self.object.parent, 0o777, 0o755)):
            path.chmod(mode)
            self.assertEqual(self.judges(), "", path)
            path.chmod(kept)
        self.assertEqual(self.judges(), str(self.entry), "control")

    def test_another_owner_s_copy_is_refused(self):
        with mock.patch.object(grader_cache, "TRUSTED_OWNERS", {os.getuid() + 1}):
            self.assertEqual(self.judges(), "")


if __name__ == "__main__":
    unittest.main()
