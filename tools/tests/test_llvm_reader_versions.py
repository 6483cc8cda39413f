"""The compile launcher's reader of LLVM asks the compiler for its version once per build folder
(tool_versions.py), not once per kernel compile; without a folder it asks every time (the
control), and the version it keeps is the one the compiler says."""
import os
import shutil
import subprocess
import tempfile
import unittest
import unittest.mock

from halo.core import llvm_reader

CLANG = shutil.which("clang++")


@unittest.skipUnless(CLANG, "needs clang++")
class VersionsKept(unittest.TestCase):
    def asks(self, folder, times=2):
        """(the majors found, how many `--version` runs) over `times` compiles' lookups."""
        runs, real = [], subprocess.run

        def counted(cmd, *args, **kwargs):
            runs.append(cmd)
            return real(cmd, *args, **kwargs)
        with unittest.mock.patch.object(llvm_reader, "VERSIONS_FOLDER", folder), \
                unittest.mock.patch.object(llvm_reader.subprocess, "run", side_effect=counted):
            found = [llvm_reader._clang_major(os.path.realpath(CLANG)) for _ in range(times)]
        return found, len(runs)

    def test_asked_once_per_build_folder(self):
        with tempfile.TemporaryDirectory() as folder:
            found, runs = self.asks(folder)
            self.assertEqual(runs, 1)
            again, runs = self.asks(folder)  # a later process of the same build
            self.assertEqual(runs, 0)
        said = subprocess.run([CLANG, "--version"], capture_output=True, text=True).stdout
        self.assertIn(f"version {found[0]}.", said)
        self.assertEqual(found + again, [found[0]] * 4)

    def test_without_a_folder_asked_every_time(self):
        found, runs = self.asks(None)
        self.assertEqual(runs, 2)
        self.assertEqual(len(set(found)), 1)


if __name__ == "__main__":
    unittest.main()
