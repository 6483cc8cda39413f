"""Variants end to end: a platform's account (Gradescope's sid or email, a Classroom clone's
GitHub owner) is matched to the roster's student ID; each Classroom clone gets its student's own
answers file committed into it; a student's `grade` says when a file has no variant (or is someone
else's) before they submit."""
import json
import os
import subprocess
import unittest
from pathlib import Path

from halo.core import answers, roster_identity, variants
from halo.core.chapter_data import load_chapter
from halo.course import class_roster, hand_back, variants_into_clones
from halo.course.class_submissions import Submission
from halo.course.autograder import submitter
from halo.student import own_lesson, variant_notice
from halo.core.lesson import render_lesson

from .helpers import REPO_ROOT, scratch_dir

SECRET = "course secret for the identity tests"
ROSTER = "student_id,name,email,github_username\nolivia,Olivia O,olivia@uni.edu,OliviaCodes\nbob,Bob B,,bob-b\n"


def _git(clone, *args):
    return subprocess.run(["git", "-C", str(clone), *args], capture_output=True, text=True, check=True).stdout


class WithRoster(unittest.TestCase):
    def setUp(self):
        self.dir = scratch_dir("halo-identity-")
        self.roster = self.dir / "roster.csv"
        self.roster.write_text(ROSTER)


class Identity(WithRoster):

    def test_an_email_only_account_is_matched_through_the_roster(self):
        meta = self.dir / "submission_metadata.json"
        meta.write_text(json.dumps({"users": [{"email": "Olivia@uni.edu", "name": "Olivia", "sid": ""}]}))
        self.assertEqual(submitter.submitter(meta, self.roster), "olivia")
        # Without the roster the email is all there is: the variant of "olivia" would not match.
        self.assertEqual(submitter.submitter(meta), "Olivia@uni.edu")

    def test_a_sid_the_roster_knows_wins_and_an_unknown_account_is_kept(self):
        meta = self.dir / "submission_metadata.json"
        meta.write_text(json.dumps({"users": [{"email": "x@uni.edu", "sid": "bob"}]}))
        self.assertEqual(submitter.submitter(meta, self.roster), "bob")
        meta.write_text(json.dumps({"users": [{"email": "carol@uni.edu", "sid": ""}]}))
        self.assertEqual(submitter.submitter(meta, self.roster), "carol@uni.edu")

    def test_an_account_of_two_students_names_both_lines(self):
        self.roster.write_text(ROSTER + "carol,Carol,olivia@uni.edu,\n")
        with self.assertRaises(variants.VariantError) as e:
            roster_identity.identities(self.roster)
        self.assertIn(":4:", str(e.exception))
        self.assertIn("line 2", str(e.exception))

    def test_the_clone_owner_is_the_longest_roster_username_its_name_ends_with(self):
        names = roster_identity.github_usernames(self.roster)
        self.assertEqual(names, {"oliviacodes": "olivia", "bob-b": "bob"})
        self.assertEqual(roster_identity.clone_owner("conv-1d-bob-b.git", names), "bob-b")
        self.assertEqual(roster_identity.clone_owner("conv1d-OliviaCodes", names), "oliviacodes")
        self.assertIsNone(roster_identity.clone_owner("conv1d-mallory", names))

    def test_a_roster_without_github_usernames_is_refused_by_name(self):
        self.roster.write_text("student_id,email\nolivia,olivia@uni.edu\n")
        with self.assertRaises(variants.VariantError) as e:
            roster_identity.github_usernames(self.roster)
        self.assertIn("github_username", str(e.exception))


