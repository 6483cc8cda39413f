"""The check build's record of validated kernel files (halo.core.validated_record): the launcher
writes one for a file that passed and none for a file it refused; a record names exact bytes and
the validator's code as it is; the IR corpus takes recorded files as compared (test_ir_agreement)."""
import os
import shutil
import tempfile
import unittest
import unittest.mock
from pathlib import Path

from halo.core import validated_record
from tests import ir_corpus
from tests.test_compile_sandboxed import CLANG, HIDDEN, KERNEL, LauncherCase


class Record(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="halo-record-test-"))
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.kernel = self.dir / "k.cu"
        self.kernel.write_text(KERNEL)
        self.folder = str(self.dir / "record")

    def test_a_written_file_is_validated_and_only_its_bytes(self):
        self.assertFalse(validated_record.validated(self.folder, self.kernel))
        validated_record.write(self.folder, [str(self.kernel)])
        self.assertTrue(validated_record.validated(self.folder, self.kernel))
        self.kernel.write_text(KERNEL + " ")  # one byte more: another file
        self.assertFalse(validated_record.validated(self.folder, self.kernel))

    def test_a_record_of_other_validator_code_does_not_count(self):
        validated_record.write(self.folder, [str(self.kernel)])
        with unittest.mock.patch.object(validated_record, "_code", lambda: b"the validator, changed since"):
            self.assertFalse(validated_record.validated(self.folder, self.kernel))

    def test_no_folder_no_record(self):
        self.assertFalse(validated_record.validated(None, self.kernel))
        self.assertFalse(validated_record.validated("", self.kernel))


@unittest.skipUnless(CLANG, "clang++ is not installed")
class LauncherWritesIt(LauncherCase):
    def test_a_clean_file_is_recorded(self):
        folder = self.dir / "record"
        p, kernel, _ = self.compile(KERNEL, launcher_args=(validated_record.OPTION, str(folder)))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertTrue(validated_record.validated(str(folder), kernel))

    def test_a_refused_file_is_not(self):
        folder = self.dir / "record"
        p, kernel, _ = self.compile(HIDDEN, launcher_args=(validated_record.OPTION, str(folder)))
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertFalse(validated_record.validated(str(folder), kernel))
        self.assertFalse(folder.exists() and os.listdir(folder))


class CorpusTakesIt(unittest.TestCase):
    def test_a_recorded_file_is_not_compiled(self):
        with unittest.mock.patch.object(ir_corpus, "kernel_files",
                                        lambda: {"solutions": [Path(__file__)], "redteam": []}), \
                unittest.mock.patch.object(ir_corpus, "compile_one", side_effect=AssertionError("compiled")):
            got = ir_corpus.modules(workers=1, then=lambda path, ir: "read", recorded=lambda path: True)
        self.assertEqual(got, {"solutions": [(Path(__file__), ir_corpus.BUILD_VALIDATED, None)], "redteam": []})

    def test_control_an_unrecorded_file_is(self):
        with unittest.mock.patch.object(ir_corpus, "kernel_files",
                                        lambda: {"solutions": [Path(__file__)]}), \
                unittest.mock.patch.object(ir_corpus, "compile_one", lambda path: (path, "IR")):
            got = ir_corpus.modules(workers=1, then=lambda path, ir: "read", recorded=lambda path: False)
        self.assertEqual(got, {"solutions": [(Path(__file__), "IR", "read")]})


if __name__ == "__main__":
    unittest.main()
