"""What the check's Python processes pay before their work (issue 36, item 5): the check keeps
bytecode and runs its own interpreter, not a version manager's shim; the red team compiles its
trees' bytecode before its grades, which then read it, and a grade that changes it is seen."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from halo.dev import check, redteam


class TheCheck(unittest.TestCase):
    def test_children_keep_bytecode_and_find_this_interpreter_first(self):
        here = str(Path(sys.executable).parent)
        env = {"PYTHONDONTWRITEBYTECODE": "1", "PATH": os.pathsep.join(["/shims", here, "/usr/bin"])}
        with mock.patch.dict(os.environ, env, clear=True):
            check._python_for_children()
            self.assertNotIn("PYTHONDONTWRITEBYTECODE", os.environ)
            self.assertEqual(os.environ["PATH"].split(os.pathsep), [here, "/shims", "/usr/bin"])


class RedTeamBytecode(unittest.TestCase):
    def setUp(self):
        self.work = Path(tempfile.mkdtemp(prefix="halo-pyc-test-"))
        self.addCleanup(shutil.rmtree, self.work, True)
        self.tools = self.work / "tools"
        self.tools.mkdir()
        (self.tools / "grader_piece.py").write_text("VERDICT = 'from the source'\n")
        args = argparse.Namespace(seed="1", tmp="shared", checkout=None)
        self.runner = redteam.Runner(Path("."), self.work, args)

    def _import(self):
        """What a grade sees: no bytecode written, the import's source of code said by -v."""
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        env.pop("PYTHONPYCACHEPREFIX", None)
        p = subprocess.run([sys.executable, "-v", "-c", "import grader_piece; print(grader_piece.VERDICT)"],
                           cwd=self.tools, env=env, capture_output=True, text=True, check=True)
        return p.stdout.strip(), [line for line in p.stderr.splitlines() if "grader_piece" in line]

    def test_grades_read_the_compiled_bytecode_and_write_none(self):
        _, lines = self._import()
        self.assertFalse((self.tools / "__pycache__").exists(), "without the runner's compile, nothing is written")
        self.assertFalse(any("code object from" in line and ".pyc" in line for line in lines), lines)
        self.runner._compile_tools(self.tools)
        before = redteam._listing(self.work)
        verdict, lines = self._import()
        self.assertEqual(verdict, "from the source")
        self.assertTrue(any("code object from" in line and "__pycache__" in line for line in lines), lines)
        self.assertEqual(redteam._listing(self.work), before)

    def test_a_grade_that_rewrites_the_bytecode_changes_the_tree(self):
        self.runner._compile_tools(self.tools)
        before = redteam._listing(self.work)
        pyc = next((self.tools / "__pycache__").glob("grader_piece.*.pyc"))
        pyc.write_bytes(pyc.read_bytes() + b"\0")
        self.assertEqual(redteam._differences(before, redteam._listing(self.work), ""),
                         [f"changed tools/__pycache__/{pyc.name}"])


if __name__ == "__main__":
    unittest.main()