class ClassNames(WithRoster):
    """grade-class --roster: each submission graded as the roster ID its variant is keyed by."""

    def test_emails_and_clone_owners_become_roster_ids_and_strangers_are_named(self):
        subs = [Submission("Olivia@uni.edu", self.dir / "a", "submission_1"),   # Gradescope, email only
                Submission("bob-b", self.dir / "b", "conv1d-bob-b"),            # a Classroom clone
                Submission("carol", self.dir / "c", "conv1d-carol")]            # not on the roster
        named, lines = class_roster.named(subs, self.roster)
        self.assertEqual([(s.student, s.folder) for s in named],
                         [("bob", "conv1d-bob-b"), ("carol", "conv1d-carol"), ("olivia", "submission_1")])
        self.assertEqual(len(lines), 1)
        self.assertIn("carol (folder conv1d-carol) is not on the roster", lines[0])

    def test_a_lone_clone_is_known_by_its_folder_name(self):
        # One clone: find() strips no common prefix, so the student is the folder's whole name.
        named, lines = class_roster.named([Submission("conv1d-OliviaCodes", self.dir / "a", "conv1d-OliviaCodes")],
                                          self.roster)
        self.assertEqual([s.student for s in named], ["olivia"])
        self.assertEqual(lines, [])

    def test_two_folders_of_one_student_keep_apart(self):
        subs = [Submission("olivia", self.dir / "a", "x"), Submission("olivia@uni.edu", self.dir / "b", "y")]
        named, lines = class_roster.named(subs, self.roster)
        self.assertEqual(sorted(s.student for s in named), ["olivia", "olivia@uni.edu"])
        self.assertIn("both 'olivia'", lines[0])


class IntoClones(WithRoster):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)
        cls.section = next(s for s in cls.chapter.sections if any(q.vary for q in cls.chapter.questions(s.id)))

    def setUp(self):
        super().setUp()
        self.generic = answers.answers_template(self.chapter, self.section.id)

    def _clone(self, name, remote, answered=False):
        clone = self.dir / "class" / name
        (clone / "exercises" / self.section.folder).mkdir(parents=True)
        (clone / "exercises" / self.section.folder / "answers.toml").write_text(
            self.generic + ("bobs_answer = 1\n" if answered else ""))
        _git(clone, "init", "-q")
        _git(clone, "remote", "add", "origin", remote)
        _git(clone, "add", "-A")
        _git(clone, "-c", "user.name=T", "-c", "user.email=t@uni.edu", "commit", "-q", "-m", "template")
        return clone

    def test_each_clone_gets_its_owners_variant_committed_and_grades_with_the_secret(self):
        olivia = self._clone("conv1d-OliviaCodes", "https://github.com/course/conv1d-OliviaCodes.git")
        bob = self._clone("renamed-folder", "git@github.com:course/conv1d-bob-b.git", answered=True)
        stray = self._clone("conv1d-mallory", "https://github.com/course/conv1d-mallory.git")
        lines, missed = variants_into_clones.into_clones(self.chapter, [self.section], self.dir / "class",
                                                         self.roster, SECRET)
        self.assertEqual(missed, ["conv1d-mallory"])
        rel = f"exercises/{self.section.folder}/answers.toml"
        for clone, student in ((olivia, "olivia"), (bob, "bob")):
            self.assertEqual(_git(clone, "status", "--porcelain"), "")  # committed, nothing left over
            committed = _git(clone, "show", f"HEAD:{rel}")
            self.assertEqual(answers.file_student(clone / rel, rel), student)
            self.assertEqual(committed, answers.answers_template(self.chapter, self.section.id, student=student,
                                                                 secret=SECRET))
        # The generic file as it came is replaced; one the student wrote in is kept aside, never lost.
        self.assertFalse((olivia / f"{rel}.yours-1").exists())
        self.assertEqual(_git(bob, "show", f"HEAD:{rel}.yours-1"), self.generic + "bobs_answer = 1\n")
        for clone in (olivia, bob):
            self.assertEqual(_git(clone, "log", "-1", "--format=%ae"), hand_back.AUTHOR_EMAIL + "\n")
        self.assertEqual(_git(stray, "log", "--format=%s"), "template\n")
        # Run again (a student added to the roster): a file already the student's, answered, stays.
        answered = (olivia / rel).read_text() + "\n# my working\n"
        (olivia / rel).write_text(answered)
        again, _ = variants_into_clones.into_clones(self.chapter, [self.section], self.dir / "class",
                                                    self.roster, SECRET)
        self.assertEqual((olivia / rel).read_text(), answered)
        self.assertTrue(any("already holds their numbers" in line for line in again))
        self.assertTrue(any("mallory" in line and "github_username" in line for line in lines))

    def test_a_section_folder_planted_as_a_link_is_not_written_through(self):
        outside = self.dir / "outside"
        outside.mkdir()
        clone = self._clone("conv1d-bob-b", "https://github.com/course/conv1d-bob-b")
        folder = clone / "exercises" / self.section.folder
        for f in folder.iterdir():
            f.unlink()
        folder.rmdir()
        os.symlink(outside, folder)
        lines, _ = variants_into_clones.into_clones(self.chapter, [self.section], self.dir / "class",
                                                    self.roster, SECRET)
        self.assertEqual(list(outside.iterdir()), [])
        self.assertTrue(any("a link?" in line for line in lines))


