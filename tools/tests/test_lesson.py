"""Lessons: every real lesson renders, names its numbers instead of typing them, keeps the
answers to itself; a placeholder that names nothing fails with the file and the line."""
import re
import shutil
import tempfile
from pathlib import Path
import unittest

from halo.core import expressions as ex
from halo.core.chapter_data import load_chapter
from halo.core import lesson
from halo.core.lesson import LessonError, lesson_context, render_lesson, render_text
from tests.helpers import REPO_ROOT, make_chapter

try:
    import jinja2
except ImportError:  # the tools run without it; only the compatibility test needs it
    jinja2 = None

# Questions whose answers the student must find: a lesson may explain them, never print them.
SECRET = re.compile(r"exercise\d|loads_")

SMALL_SECTION = """
[formulas.twice]
params = ["x"]
expr = "2 * x"

[examples.small]
N = [1, 2, 3]
M = [1, 0, 2]
P_known = [[0, 4]]

[measurements.launch]
Width = 4096
blockDim = 128

[[questions]]
id = "q_width"
title = "Twice the width"
measurement = "launch"
params = { k = 3 }
text = "Width = {Width}: what is twice that?"
answer = "twice(Width)"

[[questions]]
id = "q_list"
title = "The small example"
example = "small"
text = "Convolve N = {N} with M = {M}."
answer = "conv1d(N, M)"
"""


def standalone(number: str) -> re.Pattern:
    """`number` not inside a longer number (1277 is not found in 12770, 1.277 or 5,1277)."""
    return re.compile(r"(?<![\d.,])" + re.escape(number) + r"(?![\d]|[.,]\d)")


def grouped(number: str) -> str:
    """5242874 -> 5,242,874: how a person typing the number might write it."""
    return f"{int(number):,}" if re.fullmatch(r"-?\d+", number) else number


def leaks(text: str, value) -> list:
    """The ways `value` (a number or a list) is printed in `text`."""
    if isinstance(value, list):
        shown = ex.format_value(value)
        return [shown] if shown in text else []
    shown = ex.format_number(value)
    return [form for form in {shown, grouped(shown)} if standalone(form).search(text)]


