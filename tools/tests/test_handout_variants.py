"""Per-student handouts: each student's numbers in their handout, their answers files beside it,
and the grader accepting their right answers and no one else's."""
import os
import shutil
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from halo.core import answers, variants
from halo.course import handout
from halo.core.chapter_data import load_chapter
from tests.helpers import REPO_ROOT

SECRET = "test-course-secret"


class VariantHandouts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)
        cls.out = Path(tempfile.mkdtemp(prefix="halo-handouts-"))
        with mock.patch("builtins.print"):
            code = handout.run_variants(REPO_ROOT, cls.chapter, ["7.1"], "student", ["md"], cls.out,
                                        ["alice", "bob"], SECRET, names={"alice": "Alice Liddell"})
        assert code == 0

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.out, ignore_errors=True)

    def test_each_student_gets_their_own_numbers(self):
        alice = (self.out / "student" / "alice" / "7.1-background.md").read_text()
        bob = (self.out / "student" / "bob" / "7.1-background.md").read_text()
        self.assertNotEqual(alice, bob)
        for q in self.chapter.questions("7.1"):
            if q.vary:
                self.assertIn(variants.variant_question(q, "alice", SECRET).text(), alice)

    def test_each_handout_names_its_student_on_every_page(self):
        alice = (self.out / "student" / "alice" / "7.1-background.md").read_text()
        self.assertTrue(alice.startswith("**For Alice Liddell (alice)**"), alice[:80])
        bob = (self.out / "student" / "bob" / "7.1-background.md").read_text()
        self.assertTrue(bob.startswith("**For bob**"), bob[:80])  # no name in the roster: the ID
        html = handout.to_html(alice, "7.1", "student", handout.student_line("alice", "Alice </style> Liddell"))
        # A running header repeats it on every printed page; a name cannot close the stylesheet.
        self.assertIn('@page { @top-left { content: "For " "Alice \\3c \\2f style\\3e  Liddell (alice)"; } }', html)
        self.assertEqual(html.count("</style>"), 1)

    def test_a_handout_carries_its_lesson_figures(self):
        import base64
        import re
        # 7.2's lesson has the site's tile figure (7.1's has none).
        alice = handout.render_markdown(self.chapter, ["7.2"], "student", student="alice")
        uris = re.findall(r"!\[Figure \d+\]\(data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)\)", alice)
        self.assertTrue(uris, "no figure in the 7.2 handout")
        self.assertTrue(base64.b64decode(uris[0]).startswith(b"<svg"))
        html = handout.to_html(alice, "7.2", "student")
        self.assertIn('<img alt="Figure 1" src="data:image/svg+xml;base64,', html)

    def test_roster_names(self):
        roster = self.out / "roster.csv"
        roster.write_text("student_id,first name,last name\nalice,Alice,Liddell\nbob,,\n")
        self.assertEqual(handout.roster_names(roster), {"alice": "Alice Liddell"})

    def test_answers_files_record_the_variant_and_grade_it(self):
        path = self.out / "student" / "alice" / "7.1-background" / "answers.toml"
        self.assertIn('variant.student = "alice"', path.read_text())
        varied = [q for q in self.chapter.questions("7.1") if q.vary]
        self.assertTrue(varied)
        # Fill in alice's right answers, then bob's: only hers pass on her file.
        for student, want in (("alice", answers.RIGHT), ("bob", answers.WRONG)):
            text = path.read_text()
            for q in varied:
                value = variants.variant_question(q, student, SECRET).expected()
                text = text.replace(f'{q.id} = ""', f"{q.id} = {answers._toml_value(value)}")
            filled = self.out / f"filled-{student}.toml"
            filled.write_text(text)
            with mock.patch.dict(os.environ, {"HALO_COURSE_SECRET": SECRET}):
                verdicts = [answers.check_question(self.chapter, "7.1", q.id, filled, secret=SECRET) for q in varied]
            if want == answers.RIGHT:
                self.assertTrue(all(v.status == want for v in verdicts), [v.message for v in verdicts])
            else:  # another student's numbers: at least one question differs, and it is wrong
                self.assertIn(want, [v.status for v in verdicts])


if __name__ == "__main__":
    unittest.main()