class Notice(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)
        cls.section = next(s for s in cls.chapter.sections if any(q.vary for q in cls.chapter.questions(s.id)))

    def setUp(self):
        self.exercises = scratch_dir("halo-notice-") / "exercises"
        (self.exercises / self.section.folder).mkdir(parents=True)
        self.file = self.exercises / self.section.folder / "answers.toml"

    def test_a_generic_file_in_a_course_is_named_with_how_to_get_ones_own(self):
        self.file.write_text(answers.answers_template(self.chapter, self.section.id))
        lines = variant_notice.notices(self.chapter, [self.section], self.exercises, in_course=True)
        self.assertEqual(len(lines), 1)
        self.assertIn("has no variant: your course gives each student their own numbers", lines[0])
        self.assertIn("git pull", lines[0])
        # Self-study (no course release): the generic file is the right one; nothing to say.
        self.assertEqual(variant_notice.notices(self.chapter, [self.section], self.exercises, in_course=False), [])

    def test_a_file_names_whose_numbers_it_holds(self):
        self.file.write_text(answers.answers_template(self.chapter, self.section.id, student="olivia", secret=SECRET))
        lines = variant_notice.notices(self.chapter, [self.section], self.exercises, in_course=True)
        self.assertEqual(len(lines), 1)
        self.assertIn("holds the numbers of student 'olivia'", lines[0])


class OwnLesson(unittest.TestCase):
    """`./workbook lesson` states the numbers of the student's own answers file."""

    def test_the_lesson_states_the_numbers_the_file_records(self):
        chapter = load_chapter(REPO_ROOT)
        section = chapter.section("7.4")
        question = next(q for q in chapter.questions("7.4") if q.id == "exercise7_blocks")
        # A student whose n differs from the chapter's, so the two lessons cannot agree by chance.
        student = next(f"s{k}" for k in range(100)
                       if variants.params_for(question, f"s{k}", SECRET)["n"] != question.params["n"])
        mine = variants.params_for(question, student, SECRET)["n"]
        exercises = scratch_dir("halo-own-lesson-") / "exercises"
        (exercises / section.folder).mkdir(parents=True)
        (exercises / section.folder / "answers.toml").write_text(
            answers.answers_template(chapter, "7.4", student=student, secret=SECRET))
        questions, whose = own_lesson.own_questions(chapter, section, exercises)
        lesson = render_lesson(chapter, "7.4", questions)
        self.assertIn(f"{student!r}", whose)
        self.assertRegex(lesson.replace(",", ""), rf"an array of `n` = {mine} elements")
        self.assertNotEqual(lesson, render_lesson(chapter, "7.4"))
        # The plain file (no variant): the chapter's numbers, and nothing to say.
        (exercises / section.folder / "answers.toml").write_text(answers.answers_template(chapter, "7.4"))
        self.assertEqual(own_lesson.own_questions(chapter, section, exercises), (None, None))


if __name__ == "__main__":
    unittest.main()
