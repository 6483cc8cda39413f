"""`sudo ./workbook setup` in a student's clone leaves no root-owned __pycache__ there (the
launcher turns bytecode off when root runs it in a tree root does not own); the control: in a
tree root owns, the same command writes its bytecode."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


@unittest.skipUnless(os.geteuid() == 0, "only root can run in a tree another user owns")
class RootInAStudentsClone(unittest.TestCase):
    def _run_help_in_tree_of(self, uid):
        tmp = Path(tempfile.mkdtemp(prefix="halo-root-bytecode-"))
        self.addCleanup(shutil.rmtree, tmp, True)
        shutil.copy2(REPO / "workbook", tmp / "workbook")
        shutil.copytree(REPO / "tools" / "halo", tmp / "tools" / "halo",
                        ignore=shutil.ignore_patterns("__pycache__"))
        for path in [tmp, *tmp.rglob("*")]:
            os.lchown(path, uid, uid)
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
        subprocess.run([sys.executable, str(tmp / "workbook"), "--help"], env=env, capture_output=True, check=True)
        return [p for p in tmp.rglob("__pycache__")]

    def test_no_bytecode_in_a_tree_another_user_owns(self):
        self.assertEqual(self._run_help_in_tree_of(65534), [])

    def test_control_bytecode_in_a_tree_root_owns(self):
        self.assertNotEqual(self._run_help_in_tree_of(0), [])


if __name__ == "__main__":
    unittest.main()
