"""term_check.course_repo, the clone the course and student checks grade in: checks that share one
(check-first-run, check-untouched-stubs and check-student-path, one at a time) each start from a
new student's checkout of the last commit, with only the build kept warm."""
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from halo.course.term_check import course_repo


def _git(cwd, *args):
    subprocess.run(["git", "-C", str(cwd), "-c", "user.email=test@halo", "-c", "user.name=test", *args],
                   check=True, capture_output=True)


class CourseRepo(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="halo-course-repo-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.root = self.tmp / "root"
        (self.root / "exercises").mkdir(parents=True)
        (self.root / "exercises" / "kernel.cu").write_text("// the stub\n")
        (self.root / ".gitignore").write_text("/build/\n/.halo/\n")
        _git(self.root, "init", "-q")
        _git(self.root, "add", "-A")
        _git(self.root, "commit", "-qm", "first")
        self.repo = self.tmp / "work" / "student"
        course_repo(self.root, self.repo)

    def test_a_used_clone_is_a_new_student_s_again_with_its_build_kept(self):
        # What an earlier check leaves: a kernel written, a file of its own, a record, a build.
        (self.repo / "exercises" / "kernel.cu").write_text("// a wrong kernel\n")
        (self.repo / "exercises" / "notes.txt").write_text("untracked\n")
        (self.repo / ".halo").mkdir()
        (self.repo / ".halo" / "record.json").write_text('{"sections": {"7.2": {}}}\n')
        (self.repo / "build" / "grade").mkdir(parents=True)
        (self.repo / "build" / "grade" / "build.ninja").write_text("# warm\n")
        course_repo(self.root, self.repo)
        self.assertEqual((self.repo / "exercises" / "kernel.cu").read_text(), "// the stub\n")
        self.assertFalse((self.repo / "exercises" / "notes.txt").exists())
        self.assertFalse((self.repo / ".halo").exists(), "the last check's student record is still there")
        self.assertEqual((self.repo / "build" / "grade" / "build.ninja").read_text(), "# warm\n")

    def test_a_new_commit_is_taken(self):
        (self.root / "exercises" / "kernel.cu").write_text("// the stub, reworded\n")
        _git(self.root, "commit", "-qam", "second")
        course_repo(self.root, self.repo)
        self.assertEqual((self.repo / "exercises" / "kernel.cu").read_text(), "// the stub, reworded\n")


if __name__ == "__main__":
    unittest.main()
