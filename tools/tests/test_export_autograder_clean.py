"""The Gradescope autograder zip: built from the last commit, never the working tree, and
carrying no line of any reference solution.

Each test works on a `git clone` of this repository's HEAD in a temporary folder, so the
developer's uncommitted work neither leaks into the zip nor decides the outcome."""
import contextlib
import io
import re
import shutil
import subprocess
import tempfile
import unittest
import zipfile
from pathlib import Path

from halo.course import export_autograder
from halo.core.regions import solution_regions

from .helpers import REPO_ROOT

MIN_LENGTH = 16  # shorter lines ("}", "float sum = 0;") say nothing about one solution
# Solution lines so common that they are no solution's text: the runtime the grader needs
# holds them too.
GENERIC = {"__syncthreads();", "return cudaSuccess;"}
# Reference text the grade run needs, reported rather than hidden: section 7.3 has the student
# write copy_mask_to_constant, and grader/include/halo/given/constant_mask_1d.cuh gives the same
# two lines to the 7.4 and 7.5 stubs, which #include it. Keys: the lines, comments taken off.
KNOWN_IN_GRADING = {
    "if (Mask_Width < 1 || Mask_Width > MAX_MASK_WIDTH) return cudaErrorInvalidValue;":
        "halo/grader/include/halo/given/constant_mask_1d.cuh",
    "return cudaMemcpyToSymbol(M, h_M, size_t(Mask_Width) * sizeof(float));":
        "halo/grader/include/halo/given/constant_mask_1d.cuh",
}
STUB = "exercises/7.2-basic-1d/convolution_1d_basic.cu"


def normalise(line):
    return " ".join(line.split())


def without_comment(line):
    """The line with a trailing // comment taken off: a copy that drops the comment is still
    the solution's text."""
    return normalise(re.sub(r"//.*$", "", line))


def _git(cwd, *args):
    return subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True, check=True).stdout


def clone_head(into):
    """A clone of this repository's HEAD at `into`."""
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(REPO_ROOT), str(into)],
                   capture_output=True, check=True)
    return into


def secret_lines(root):
    """The lines of the SOLUTION regions of solutions/ that students cannot see in the stubs:
    normalised, each also without its comment, at least MIN_LENGTH characters, and in no stub
    line (a substring of a stub line is visible to every student already)."""
    lines = set()
    for path in sorted((root / "solutions").rglob("*")):
        if path.is_file():
            for region in solution_regions(path.read_text(errors="replace")):
                for line in region.splitlines():
                    lines |= {normalise(line), without_comment(line)}
    stubs = "\n".join(normalise(line) for path in sorted((root / "exercises").rglob("*")) if path.is_file()
                      for line in path.read_text(errors="replace").splitlines())
    return {s for s in lines if len(s) >= MIN_LENGTH and s not in stubs}


def zip_texts(zip_path):
    """{member: normalised lines joined by newlines} of the zip's text files."""
    texts = {}
    with zipfile.ZipFile(zip_path) as z:
        for info in z.infolist():
            data = z.read(info)
            if b"\0" in data:
                continue  # binary
            texts[info.filename] = "\n".join(normalise(l) for l in data.decode("utf-8", "replace").splitlines())
    return texts