class RealLessons(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)
        cls.source = (REPO_ROOT / "chapters" / "7.2-basic-1d" / "lesson.md").read_text(encoding="utf-8")
        cls.text = render_lesson(cls.chapter, "7.2")

    def test_every_lesson_renders(self):
        rendered = []
        for s in self.chapter.sections:
            if not (REPO_ROOT / "chapters" / s.folder / "lesson.md").is_file():
                continue
            with self.subTest(section=s.id):
                text = render_lesson(self.chapter, s.id)
                for markup in ("{{", "}}", "{%", "{#"):
                    self.assertNotIn(markup, text)
                rendered.append(s.id)
        self.assertIn("7.2", rendered)

    def test_measurement_width_comes_from_the_data(self):
        width = ex.format_value(self.chapter.measurements["basic_1d_large"].fields["Width"])
        self.assertRegex(self.text, standalone(width))
        # Typed into the source it would go stale when questions.toml changes.
        self.assertEqual(leaks(self.source, float(width)), [],
                         "lesson.md types the measurement's Width; write {{ measurement.basic_1d_large.Width }}")

    def test_answers_are_not_printed(self):
        checked = []
        for q in self.chapter.questions("7.2"):
            if not SECRET.match(q.id):
                continue
            value = q.expected()
            if not isinstance(value, list) and abs(value) < 10:
                continue  # one digit also appears in text such as "4-byte floats"
            with self.subTest(question=q.id):
                self.assertEqual(leaks(self.text, value), [], f"the lesson prints the answer to {q.id}")
            checked.append(q.id)
        for must in ("exercise4_multiplications_with_ghosts", "exercise4_multiplications_without_ghosts",
                     "exercise5_multiplications_with_ghosts", "exercise5_multiplications_without_ghosts",
                     "loads_internal_block", "loads_first_block", "loads_total"):
            self.assertIn(must, checked)
        placeholder = re.search(r"\{\{\s*key\.(exercise\d|loads_)\w*\s*\}\}", self.source)
        self.assertIsNone(placeholder, "lesson.md prints an answer the student must find")

    def test_a_leak_would_be_caught(self):
        # The checks above must be able to fail: a lesson that prints the key is caught.
        context = lesson_context(self.chapter, "7.2")
        leaked = render_text("Total: {{ key.loads_total }} loads; P = {{ key.exercise2_p }}.\n",
                             context, "leak.md")
        key = {q.id: q.expected() for q in self.chapter.questions("7.2")}
        self.assertNotEqual(leaks(leaked, key["loads_total"]), [])
        self.assertNotEqual(leaks(leaked, key["exercise2_p"]), [])
        self.assertNotEqual(leaks(f"about {int(key['loads_total']):,} loads", key["loads_total"]), [])
        self.assertEqual(leaks(f"{int(key['loads_total'])}0 loads", key["loads_total"]), [])

    def test_same_text_as_jinja2(self):
        if jinja2 is None:
            self.skipTest("jinja2 is not installed")
        env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                                 autoescape=False)
        theirs = env.from_string(self.source).render(**lesson_context(self.chapter, "7.2"))
        self.assertEqual(theirs, self.text)

    def test_the_7_9_lesson_renders_without_docs_results(self):
        # As in a student release: chapters/ without docs/results/ beside it.
        root = Path(tempfile.mkdtemp(prefix="halo-lesson-"))
        self.addCleanup(shutil.rmtree, root, True)
        shutil.copytree(REPO_ROOT / "chapters", root / "chapters")
        text = render_lesson(load_chapter(root), "7.9")
        self.assertEqual(text.count(lesson.RESULTS_WITHHELD), 2)
        self.assertNotIn(lesson.RESULTS_WITHHELD, render_lesson(self.chapter, "7.9"))

    def test_unknown_section(self):
        with self.assertRaises(LessonError) as ctx:
            render_lesson(self.chapter, "9.9")
        self.assertIn("7.2", str(ctx.exception))


