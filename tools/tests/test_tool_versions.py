"""The tool versions kept per build folder (core/tool_versions.py): asked once, and asked again
whenever the tool's file is another one, so that an upgraded compiler is never taken for the old."""
import json
import os
import stat
import tempfile
import unittest
from pathlib import Path

from halo.core import toolchain, tool_versions


class KeptVersions(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="halo-tool-versions-"))
        self.addCleanup(lambda: __import__("shutil").rmtree(self.tmp, ignore_errors=True))
        self.build = self.tmp / "build"
        self.asked = self.tmp / "asked"
        self.tool = self.tmp / "bin" / "clang++"
        self.tool.parent.mkdir()
        self.write_tool(self.tool, "14.0")

    def write_tool(self, path, version):
        """A compiler that says `version` and counts how often it was asked."""
        path.write_text(f"#!/bin/sh\necho x >> '{self.asked}'\necho 'clang version {version}.6'\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)

    def times_asked(self):
        return len(self.asked.read_text().splitlines()) if self.asked.exists() else 0

    def version(self, folder=None):
        """One grade's look at the tool: a fresh cache of `folder`, as each grade reads it."""
        versions = tool_versions.Versions(toolchain._version, folder or self.build)
        found = versions.version(str(self.tool), toolchain.VERSION)
        versions.save()
        return found

    def test_the_second_grade_does_not_ask(self):
        self.assertEqual(self.version(), (14, 0))
        self.assertEqual(self.version(), (14, 0))
        self.assertEqual(self.times_asked(), 1)

    def test_an_upgraded_compiler_is_asked_again(self):
        self.assertEqual(self.version(), (14, 0))
        self.write_tool(self.tool, "16.0")  # rewritten in place: its size and times change
        self.assertEqual(self.version(), (16, 0))
        self.assertEqual(self.times_asked(), 2)

    def test_a_file_replaced_by_one_of_the_same_size_and_date_is_asked_again(self):
        self.assertEqual(self.version(), (14, 0))
        old = self.tool.stat()
        other = self.tmp / "bin" / "new-clang++"
        self.write_tool(other, "19.0")
        self.assertEqual(other.stat().st_size, old.st_size)
        os.utime(other, ns=(old.st_atime_ns, old.st_mtime_ns))
        os.replace(other, self.tool)
        self.assertEqual(self.tool.stat().st_mtime_ns, old.st_mtime_ns)
        self.assertEqual(self.version(), (19, 0))
        self.assertEqual(self.times_asked(), 2)

    def test_a_link_moved_to_another_compiler_is_asked_again(self):
        target16 = self.tmp / "bin" / "clang++-16"
        self.write_tool(target16, "16.0")
        link = self.tmp / "bin" / "link"
        link.symlink_to(self.tool)
        versions = lambda: tool_versions.Versions(toolchain._version, self.build)
        first = versions()
        self.assertEqual(first.version(str(link), toolchain.VERSION), (14, 0))
        first.save()
        link.unlink()
        link.symlink_to(target16)
        self.assertEqual(versions().version(str(link), toolchain.VERSION), (16, 0))

    def test_each_build_folder_asks_for_itself(self):
        self.version(self.tmp / "one")
        self.version(self.tmp / "two")
        self.assertEqual(self.times_asked(), 2)

    def test_a_tool_that_cannot_say_its_version_is_asked_every_time(self):
        self.tool.write_text(f"#!/bin/sh\necho x >> '{self.asked}'\necho 'no version here'\n")
        self.assertIsNone(self.version())
        self.assertIsNone(self.version())
        self.assertEqual(self.times_asked(), 2)

    def test_a_malformed_file_is_ignored_and_rewritten(self):
        self.build.mkdir()
        for text in ("{not json", '["a list"]', json.dumps({"k": "not a version"})):
            with self.subTest(text):
                (self.build / tool_versions.FILE).write_text(text)
                self.assertEqual(self.version(), (14, 0))
        self.assertEqual(self.times_asked(), 3)
        self.assertEqual(self.version(), (14, 0))
        self.assertEqual(self.times_asked(), 3)

    def test_without_a_folder_nothing_is_kept(self):
        versions = tool_versions.Versions(toolchain._version, None)
        versions.version(str(self.tool), toolchain.VERSION)
        versions.save()
        self.assertEqual(tool_versions.Versions(toolchain._version, None).kept, {})
        self.assertFalse(self.build.exists())


if __name__ == "__main__":
    unittest.main()
