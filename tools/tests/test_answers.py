"""The answers file: template round trip, and a verdict with a line for each kind of mistake."""
import tempfile
import unittest
from pathlib import Path

from halo.core.answers import (AnswersError, answers_template, check_file, check_question,
                          parse_answers)
from halo.core.chapter_data import load_chapter
from tests.helpers import REPO_ROOT, make_chapter


class Answers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)
        cls.ids = [q.id for q in cls.chapter.questions("7.2")]

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def write(self, text: str) -> Path:
        path = Path(self.tmp.name) / "answers.toml"
        path.write_text(text)
        return path

    def blank(self) -> str:
        return answers_template(self.chapter, "7.2", with_key=False)

    def line_of(self, text: str, start: str) -> int:
        return next(k for k, line in enumerate(text.splitlines(), 1) if line.startswith(start))

    def verdict(self, qid: str, text: str):
        return check_question(self.chapter, "7.2", qid, self.write(text))

    # ------------------------------------------------------------ the template

    def test_template_layout(self):
        text = self.blank()
        self.assertTrue(text.startswith("# Answers for section 7.2: 1D convolution: the basic kernel\n"))
        self.assertIn("# Grade with: ./workbook grade 7.2\n", text)
        self.assertIn('\n# Exercise 4a\n# A 1D array of n = 1000 elements', text)
        self.assertIn('\nexercise4_ghost_cells = ""\n', text)
        self.assertTrue(all(len(line) <= 96 for line in text.splitlines()))

    def test_key_passes_every_question(self):
        key = answers_template(self.chapter, "7.2", with_key=True)
        self.assertIn("\nexercise2_p = [8, 21, 13, 20, 7]\n", key)
        self.assertIn("\nloads_total = 5242874\n", key)
        path = self.write(key)
        for qid in self.ids:
            with self.subTest(qid=qid):
                self.assertEqual(check_question(self.chapter, "7.2", qid, path).status, "right")
        self.assertEqual(check_file(self.chapter, "7.2", path), [])

    def test_blank_answers_nothing(self):
        text = self.blank()
        path = self.write(text)
        for qid in self.ids:
            with self.subTest(qid=qid):
                v = check_question(self.chapter, "7.2", qid, path)
                self.assertEqual(v.status, "not answered")
                self.assertIn(f"answers.toml:{self.line_of(text, qid + ' =')}:", v.message)

    def test_missing_key_is_not_answered(self):
        v = self.verdict("loads_total", "exercise1_p0 = 22\n")
        self.assertEqual(v.status, "not answered")
        self.assertIn("loads_total", v.message)

    def test_non_integral_key_round_trips(self):
        root = make_chapter('[[questions]]\nid = "third"\ntitle = "t"\ntext = "x"\nanswer = "1 / 3"\n')
        chapter = load_chapter(root)
        key = answers_template(chapter, "1.0", with_key=True)
        self.assertEqual(check_question(chapter, "1.0", "third", self.write(key)).status, "right")

    # ------------------------------------------------------------ mistakes

    def test_malformed_toml_reports_its_line(self):
        text = self.blank().replace('loads_first_block = ""', "loads_first_block = 1277 1278")
        bad_line = self.line_of(text, "loads_first_block")
        path = self.write(text)
        problems = check_file(self.chapter, "7.2", path)
        self.assertEqual(len(problems), 1, problems)
        self.assertTrue(problems[0].startswith(f"{path}:{bad_line}: "), problems[0])
        self.assertNotIn("(at line", problems[0])
        broken = check_question(self.chapter, "7.2", "loads_first_block", path)
        self.assertEqual((broken.status, broken.cause), ("invalid", "unreadable"))
        self.assertTrue(broken.message.startswith(f"{path}:{bad_line}: loads_first_block could not be read"))
        # The line costs its own entry only: another question reads as the blank it is.
        self.assertEqual(check_question(self.chapter, "7.2", "exercise1_p0", path).status, "not answered")

    def test_a_fraction_gets_the_decimal_to_write(self):
        text = self.blank().replace('loads_first_block = ""', "loads_first_block = 1408/138")
        path = self.write(text)
        self.assertEqual(check_file(self.chapter, "7.2", path),
                         [f"{path}:{self.line_of(text, 'loads_first_block')}: loads_first_block = "
                          "1408/138 is arithmetic, and an answers file holds numbers: write the decimal value, e.g. "
                          "loads_first_block = 10.20; loads_first_block was not read, and the file's other answers "
                          "still count"])
        # Not every syntax error is arithmetic: two numbers side by side keep the parser's words.
        path = self.write(self.blank().replace('loads_first_block = ""', "loads_first_block = 1277 1278"))
        self.assertNotIn("arithmetic", check_file(self.chapter, "7.2", path)[0])

    def test_the_books_misprint_is_named(self):
        from halo.core.answers import answers_template as template
        key = template(self.chapter, "7.4", with_key=True)
        book = self.chapter.examples["book_reduction_ratios"].fields["blockDim_128"]
        line = next(x for x in key.splitlines() if x.startswith("ratio_internal_b128 ="))
        path = self.write(key.replace(line, f"ratio_internal_b128 = {book}"))
        v = check_question(self.chapter, "7.4", "ratio_internal_b128", path)
        self.assertEqual(v.status, "wrong")
        self.assertIn("is the book's misprint, not the right value; see the errata of section 7.4", v.message)
        path = self.write(key.replace(line, "ratio_internal_b128 = 9.99"))
        self.assertIn("which is not right", check_question(self.chapter, "7.4", "ratio_internal_b128", path).message)

    def test_string_answer_is_invalid_with_its_line(self):
        text = self.blank().replace('exercise4_ghost_cells = ""', 'exercise4_ghost_cells = "8"')
        v = self.verdict("exercise4_ghost_cells", text)
        self.assertEqual(v.status, "invalid")
        line = self.line_of(text, "exercise4_ghost_cells")
        self.assertTrue(v.message.endswith(
            f'answers.toml:{line}: exercise4_ghost_cells is the string "8"; write the number '
            "without quotes: exercise4_ghost_cells = 8"), v.message)

    def test_wrong_shapes_are_invalid(self):
        cases = [
            ("exercise1_p0", "exercise1_p0 = true", "boolean"),
            ("exercise1_p0", "exercise1_p0 = [22]", "a list"),
            ("exercise1_p0", "[exercise1_p0]\nx = 1", "a table"),
            ("exercise1_p0", 'exercise1_p0 = "twenty-two"', "a number"),
            ("exercise2_p", "exercise2_p = 8", "a list of 5 numbers"),
            ("exercise2_p", "exercise2_p = [8, 21, 13]", "a list of 5 numbers"),
            ("exercise2_p", 'exercise2_p = [8, 21, "13", 20, 7]', "element 2"),
            ("exercise2_p", 'exercise2_p = "[8, 21, 13, 20, 7]"', "without quotes"),
        ]
        for qid, text, word in cases:
            with self.subTest(text=text):
                v = self.verdict(qid, "# answers\n" + text + "\n")
                self.assertEqual(v.status, "invalid")
                self.assertIn(word, v.message)
                self.assertIn("answers.toml:2:", v.message)

    def test_wrong_value_does_not_reveal_the_answer(self):
        text = self.blank().replace('loads_total = ""', "loads_total = 5242880")
        v = self.verdict("loads_total", text)
        self.assertEqual(v.status, "wrong")
        self.assertIn(f":{self.line_of(text, 'loads_total')}: loads_total = 5242880, which is not right",
                      v.message)
        self.assertNotIn("5242874", v.message)
        v = self.verdict("exercise2_p", "exercise2_p = [8, 21, 13, 20, 8]\n")
        self.assertEqual(v.status, "wrong")
        self.assertNotIn("7]", v.message)

    def test_wrong_value_names_its_inputs_and_the_hint(self):
        # The first hour: "which is not right" alone leaves a student nowhere to go.
        text = self.blank().replace('exercise4_multiplications_with_ghosts = ""',
                                    "exercise4_multiplications_with_ghosts = 7")
        v = self.verdict("exercise4_multiplications_with_ghosts", text)
        self.assertEqual(v.status, "wrong")
        self.assertTrue(v.message.endswith("exercise4_multiplications_with_ghosts = 7, which is not right, computed "
                                           "from n = 1000, m = 9; stuck? ./workbook hint 7.2"), v.message)
        # Only what the formula reads: the ghost cells do not depend on n.
        v = self.verdict("exercise4_ghost_cells", "exercise4_ghost_cells = 3\n")
        self.assertIn("computed from m = 9;", v.message)

    def test_wrong_value_keeps_an_input_that_is_the_answer_unsaid(self):
        key = answers_template(self.chapter, "7.4", with_key=True)
        line = next(x for x in key.splitlines() if x.startswith("exercise7_threads_per_block ="))
        v = check_question(self.chapter, "7.4", "exercise7_threads_per_block",
                           self.write(key.replace(line, "exercise7_threads_per_block = 255")))
        self.assertEqual(v.status, "wrong")
        self.assertIn("computed from t (their values are in the question); stuck? ./workbook hint 7.4", v.message)
        self.assertNotIn("256", v.message)

    def test_right_value_as_float(self):
        self.assertEqual(self.verdict("exercise1_p0", "exercise1_p0 = 22.0\n").status, "right")
        self.assertEqual(self.verdict("exercise1_p0", "exercise1_p0 = 22.5\n").status, "wrong")

    def test_tolerance_is_absolute(self):
        root = make_chapter('[[questions]]\nid = "q"\ntitle = "t"\ntext = "x"\n'
                            'answer = "[1 / 3, 2]"\ntolerance = 0.01\n')
        chapter = load_chapter(root)
        for given, status in [("[0.33, 2]", "right"), ("[0.34, 2.009]", "right"),
                              ("[0.3, 2]", "wrong"), ("[0.333, 2.02]", "wrong")]:
            with self.subTest(given=given):
                path = self.write(f"q = {given}\n")
                self.assertEqual(check_question(chapter, "1.0", "q", path).status, status)

    def test_unknown_key_reported_with_its_line(self):
        text = self.blank() + "\nexercise_p0 = 22\n"
        problems = check_file(self.chapter, "7.2", self.write(text))
        self.assertEqual(len(problems), 1)
        self.assertIn(f"answers.toml:{self.line_of(text, 'exercise_p0')}: unknown question "
                      "'exercise_p0'", problems[0])
        self.assertIn("exercise1_p0, exercise2_p", problems[0])

    def test_parse_lines(self):
        parsed = parse_answers(self.write('# c\n\n  a = 1\n"b" = [1,\n 2]\n'))
        self.assertEqual(parsed.values, {"a": 1, "b": [1, 2]})
        self.assertEqual(parsed.lines, {"a": 3, "b": 4})


if __name__ == "__main__":
    unittest.main()


class ParsedOnce(unittest.TestCase):
    """A grade checks each question on its own: the file's bytes are parsed once, and each caller
    gets a copy of its own (one that changes its copy changes nobody else's)."""

    def test_one_parse_and_separate_copies(self):
        from unittest import mock
        from halo.core import answers
        data = b'q1 = 3\nq2 = [1, 2]\n'
        with mock.patch.object(answers, "loads_toml", wraps=answers.loads_toml) as parse:
            first = answers.parse_answers_bytes(data, "x/answers.toml")
            second = answers.parse_answers_bytes(data, "x/answers.toml")
            first.values["q2"].append(99)
            third = answers.parse_answers_bytes(data, "x/answers.toml")
            answers.parse_answers_bytes(data + b"q3 = 1\n", "x/answers.toml")
        self.assertEqual(parse.call_count, 2)  # the changed file is parsed again
        self.assertEqual(second.values, {"q1": 3, "q2": [1, 2]})
        self.assertEqual(third.values, {"q1": 3, "q2": [1, 2]})
        self.assertEqual(third.lines, {"q1": 1, "q2": 2})