class SmallChapter(unittest.TestCase):
    def setUp(self):
        self.root = make_chapter(SMALL_SECTION)
        self.addCleanup(shutil.rmtree, self.root, True)
        self.chapter = load_chapter(self.root)

    def write_lesson(self, text: str) -> None:
        (self.root / "chapters" / "s1" / "lesson.md").write_text(text, encoding="utf-8")

    def error(self, text: str) -> str:
        self.write_lesson(text)
        with self.assertRaises(LessonError) as ctx:
            render_lesson(self.chapter, "1.0")
        return str(ctx.exception)

    def test_every_kind_of_placeholder(self):
        self.write_lesson("Key {{key.q_width}}, {{ key.q_list }}.\n"
                          "Params {{  param.q_width.k  }} {{\tparam.q_width.Width }} {{ param.q_list.M }}\n"
                          "Launch {{ measurement.launch.Width }} x {{ measurement.launch.blockDim }}\n"
                          "Example {{ example.small.N }} {{ example.small.P_known }}\n"
                          "Formula `{{ formula.twice }}`\n")
        self.assertEqual(render_lesson(self.chapter, "1.0"),
                         "Key 8192, [4, 7, 2].\n"
                         "Params 3 4096 [1, 0, 2]\n"
                         "Launch 4096 x 128\n"
                         "Example [1, 2, 3] [[0, 4]]\n"
                         "Formula `2 * x`\n")

    def test_results_pages_are_quoted_without_title_or_generator_comment(self):
        results = self.root / "docs" / "results"
        results.mkdir(parents=True)
        (results / "gpu-x-h100.md").write_text("<!-- generated -->\n# Title\n\n| a |\n|---|\n| 0.19 |\n")
        self.write_lesson("Measured:\n{{ results.gpu_x_h100 }}\n")
        self.assertEqual(render_lesson(self.chapter, "1.0"), "Measured:\n| a |\n|---|\n| 0.19 |\n")
        self.assertIn("results.gpu_x_h100", self.error("{{ results.gpu_y }}"))

    def test_unknown_placeholder_names_the_line(self):
        message = self.error("# A lesson\n\nWidth {{ measurement.launch.Width }} is fine.\n"
                             "But {{ key.nope }} is not.\n")
        self.assertTrue(message.startswith("chapters/s1/lesson.md:4: unknown placeholder {{ key.nope }}"),
                        message)
        self.assertIn("key.q_width", message)

    def test_other_unknown_placeholders(self):
        cases = {
            "{{ keys.q_width }}": "placeholders start with key., param., measurement., example., formula.",
            "{{ measurement.launch.Height }}": "measurement.launch.Width",
            "{{ measurement.launch }}": "it names a table",
            "{{ key.q_width.more }}": "key.q_width is a value",
            "{{ formula.thrice }}": "formula.twice",
        }
        for placeholder, hint in cases.items():
            with self.subTest(placeholder=placeholder):
                message = self.error(f"line one\n{placeholder}\n")
                self.assertTrue(message.startswith(f"chapters/s1/lesson.md:2: unknown placeholder {placeholder}"),
                                message)
                self.assertIn(hint, message)

    def test_syntax_outside_the_subset(self):
        for markup in ("{% if x %}shown{% endif %}", "{# a comment #}", "{{ key.q_width | int }}",
                       "{{ key['q_width'] }}", "{{ key.q_width"):
            with self.subTest(markup=markup):
                message = self.error(f"text\n\nmore {markup}\n")
                self.assertTrue(message.startswith("chapters/s1/lesson.md:3: unsupported template syntax"),
                                message)

    def test_plain_braces_pass_through(self):
        self.write_lesson("A C++ block { int x; } and a set {1, 2} stay; so does }} alone.\n")
        self.assertEqual(render_lesson(self.chapter, "1.0"),
                         "A C++ block { int x; } and a set {1, 2} stay; so does }} alone.\n")

    def test_missing_lesson(self):
        with self.assertRaises(LessonError) as ctx:
            render_lesson(self.chapter, "1.0")
        self.assertEqual(str(ctx.exception), "chapters/s1/lesson.md: no such file: section 1.0 has no lesson yet")

    def test_results_render_a_pointer_where_docs_results_is_left_out(self):
        # A student release has no docs/results/: the lesson still renders, saying where the numbers are.
        self.write_lesson("Measured:\n\n{{ results.gpu_7_9_steps_h100 }}\n")
        self.assertIn(lesson.RESULTS_WITHHELD, render_lesson(self.chapter, "1.0"))
        # Where the folder is there, a page it lacks is still an error, not the pointer.
        (self.root / "docs" / "results").mkdir(parents=True)
        (self.root / "docs" / "results" / "other.md").write_text("# Other\n\n1 ms\n")
        self.assertIn("unknown placeholder", self.error("{{ results.gpu_7_9_steps_h100 }}\n"))
        self.write_lesson("{{ results.other }}\n")
        self.assertEqual(render_lesson(self.chapter, "1.0").strip(), "1 ms")

    def test_dict_method_names_are_refused(self):
        root = make_chapter('[[questions]]\nid = "items"\ntitle = "T"\ntext = "?"\nanswer = "1"\n')
        self.addCleanup(shutil.rmtree, root, True)
        (root / "chapters" / "s1" / "lesson.md").write_text("{{ key.items }}\n")
        with self.assertRaises(LessonError) as ctx:
            render_lesson(load_chapter(root), "1.0")
        self.assertIn("dict method", str(ctx.exception))


if __name__ == "__main__":
    unittest.main()