def export(root, out, allow_dirty=False):
    """export_autograder.run on `root`: (exit status, what it printed to stderr)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = export_autograder.run(root, out, allow_dirty)
    return status, err.getvalue()


@unittest.skipUnless((REPO_ROOT / ".git").exists(), "needs the git checkout of Halo")
class AutograderZipClean(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="halo-clean-zip-"))
        cls.clone = clone_head(cls.tmp / "clone")
        cls.zip = cls.tmp / "autograder.zip"
        export_autograder.build_zip(cls.clone, cls.zip)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_no_line_of_a_solution_is_in_the_zip(self):
        secrets = secret_lines(self.clone) - GENERIC
        self.assertGreater(len(secrets), 100)  # the search found the solutions: it proves something
        texts = zip_texts(self.zip)
        self.assertFalse([m for m in texts if m.startswith("halo/solutions/")])
        found = []
        for member, text in sorted(texts.items()):
            for secret in sorted(secrets):
                if secret in text and KNOWN_IN_GRADING.get(secret) != member:
                    line = next(l for l in text.splitlines() if secret in l)
                    found.append(f"{member}: {secret!r} (in the line {line!r})")
        if found:
            self.fail(f"{len(found)} lines of solutions/ are in the autograder zip:\n  " + "\n  ".join(found))

    def test_every_exclusion_names_something_of_the_repository(self):
        # A renamed folder would otherwise slip back into the zip unnoticed.
        tracked = _git(self.clone, "ls-files").splitlines()
        for entry in export_autograder.EXCLUDED:
            if entry in ("build/", ".venv/", ".halo/", ".halo-backups/"):
                continue  # never committed; excluded in case one is
            self.assertTrue(any(t == entry or (entry.endswith("/") and t.startswith(entry)) for t in tracked),
                            f"EXCLUDED names {entry}, which the repository no longer has")


@unittest.skipUnless((REPO_ROOT / ".git").exists(), "needs the git checkout of Halo")
class AutograderZipFromHead(unittest.TestCase):
    # One clone for the class, put back to HEAD before each test (reset, and every file git does
    # not track removed): a clone a test costs seconds of copying and deleting files.
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="halo-head-zip-"))
        cls.clone = clone_head(cls.tmp / "clone")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        _git(self.clone, "reset", "--quiet", "--hard", "HEAD")
        _git(self.clone, "clean", "-fdxq")
        self.assertEqual(_git(self.clone, "status", "--porcelain", "--ignored"), "", "the clone is HEAD's again")
        self.out = self.tmp / "out" / "autograder.zip"
        shutil.rmtree(self.out.parent, ignore_errors=True)

    def names(self):
        with zipfile.ZipFile(self.out) as z:
            return set(z.namelist())

    def test_an_uncommitted_stub_refuses_the_export_unless_allowed(self):
        stub = self.clone / STUB
        committed = stub.read_text()
        stub.write_text(committed + "// an edit nobody committed\n")
        status, err = export(self.clone, self.out)
        self.assertEqual(status, 2)
        self.assertIn(STUB, err)
        self.assertIn("commit or stash", err.lower())
        self.assertFalse(self.out.exists() or self.out.parent.exists(), "nothing may be written")

        status, err = export(self.clone, self.out, allow_dirty=True)
        self.assertEqual(status, 0, err)
        self.assertIn(STUB, err)  # still named, in the warning
        with zipfile.ZipFile(self.out) as z:
            self.assertEqual(z.read(f"halo/{STUB}").decode(), committed)

    def test_other_changes_warn_and_the_zip_holds_the_committed_version(self):
        tool = self.clone / "tools" / "halo" / "core" / "results.py"
        committed = tool.read_bytes()
        tool.write_text("# an edit nobody committed\n")
        status, err = export(self.clone, self.out)
        self.assertEqual(status, 0, err)
        self.assertIn("tools/halo/core/results.py", err)
        self.assertIn("committed version", err)
        with zipfile.ZipFile(self.out) as z:
            self.assertEqual(z.read("halo/tools/halo/core/results.py"), committed)

    def test_an_untracked_file_is_not_in_the_zip(self):
        (self.clone / "grader" / "include" / "halo" / "untracked.hpp").write_text("// never committed\n")
        status, err = export(self.clone, self.out)
        self.assertEqual(status, 0, err)
        self.assertIn("grader/include/halo/untracked.hpp", err)
        names = self.names()
        self.assertNotIn("halo/grader/include/halo/untracked.hpp", names)
        self.assertIn("halo/grader/include/halo/given/constant_mask_1d.cuh", names)
        self.assertIn("run_autograder", names)

    def test_a_tree_that_is_not_a_git_checkout_is_refused(self):
        # The clone's .git is moved out of the tree (not deleted: the next test's clone needs it).
        aside = self.tmp / "git-aside"
        (self.clone / ".git").rename(aside)
        self.addCleanup(aside.rename, self.clone / ".git")
        status, err = export(self.clone, self.out)
        self.assertEqual(status, 2)
        self.assertIn("not a git checkout", err)
        self.assertFalse(self.out.exists())


if __name__ == "__main__":
    unittest.main()
