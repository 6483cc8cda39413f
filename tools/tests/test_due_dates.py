"""Due dates, late policies and extensions of course.toml (core/due_dates.py): validation that
names the key, and the commit of a real git clone that is graded under each policy (committer
dates set explicitly, so that nothing depends on the clock)."""
import subprocess
import unittest
from datetime import datetime, timedelta, timezone
from fractions import Fraction

from halo.core import due_dates
from halo.core.due_dates import DueDateError

from .helpers import scratch_dir

WHERE = "course.toml: [assignments.conv1d]"


def _commit(clone, name, text, when):
    (clone / name).write_text(text)
    subprocess.run(["git", "-C", str(clone), "add", "-A"], check=True, capture_output=True)
    env = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when, "PATH": "/usr/bin:/bin",
           "GIT_AUTHOR_NAME": "Ann", "GIT_AUTHOR_EMAIL": "ann@uni.edu",
           "GIT_COMMITTER_NAME": "Ann", "GIT_COMMITTER_EMAIL": "ann@uni.edu", "HOME": str(clone)}
    subprocess.run(["git", "-C", str(clone), "commit", "-q", "-m", name], check=True, capture_output=True, env=env)
    return subprocess.run(["git", "-C", str(clone), "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()


class Parsing(unittest.TestCase):
    def test_a_due_date_with_the_course_timezone(self):
        d = due_dates.parse({"due": "2026-12-04 23:59"}, "Europe/Berlin", WHERE)
        self.assertEqual(d.due, datetime(2026, 12, 4, 22, 59, tzinfo=timezone.utc))
        self.assertEqual(d.policy, "cutoff")

    def test_an_offset_needs_no_timezone_and_a_toml_datetime_is_taken(self):
        d = due_dates.parse({"due": "2026-12-04T23:59:00+01:00"}, None, WHERE)
        self.assertEqual(d.due, datetime(2026, 12, 4, 22, 59, tzinfo=timezone.utc))
        aware = datetime(2026, 12, 4, 23, 59, tzinfo=timezone.utc)
        self.assertEqual(due_dates.parse({"due": aware}, None, WHERE).due, aware)

    def test_no_due_date_no_deadline(self):
        self.assertIsNone(due_dates.parse({}, None, WHERE))

    def test_extensions_as_a_date_or_extra_days(self):
        d = due_dates.parse({"due": "2026-12-04 23:59", "extensions": {"erin": "2026-12-06 12:00", "frank": 2}},
                            "UTC", WHERE)
        self.assertEqual(d.due_for("erin"), datetime(2026, 12, 6, 12, 0, tzinfo=timezone.utc))
        self.assertEqual(d.due_for("frank"), d.due + timedelta(days=2))
        self.assertEqual(d.due_for("ann"), d.due)

    def test_bad_input_names_the_key(self):
        cases = [
            ({"due": "2026-12-04 23:59"}, None, "due: 2026-12-04 23:59 names no time zone"),
            ({"due": "2026-12-04"}, "UTC", "due: '2026-12-04' is not a date and time"),
            ({"due": "next friday"}, "UTC", "due: 'next friday' is not a date and time"),
            ({"due": "2026-12-04 23:59"}, "Mars/Olympus", "timezone 'Mars/Olympus' is not a known time zone"),
            ({"due": "2026-12-04 23:59", "late": {"policy": "eventually"}}, "UTC", "late.policy should be one of"),
            ({"due": "2026-12-04 23:59", "late": {"policy": "penalty"}}, "UTC", "needs per_day"),
            ({"due": "2026-12-04 23:59", "late": {"policy": "penalty", "per_day": "ten"}}, "UTC",
             "late.per_day: 'ten' should be points"),
            ({"due": "2026-12-04 23:59", "late": {"policy": "penalty", "per_day": "120%"}}, "UTC",
             "late.per_day: '120%' should be between 0 and 100%"),
            ({"due": "2026-12-04 23:59", "late": {"per_day": 1}}, "UTC", "late.per_day has no effect under"),
            ({"due": "2026-12-04 23:59", "late": {"colour": 1}}, "UTC", "late: unknown key(s) colour"),
            ({"due": "2026-12-04 23:59", "extensions": {"erin": 0}}, "UTC", "extensions.erin: extra days"),
            ({"due": "2026-12-04 23:59", "extensions": {"erin": "soon"}}, "UTC", "extensions.erin: 'soon'"),
            ({"late": {"policy": "penalty"}}, "UTC", "late needs a due date"),
        ]
        for raw, zone, words in cases:
            with self.subTest(raw=raw):
                with self.assertRaises(DueDateError) as e:
                    due_dates.parse(raw, zone, WHERE)
                self.assertIn(words, str(e.exception))
                self.assertTrue(str(e.exception).startswith("course.toml"), str(e.exception))


class Penalty(unittest.TestCase):
    def setUp(self):
        self.d = due_dates.parse({"due": "2026-12-04 23:59", "late": {
            "policy": "penalty", "per_day": "10%", "cap": 7, "grace_minutes": 15}}, "UTC", WHERE)

    def test_days_count_parts_of_a_day_after_the_grace(self):
        self.assertEqual(self.d.days_late("ann", self.d.due + timedelta(minutes=15)), 0)
        self.assertEqual(self.d.days_late("ann", self.d.due + timedelta(minutes=16)), 1)
        self.assertEqual(self.d.days_late("ann", self.d.due + timedelta(days=1, minutes=15)), 1)
        self.assertEqual(self.d.days_late("ann", self.d.due + timedelta(days=1, minutes=16)), 2)

    def test_percent_of_the_points_capped(self):
        self.assertEqual(self.d.penalty("ann", self.d.due + timedelta(hours=3), 25), Fraction(5, 2))
        self.assertEqual(self.d.penalty("ann", self.d.due + timedelta(days=2), 25), Fraction(5))
        self.assertEqual(self.d.penalty("ann", self.d.due + timedelta(days=5), 25), Fraction(7))


class PickingTheCommit(unittest.TestCase):
    def setUp(self):
        self.clone = scratch_dir("halo-due-") / "conv1d-ann"
        self.clone.mkdir()
        subprocess.run(["git", "-C", str(self.clone), "init", "-q"], check=True)
        self.early = _commit(self.clone, "a.cu", "first\n", "2026-12-03T10:00:00+00:00")
        self.ontime = _commit(self.clone, "a.cu", "on time\n", "2026-12-04T23:00:00+00:00")
        self.late = _commit(self.clone, "a.cu", "late\n", "2026-12-06T09:00:00+00:00")

    def _deadline(self, **extra):
        return due_dates.parse({"due": "2026-12-04T23:59:00+00:00", **extra}, None, WHERE)

    def test_cutoff_grades_the_last_commit_before_the_due_date(self):
        p = due_dates.pick(self.clone, self._deadline(), "ann")
        self.assertEqual((p.commit, p.later, p.days_late), (self.ontime, 1, 0))
        self.assertIn("1 later commit(s) not graded", p.note)

    def test_an_extension_moves_the_cutoff(self):
        p = due_dates.pick(self.clone, self._deadline(extensions={"ann": 2}), "ann")
        self.assertEqual((p.commit, p.later), (self.late, 0))

    def test_penalty_grades_the_latest_commit_and_counts_the_days(self):
        p = due_dates.pick(self.clone, self._deadline(late={"policy": "penalty", "per_day": 1}), "ann")
        self.assertEqual((p.commit, p.days_late), (self.late, 2))
        self.assertIn("late", p.note)

    def test_no_commit_before_the_due_date(self):
        d = due_dates.parse({"due": "2026-12-01T00:00:00+00:00"}, None, WHERE)
        p = due_dates.pick(self.clone, d, "ann")
        self.assertIsNone(p.commit)
        self.assertIn("no commit before the due date", p.note)

    def test_the_graded_source_is_the_picked_commits_files_and_a_note(self):
        home = self.clone.parent / "home"
        source, note = due_dates.graded_source(self._deadline(), self.clone, "ann", home)
        self.assertEqual((source / "a.cu").read_text(), "on time\n")
        self.assertEqual((self.clone / "a.cu").read_text(), "late\n")  # the clone itself is untouched
        self.assertIn(self.ontime[:10], note)
        self.assertIn('"days_late": 0', (home / "due.json").read_text())

    def test_a_clone_with_no_commit_has_nothing_graded(self):
        empty = self.clone.parent / "conv1d-bob"
        subprocess.run(["git", "init", "-q", str(empty)], check=True)
        for policy in ({}, {"late": {"policy": "penalty", "per_day": 1}}):
            p = due_dates.pick(empty, self._deadline(**policy), "bob")
            self.assertIsNone(p.commit)
            self.assertIn("no commit before the due date", p.note)

    def test_a_folder_that_is_no_clone_is_graded_as_it_is(self):
        plain = self.clone.parent / "plain"
        plain.mkdir()
        self.assertEqual(due_dates.graded_source(self._deadline(), plain, "bob", plain.parent / "h"), (plain, None))

    def test_a_link_in_the_commit_is_not_written(self):
        (self.clone / "link.cu").symlink_to("/etc/passwd")
        _commit(self.clone, "b.cu", "b\n", "2026-12-04T23:10:00+00:00")
        source, _ = due_dates.graded_source(self._deadline(), self.clone, "ann", self.clone.parent / "home2")
        self.assertFalse((source / "link.cu").exists())
        self.assertEqual((source / "b.cu").read_text(), "b\n")


if __name__ == "__main__":
    unittest.main()


class InTheCourseFile(unittest.TestCase):
    """course.toml's due date, late policy and extensions as assignment.load reads them."""

    def _load(self, text):
        from halo.core.chapter_data import load_chapter
        from halo.core import assignment
        from .helpers import REPO_ROOT
        root = scratch_dir("halo-course-")
        (root / "course.toml").write_text(text)
        return assignment.load(load_chapter(REPO_ROOT), root)

    def test_the_deadline_of_an_assignment(self):
        a = self._load('timezone = "UTC"\n[assignments.conv1d]\nsections = ["7.2"]\ndue = "2026-12-04 23:59"\n'
                       'late = { policy = "penalty", per_day = 1 }\nextensions = { erin = 2 }\n')
        self.assertEqual(a.deadline.policy, "penalty")
        self.assertEqual(a.deadline.due_for("erin") - a.deadline.due, timedelta(days=2))
        self.assertEqual(a.due, "2026-12-04 23:59")  # what students are shown, as written

    def test_a_due_date_without_a_zone_is_still_shown_but_not_graded_by(self):
        a = self._load('[assignments.conv1d]\nsections = ["7.2"]\ndue = "2026-12-04 23:59"\n')
        self.assertIsNone(a.deadline)
        self.assertIn("names no time zone", a.deadline_problem)

    def test_a_bad_late_policy_stops_the_load_naming_the_assignment(self):
        from halo.core.assignment import AssignmentError
        with self.assertRaises(AssignmentError) as e:
            self._load('[assignments.conv1d]\nsections = ["7.2"]\ndue = "2026-12-04T23:59:00Z"\n'
                       'late = { policy = "penalty", per_day = "lots" }\n')
        self.assertIn("[assignments.conv1d]: late.per_day: 'lots'", str(e.exception))
