"""What grade's sandbox probes found is handed to the build's compile launcher (sandbox.handed_on),
so that a kernel edit's compile starts no bubblewrap of its own to learn what grade learnt a moment
before; and no claim in the environment can make a step run with less isolation than its own
probes would have given it."""
import os
import subprocess
import unittest
import unittest.mock

from halo.core import build, sandbox
from tests.test_compile_sandboxed import CLANG, KERNEL, LauncherCase


def _fresh_probes(test):
    """Forget this process's probes before and after `test` (they are kept per process)."""
    for f in (sandbox.probe, sandbox.drops_to_nobody):
        f.cache_clear()
        test.addCleanup(f.cache_clear)


class Claims(unittest.TestCase):
    """Only a claim that bubblewrap works is believed, and only as far as it goes."""

    def setUp(self):
        _fresh_probes(self)
        self.ran = []
        fake = lambda cmd, **kw: self.ran.append(cmd) or subprocess.CompletedProcess(cmd, 0, "", "")
        patch = unittest.mock.patch.object(sandbox.subprocess, "run", side_effect=fake)
        patch.start()
        self.addCleanup(patch.stop)
        which = unittest.mock.patch.object(sandbox, "bwrap_path", return_value="/usr/bin/bwrap")
        which.start()
        self.addCleanup(which.stop)

    def claim(self, value):
        return unittest.mock.patch.dict(os.environ, {sandbox.PROBED_ENV: value})

    def test_a_claim_that_bubblewrap_works_is_not_probed_again(self):
        with self.claim(sandbox.WORKS), unittest.mock.patch.object(sandbox.os, "geteuid", return_value=1000):
            self.assertEqual(sandbox.probe(), ("bubblewrap", ""))
            self.assertFalse(sandbox.drops_to_nobody())
        self.assertEqual(self.ran, [])

    def test_for_root_only_the_claim_of_nobody_spares_that_probe(self):
        with self.claim(sandbox.WORKS), unittest.mock.patch.object(sandbox.os, "geteuid", return_value=0):
            self.assertTrue(sandbox.drops_to_nobody())  # probed: the fake bubblewrap ran as nobody
        self.assertEqual(len(self.ran), 1)
        _fresh_probes(self)
        with self.claim(sandbox.WORKS_AS_NOBODY), unittest.mock.patch.object(sandbox.os, "geteuid", return_value=0):
            self.assertTrue(sandbox.drops_to_nobody())
        self.assertEqual(len(self.ran), 1)

    def test_any_other_claim_is_probed(self):
        for value in ("rlimits-only", "none", "", "bubblewrap ", "yes"):
            with self.subTest(value), self.claim(value):
                _fresh_probes(self)
                before = len(self.ran)
                sandbox.probe()
                self.assertEqual(len(self.ran), before + 1)

    def test_what_is_handed_on(self):
        with unittest.mock.patch.object(sandbox.os, "geteuid", return_value=0):
            self.assertEqual(sandbox.handed_on(), {sandbox.PROBED_ENV: sandbox.WORKS_AS_NOBODY})
        _fresh_probes(self)
        with unittest.mock.patch.object(sandbox.os, "geteuid", return_value=1000):
            self.assertEqual(sandbox.handed_on(), {sandbox.PROBED_ENV: sandbox.WORKS})
        _fresh_probes(self)
        with unittest.mock.patch.object(sandbox, "bwrap_path", return_value=""):
            self.assertEqual(sandbox.handed_on(), {})  # nothing: each step finds why for itself


class BuildEnvironment(unittest.TestCase):
    def test_the_build_tool_gets_what_grade_hands_on(self):
        seen = []
        fake = lambda cmd, **kw: seen.append(kw.get("env")) or subprocess.CompletedProcess(cmd, 0, "", "")
        tc = unittest.mock.Mock(cmake="cmake")
        with unittest.mock.patch.object(build.subprocess, "run", side_effect=fake):
            build.build_targets(tc, "b", ["t"], env={sandbox.PROBED_ENV: sandbox.WORKS})
        self.assertEqual(seen[0][sandbox.PROBED_ENV], sandbox.WORKS)
        self.assertEqual(seen[0]["PATH"], os.environ["PATH"])  # added to this environment, not instead of it


@unittest.skipUnless(CLANG, "clang++ is not installed")
class LauncherProbes(LauncherCase):
    """The real launcher compiling a kernel file, with a bubblewrap on PATH that notes each run."""

    def setUp(self):
        _fresh_probes(self)
        if sandbox.probe()[0] != "bubblewrap":
            self.fail("bubblewrap cannot start here: this test needs it (apt-get install bubblewrap)")
        super().setUp()
        os.chmod(self.dir, 0o755)  # root's compile runs bubblewrap (this one, noting) as nobody
        self.log = self.dir / "bwrap-runs"
        noting = self.dir / "bin" / "bwrap"
        noting.parent.mkdir()
        noting.write_text(f'#!/bin/sh\necho "$*" >> {self.log}\nexec {sandbox.bwrap_path()} "$@"\n')
        noting.chmod(0o755)

    def probes_of_one_compile(self, handed):
        self.log.write_text("")
        os.chmod(self.log, 0o666)
        env = {k: v for k, v in os.environ.items() if k != sandbox.PROBED_ENV}
        env.update(handed, PATH=f"{self.dir / 'bin'}:{os.environ['PATH']}")
        p, _, _ = self.compile(KERNEL, env=env)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        runs = self.log.read_text().splitlines()
        self.assertTrue(any("clang++" in r for r in runs), "the compile did not run in bubblewrap")
        return [r for r in runs if r.endswith("-- /bin/true")]

    def test_a_compile_told_what_grade_found_probes_nothing(self):
        self.assertTrue(self.probes_of_one_compile({}), "the launcher left alone should probe for itself")
        self.assertEqual(self.probes_of_one_compile(sandbox.handed_on()), [])


if __name__ == "__main__":
    unittest.main()
