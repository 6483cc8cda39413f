"""Answers read entry by entry (issue 34, item 3): a TOML syntax error costs the entries it
breaks, names their lines, and every other answer still counts. Each case starts from the
7.2 answer key (every answer right) and breaks one thing in it."""
import shutil
import tempfile
import unittest
from pathlib import Path

from halo.core import answers, toml_entries
from halo.core.chapter_data import load_chapter

from .helpers import REPO_ROOT


class EntryByEntry(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)
        cls.key = answers.answers_template(cls.chapter, "7.2", with_key=True)
        cls.ids = [q.id for q in cls.chapter.questions("7.2")]

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="halo-entries-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def line_of(self, text, qid):
        return next(k for k, line in enumerate(text.splitlines(), 1) if line.startswith(f"{qid} ="))

    def verdicts(self, text):
        path = self.tmp / "answers.toml"
        path.write_text(text)
        return path, {q: answers.check_question(self.chapter, "7.2", q, path) for q in self.ids}

    def break_line(self, qid, new):
        line = next(x for x in self.key.splitlines() if x.startswith(f"{qid} ="))
        return self.key.replace(line, new)

    def test_the_key_itself_is_all_right(self):
        _, v = self.verdicts(self.key)
        self.assertEqual({q: x.status for q, x in v.items()}, {q: "right" for q in self.ids})

    def test_arithmetic_costs_its_answer_only_and_names_its_line(self):
        # The case: a wrong answer among the others must still read as wrong.
        wrong = next(q.id for q in self.chapter.questions("7.2")[1:] if not isinstance(q.expected(), list))
        text = self.break_line(self.ids[0], f"{self.ids[0]} = 337/37")
        text = text.replace(next(x for x in text.splitlines() if x.startswith(f"{wrong} =")), f"{wrong} = 123456")
        path, v = self.verdicts(text)
        self.assertEqual(v[self.ids[0]].status, "invalid")
        self.assertEqual(v[self.ids[0]].cause, answers.UNREADABLE)
        self.assertIn(f"{path}:{self.line_of(text, self.ids[0])}: ", v[self.ids[0]].message)
        self.assertIn("is arithmetic", v[self.ids[0]].message)
        self.assertEqual(v[wrong].status, "wrong")
        self.assertEqual([q for q, x in v.items() if x.status == "right"], [q for q in self.ids[1:] if q != wrong])

    def test_an_unterminated_string_costs_one_answer(self):
        text = self.break_line(self.ids[3], f'{self.ids[3]} = "12')
        path, v = self.verdicts(text)
        self.assertEqual([q for q, x in v.items() if x.status != "right"], [self.ids[3]])
        problems = answers.check_file(self.chapter, "7.2", path)
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith(f"{path}:{self.line_of(text, self.ids[3])}: "), problems)

    def test_an_unclosed_multiline_string_or_array_costs_its_first_line(self):
        for opening in ('"""twelve', "[1, 2,"):
            with self.subTest(opening=opening):
                _, v = self.verdicts(self.break_line(self.ids[-1], f"{self.ids[-1]} = {opening}"))
                self.assertEqual([q for q, x in v.items() if x.status != "right"], [self.ids[-1]])
        # An array left open mid-file ends where the next entry starts.
        _, v = self.verdicts(self.break_line(self.ids[2], f"{self.ids[2]} = [1, 2,"))
        self.assertEqual([q for q, x in v.items() if x.status != "right"], [self.ids[2]])

    def test_a_key_set_twice_counts_for_neither_and_names_both_lines(self):
        text = self.key + f"{self.ids[0]} = 1\n"
        path, v = self.verdicts(text)
        self.assertEqual([q for q, x in v.items() if x.status != "right"], [self.ids[0]])
        self.assertIn(f"first on line {self.line_of(self.key, self.ids[0])}", v[self.ids[0]].message)
        self.assertIn(f"{path}:{len(text.splitlines())}: ", v[self.ids[0]].message)

    def test_a_broken_table_header_costs_that_tables_entries(self):
        text = self.key + "\n[notes\nfirst = 1\nsecond = 2\n"
        values, broken = toml_entries.read(text)
        header = len(self.key.splitlines()) + 2
        self.assertEqual([(b.first, b.key) for b in broken], [(header, None), (header + 1, None), (header + 2, None)])
        self.assertIn(f"table header of line {header}", broken[1].what)
        self.assertNotIn("first", values)
        _, v = self.verdicts(text)
        self.assertEqual({x.status for x in v.values()}, {"right"})

    def test_a_multiline_array_that_closes_is_one_entry(self):
        text = "a = [1,\n  2, # two\n  3]\nb = 'x]'\nc = \"\"\"one\n[not a header]\n\"\"\"\nd = [\n"
        self.assertEqual([(f, last) for f, last, _ in toml_entries.entries(text)], [(1, 3), (4, 4), (5, 7), (8, 8)])
        values, broken = toml_entries.read(text)
        self.assertEqual(values, {"a": [1, 2, 3], "b": "x]", "c": "one\n[not a header]\n"})
        self.assertEqual([(b.first, b.key) for b in broken], [(8, "d")])

    def test_a_broken_answer_is_not_taken_for_missing(self):
        path, v = self.verdicts(self.break_line(self.ids[0], f"{self.ids[0]} = 1 2"))
        self.assertNotIn("add a line", v[self.ids[0]].message)
        self.assertIn("could not be read", v[self.ids[0]].message)


if __name__ == "__main__":
    unittest.main()
