"""Halo's own Python processes start without site (core/site_packages.py): `./workbook` (sh runs
its first line), workbook_argv and CMake's HALO_WORKBOOK. A sitecustomize module on PYTHONPATH is
what site would run: the marker it writes shows whether site ran. The control is the same
command through plain `python3 workbook`, which does run site. A command that needs site-packages
gets them back (pydeps.activate, tomlcompat)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from halo.core.workbook_argv import workbook_argv
from halo.course.class_harness import LAUNCHER, launcher_argv
from tests.helpers import REPO_ROOT


class SiteIsSkipped(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="halo-site-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)  # with sitecustomize's __pycache__, where bytecode is on
        self.marker = self.tmp / "site-ran"
        (self.tmp / "sitecustomize.py").write_text(f"open({str(self.marker)!r}, 'w').close()\n")
        self.env = dict(os.environ, PYTHONPATH=str(self.tmp))
        # The launcher's sh line runs the python3 first on PATH: this one, as the check's children do.
        self.env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), self.env.get("PATH", "")])

    def _site_ran(self, cmd) -> bool:
        subprocess.run(cmd, env=self.env, capture_output=True, check=True)
        ran = self.marker.exists()
        if ran:
            self.marker.unlink()
        return ran

    def test_the_control_site_runs_for_plain_python(self):
        self.assertTrue(self._site_ran([sys.executable, str(REPO_ROOT / "workbook"), "--help"]))

    def test_the_launcher_skips_site(self):
        self.assertFalse(self._site_ran([str(REPO_ROOT / "workbook"), "--help"]))

    def test_workbook_argv_skips_site(self):
        self.assertFalse(self._site_ran(workbook_argv(REPO_ROOT, "--help")))

    def test_grade_class_starts_the_compile_launcher_without_site(self):
        # Without arguments the launcher prints its usage and exits 2: site has run, or not, by then.
        subprocess.run(launcher_argv(), env=self.env, capture_output=True)
        self.assertFalse(self.marker.exists())
        subprocess.run([sys.executable, str(LAUNCHER)], env=self.env, capture_output=True)
        self.assertTrue(self.marker.exists(), "the control: the same launcher through plain python3 runs site")

    def test_cmake_starts_the_workbook_without_site(self):
        text = (REPO_ROOT / "grader" / "cmake" / "HaloSections.cmake").read_text()
        self.assertRegex(text, r'set\(HALO_WORKBOOK "\$\{Python3_EXECUTABLE\}" -S "\$\{PROJECT_SOURCE_DIR\}/workbook"\)')
        for path in [REPO_ROOT / "CMakeLists.txt", *sorted((REPO_ROOT / "grader").rglob("CMakeLists.txt")),
                     *sorted((REPO_ROOT / "grader" / "cmake").glob("*.cmake"))]:
            with self.subTest(path=path.name):
                self.assertIsNone(re.search(r'Python3_EXECUTABLE\}"\s+"[^"]*/workbook"', path.read_text()))


class SitePackagesComeBack(unittest.TestCase):
    def _run(self, code):
        return subprocess.run([sys.executable, "-S", "-c", code], cwd=REPO_ROOT / "tools", capture_output=True,
                              text=True, check=True).stdout.split()

    def test_activate_adds_site_packages(self):
        # pip is in site-packages: -S hides it until pydeps.activate (the control is the first value).
        before, after = self._run("import importlib.util as u; from halo.core import pydeps; "
                                  "print(u.find_spec('pip') is not None); pydeps.activate(); "
                                  "print(u.find_spec('pip') is not None)")
        self.assertEqual((before, after), ("False", "True"))


if __name__ == "__main__":
    unittest.main()
