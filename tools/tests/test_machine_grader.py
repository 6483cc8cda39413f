"""The machine's copy of the grader's libraries (core/grader_cache.py, core/machine_grader.py): a
grade with no HALO_GRADER_CACHE imports it only when it, every folder above it and each library
are a trusted owner's and writable by no one else, and only while the tree's inputs hash as they
did; each refusal below has a control that imports."""
import os
import shutil
import stat
import tempfile
import unittest
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

from halo.core import grader_cache, judge_cache, machine_grader
from tests.test_grader_cache import _tree


def as_the_machine_s_copy(test, folder):
    """For the rest of `test`: `folder` is the machine's copy, and no HALO_GRADER_CACHE is set."""
    env = {k: v for k, v in os.environ.items() if k not in (grader_cache.ENV, grader_cache.MACHINE_OFF)}
    env[grader_cache.MACHINE_ENV] = str(folder)
    patches = [mock.patch.dict(os.environ, env, clear=True),
               # Root's in CI; a contributor's own files otherwise (the tests create them as that user).
               mock.patch.object(grader_cache, "TRUSTED_OWNERS", {0, os.getuid()})]
    for p in patches:
        p.start()
        test.addCleanup(p.stop)


class MachineCopy(unittest.TestCase):
    def setUp(self):
        top = Path(tempfile.mkdtemp(prefix="halo-machine-grader-test-"))
        self.addCleanup(shutil.rmtree, top, True)
        top.chmod(0o755)
        self.tmp = top
        cmake = top / "cmake"
        cmake.write_text("#!/bin/sh\nexit 0\n")
        cmake.chmod(0o755)
        self.tc = SimpleNamespace(cxx=shutil.which("sh"), cmake=str(cmake), nvcc=None)
        self.folder = top / "var" / "grader"
        self.tree = _tree(top / "clone")
        self.build = self.tree / "build" / "grade"
        self.entry = self.folder / grader_cache.key(self.tree, self.tc)
        self.entry.mkdir(parents=True)
        for p in (self.folder.parent, self.folder, self.entry):
            p.chmod(0o755)
        for name in grader_cache.LIBRARIES:
            (self.entry / f"lib{name}.a").write_bytes(b"!<arch>\n")
            (self.entry / f"lib{name}.a").chmod(0o644)
        as_the_machine_s_copy(self, self.folder)

    def libs(self):
        return grader_cache.libraries_for(self.tree, self.tc, self.build)

    def test_a_first_grade_imports_the_machine_s_copy(self):
        self.assertEqual(self.libs(), str(self.entry))
        self.assertEqual(self.libs(), str(self.entry), "again, from the build folder's memo")

    def test_changed_sources_are_a_miss_though_the_build_folder_imported_before(self):
        self.assertEqual(self.libs(), str(self.entry))
        (self.tree / "grader/cpu/scheduler.cpp").write_text("// a pull changed the runtime\n")
        self.assertEqual(self.libs(), "")

    def test_a_library_others_may_write_is_refused(self):
        lib = self.entry / f"lib{grader_cache.LIBRARIES[0]}.a"
        for mode in (0o664, 0o646):
            lib.chmod(mode)
            self.assertEqual(self.libs(), "", oct(mode))
        lib.chmod(0o644)
        self.assertEqual(self.libs(), str(self.entry), "control")

    def test_a_folder_others_may_write_is_refused(self):
        for folder in (self.entry, self.folder, self.folder.parent):
            folder.chmod(0o777)
            self.assertEqual(self.libs(), "", folder)
            folder.chmod(0o755)
        self.assertEqual(self.libs(), str(self.entry), "control")

    def test_a_folder_above_that_all_may_write_needs_the_sticky_bit(self):
        self.folder.parent.chmod(0o777)
        self.assertEqual(self.libs(), "")
        self.folder.parent.chmod(0o777 | stat.S_ISVTX)  # as /tmp is: no one renames what is not theirs
        self.assertEqual(self.libs(), str(self.entry))
        self.entry.chmod(0o777 | stat.S_ISVTX)  # the entry itself: anyone could add a library
        self.assertEqual(self.libs(), "")

    def test_another_owner_is_refused(self):
        with mock.patch.object(grader_cache, "TRUSTED_OWNERS", {os.getuid() + 1}):
            self.assertEqual(self.libs(), "")
        self.assertEqual(self.libs(), str(self.entry), "control")

    def test_a_library_that_is_a_link_is_refused(self):
        name = self.entry / f"lib{grader_cache.LIBRARIES[-1]}.a"
        elsewhere = self.tmp / "planted.a"
        elsewhere.write_bytes(name.read_bytes())
        elsewhere.chmod(0o644)
        name.unlink()
        name.symlink_to(elsewhere)
        self.assertEqual(self.libs(), "")
        name.unlink()
        shutil.copy2(elsewhere, name)
        self.assertEqual(self.libs(), str(self.entry), "control")

    def test_told_not_to(self):
        with mock.patch.dict(os.environ, {grader_cache.MACHINE_OFF: "1"}):
            self.assertEqual(self.libs(), "")

    def test_a_build_that_made_its_own_keeps_them(self):
        (self.build / "grader").mkdir(parents=True)
        (self.build / "CMakeCache.txt").write_text(f"{grader_cache.CMAKE_VAR}:PATH=\n")
        for name in grader_cache.LIBRARIES:
            (self.build / "grader" / f"lib{name}.a").write_bytes(b"!<arch>\n")
        self.assertEqual(self.libs(), "")

    def test_setup_says_what_it_did(self):
        with mock.patch.object(os, "geteuid", return_value=0):  # the libraries only: the judges are missing
            self.assertIn("its judges could not be built", machine_grader.prebuild(self.tree, self.tc))
            judges = self.folder / judge_cache.key(self.tree, self.tc)
            judges.mkdir()
            judges.chmod(0o755)
            self.assertIn("built already", machine_grader.prebuild(self.tree, self.tc))
        with mock.patch.object(os, "geteuid", return_value=1000):
            self.assertIn("sudo ./workbook setup", machine_grader.prebuild(self.tree, self.tc))
        self.assertIn("not here", machine_grader.prebuild(self.tmp, self.tc))

    def test_setup_changes_the_modes_of_no_folder_it_did_not_make(self):
        shared = self.tmp / "shared"  # a /tmp of its own: anyone may write, the sticky bit set
        shared.mkdir()
        shared.chmod(0o1777)
        with mock.patch.dict(os.environ, {grader_cache.MACHINE_ENV: str(shared / "grader")}), \
                mock.patch.object(os, "geteuid", return_value=0):
            machine_grader.prebuild(self.tree, self.tc)  # the stand-in cmake builds nothing
        self.assertEqual(stat.S_IMODE(shared.stat().st_mode), 0o1777)
        self.assertEqual(stat.S_IMODE((shared / "grader").stat().st_mode), 0o755)


if __name__ == "__main__":
    unittest.main()
