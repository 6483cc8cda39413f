"""The variant flow of docs/instructor.md's term, its lines read from the page and run in a clone
of the last commit (as `./workbook internal check-term` runs the whole term): Classroom clones get
their students' own answers files, pushed to their remotes; the Gradescope zip carries the roster
and grades an email-only account as its roster ID. Fails, never skips, when git is missing.
About 7 s on the 2-core development machine (a clone of the repository and two zips)."""
import os
import subprocess
import unittest
import zipfile

from halo.core.chapter_data import load_chapter
from halo.course import class_fixture, term_check, term_variants
from halo.core.assignment import load

from .helpers import REPO_ROOT, scratch_dir


class TermVariants(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir("halo-term-variants-")
        self.repo = self.work / "course"
        term_check.course_repo(REPO_ROOT, self.repo)
        (self.repo / "course.toml").write_text(class_fixture.COURSE_TOML)
        self.chapter = load_chapter(self.repo)
        self.sections = load(self.chapter, self.repo, term_check.ASSIGNMENT).sections
        term_variants.prepare(self.chapter, self.sections, self.work)
        self.env = {k: v for k, v in os.environ.items() if k != "HALO_COURSE_SECRET"}
        self.env.update(GIT_AUTHOR_NAME="Course", GIT_AUTHOR_EMAIL="course@example.edu",
                        GIT_COMMITTER_NAME="Course", GIT_COMMITTER_EMAIL="course@example.edu")

    def run_lines(self, lines):
        ran = subprocess.run(["bash", "-c", "set -eu\n" + "\n".join(lines)], cwd=self.repo, env=self.env,
                             capture_output=True, text=True)
        self.assertEqual(ran.returncode, 0, ran.stdout + ran.stderr)
        return ran.stdout

    def test_the_pages_variant_lines_give_every_student_their_own_numbers(self):
        # The clones given their files, pushed; the zip with the roster. (Grading the clones builds a
        # harness: `./workbook check`'s term check runs that part, and gradebook_problems reads it.)
        lines = [line for line in term_check.walk(REPO_ROOT) if ("--roster" in line or "conv1d-clones" in line)
                 and "grade-class" not in line and "pull" not in line]
        self.assertEqual(len(lines), 3, lines)
        printed = self.run_lines(lines)
        self.assertIn("2 of 2 clones have their student's own answers files committed", printed)
        self.assertEqual(term_variants.verify(self.chapter, self.sections, self.work, self.repo), [])
        with zipfile.ZipFile(self.repo / "build" / "gradescope-autograder.zip") as z:
            # Names and emails: root's alone, as the course secret (submissions run as other users).
            self.assertEqual((z.getinfo("halo/roster.csv").external_attr >> 16) & 0o777, 0o600)

    def test_verify_fails_without_the_variant_flow(self):
        # The term as it was: nothing handed to the clones, a zip without the roster.
        self.run_lines(["./workbook export gradescope-autograder --assignment conv1d"])
        problems = term_variants.verify(self.chapter, self.sections, self.work, self.repo)
        self.assertTrue(any("holds the variant of None" in p for p in problems), problems)
        self.assertTrue(any("carries no halo/roster.csv" in p for p in problems), problems)

    def test_the_clones_gradebook_must_name_roster_ids_and_no_mismatch(self):
        # What grade-class wrote for the clones without --roster: GitHub usernames, each a mismatch.
        book = self.repo / "build" / "class" / "conv1d-clones" / "gradebook.csv"
        book.parent.mkdir(parents=True)
        book.write_text('"student","total (30)","status"\n"olivia-o","0","7.2 variant mismatch"\n'
                        '"ppark","0","7.2 variant mismatch"\n')
        problems = term_variants.gradebook_problems(self.work, self.repo)
        self.assertEqual(len(problems), 3, problems)  # the names, and each mismatch
        book.write_text('"student","total (30)","status"\n"olivia","0","graded"\n"peter","0","graded"\n')
        self.assertEqual(term_variants.gradebook_problems(self.work, self.repo), [])


if __name__ == "__main__":
    unittest.main()
