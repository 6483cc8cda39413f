"""Loading the chapter: the real one gives the book's numbers, broken ones name file and formula."""
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from halo.core.chapter_data import ChapterError, load_chapter
from halo.core.cpp_header import emit_header
from tests.helpers import REPO_ROOT, make_chapter


class RealChapter(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)

    def test_sections(self):
        self.assertIn("7.2", [s.id for s in self.chapter.sections])
        self.assertIs(self.chapter.section("7.2"), self.chapter.section("7.2-basic-1d"))
        self.assertEqual(self.chapter.section("7.2").kernels, ["convolution_1d_basic.cu"])
        with self.assertRaises(KeyError) as ctx:
            self.chapter.section("9.9")
        self.assertIn("7.2", str(ctx.exception))

    def test_answer_key_7_2(self):
        key = {q.id: v for q, v in self.chapter.answer_key("7.2")}
        self.assertEqual(key, {
            "exercise1_p0": 22,
            "exercise2_p": [8, 21, 13, 20, 7],
            "exercise4_ghost_cells": 8,
            "exercise4_multiplications_with_ghosts": 9000,
            "exercise4_multiplications_without_ghosts": 8980,
            "exercise5_ghost_cells": 528,
            "exercise5_multiplications_with_ghosts": 102400,
            "exercise5_multiplications_without_ghosts": 98596,
            "loads_internal_block": 1280,
            "loads_first_block": 1277,
            "loads_total": 5242874,
        })

    def test_examples_agree_with_conv1d(self):
        self.assertEqual(self.chapter.verify_examples(), [])

    def test_formulas(self):
        self.assertEqual(self.chapter.call("radius", 5), 2)
        self.assertEqual(self.chapter.call("basic_1d_loads_thread", 0, 1024, 5), 3)
        self.assertEqual(self.chapter.evaluate("radius(9) * 2 + x", {"x": 1}), 9)
        order = self.chapter.formula_order()
        self.assertLess(order.index("radius"), order.index("multiplications_1d_without_ghosts"))

    def test_question_params_and_text(self):
        q = {q.id: q for q in self.chapter.questions("7.2")}
        self.assertEqual(q["loads_first_block"].params,
                         {"Width": 1048576, "Mask_Width": 5, "blockDim": 256})
        self.assertNotIn("P_known", q["exercise1_p0"].params)
        self.assertTrue(q["exercise1_p0"].text().startswith("N = [1, 2, 3, 4, 5, 6, 7] is convolved"))
        self.assertIn("n = 1000", q["exercise4_ghost_cells"].text())

    def test_verify_examples_finds_a_wrong_value(self):
        root = make_chapter("""
            [examples.bad]
            N = [1, 2, 3]
            M = [1, 1, 1]
            P_known = [[0, 3], [1, 7], [5, 1]]
        """)
        problems = load_chapter(root).verify_examples()
        self.assertEqual(len(problems), 2, problems)
        self.assertIn("conv1d(N, M)[1] is 6, but P_known says 7", problems[0])
        self.assertIn("index 5", problems[1])


class BrokenChapters(unittest.TestCase):
    def assertBroken(self, *sections, words):
        with self.assertRaises(ChapterError) as ctx:
            load_chapter(make_chapter(*sections))
        message = str(ctx.exception)
        for word in words:
            self.assertIn(word, message)
        return message

    def test_unknown_name(self):
        self.assertBroken("""
            [formulas.f]
            params = ["a"]
            expr = "a + b"
        """, words=["chapters/s1/questions.toml: formula 'f':", "unknown name 'b'"])

    def test_unknown_name_in_let(self):
        self.assertBroken("""
            [formulas.f]
            params = ["a"]
            let = ["r = a + q"]
            expr = "r"
        """, words=["formula 'f'", "let r", "'q'"])

    def test_wrong_argument_count(self):
        self.assertBroken("""
            [formulas.f]
            params = ["a", "b"]
            expr = "a * b"
            [formulas.g]
            params = ["x"]
            expr = "f(x)"
        """, words=["chapters/s1/questions.toml: formula 'g':", "f() takes 2 arguments", "got 1"])

    def test_builtin_argument_count(self):
        self.assertBroken("""
            [formulas.g]
            params = ["x"]
            expr = "floor_div(x)"
        """, words=["formula 'g'", "floor_div() takes 2"])

    def test_cycle(self):
        self.assertBroken("""
            [formulas.a]
            params = ["x"]
            expr = "b(x) + 1"
            [formulas.b]
            params = ["x"]
            expr = "c(x)"
            [formulas.c]
            params = ["x"]
            expr = "a(x)"
        """, words=["chapters/s1/questions.toml: formula 'a':", "a -> b -> c -> a"])

    def test_duplicate_across_sections(self):
        formula = """
            [formulas.twice]
            params = ["x"]
            expr = "2 * x"
        """
        self.assertBroken(formula, formula, words=["chapters/s2/questions.toml: formula 'twice':",
                                                   "chapters/s1/questions.toml"])

    def test_lists_are_answers_only(self):
        self.assertBroken("""
            [formulas.f]
            params = ["N", "M"]
            expr = "conv1d(N, M)[0]"
        """, words=["formula 'f'", "not available in C++"])

    def test_formula_called_without_parentheses(self):
        self.assertBroken("""
            [formulas.f]
            params = ["x"]
            expr = "x"
            [formulas.g]
            params = ["x"]
            expr = "f + x"
        """, words=["formula 'g'", "call it as f(...)"])

    def test_malformed_toml_names_the_file(self):
        self.assertBroken("[formulas.f\n", words=["chapters/s1/questions.toml", "line 1"])

    def test_bad_questions(self):
        base = '[[questions]]\nid = "{id}"\ntitle = "t"\ntext = "{text}"\nanswer = "{answer}"\n'
        cases = [
            (base.format(id="q-1", text="x", answer="1"), ["question 'q-1'", "letters, digits"]),
            (base.format(id="q", text="x", answer="1") * 2, ["question 'q'", "used twice"]),
            (base.format(id="q", text="{n}", answer="1"), ["question 'q'", "{n}"]),
            (base.format(id="q", text="x", answer="nope(1)"), ["question 'q'", "unknown function"]),
            (base.format(id="q", text="x", answer="1") + 'example = "none"\n',
             ["question 'q'", "unknown example 'none'"]),
        ]
        for text, words in cases:
            with self.subTest(text=text):
                self.assertBroken(text, words=words)

    def test_section_without_questions_file(self):
        root = make_chapter("")
        (root / "chapters" / "s1" / "questions.toml").unlink()
        chapter = load_chapter(root)
        self.assertEqual(chapter.questions("1.0"), [])
        self.assertEqual(chapter.formulas, {})


@unittest.skipUnless(shutil.which("clang++"), "clang++ is not installed")
class Header(unittest.TestCase):
    def test_header_compiles_and_computes(self):
        header = emit_header(load_chapter(REPO_ROOT))
        self.assertTrue(header.lstrip().startswith("//"))
        self.assertIn("#pragma once", header)
        self.assertIn("must not be edited", header)
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            (tmp / "halo_data.hpp").write_text(header)
            (tmp / "main.cpp").write_text(
                '#include "halo_data.hpp"\n#include <iostream>\n'
                "int main() {\n"
                "    using namespace halo::data;\n"
                '    std::cout << "radius(5)=" << radius(5) << "\\n";\n'
                '    std::cout << "total=" << static_cast<long>(basic_1d_loads_total(1048576, 5))\n'
                '              << " first=" << basic_1d_loads_boundary_block(256, 5)\n'
                '              << " P0=" << examples::book_3rd_edition.P_known[0].second\n'
                '              << " blockDim=" << measurements::basic_1d_large.blockDim << "\\n";\n'
                "}\n")
            subprocess.run(["clang++", "-std=c++20", "-fsyntax-only", "-Wall", "-Wextra",
                            "-Werror", "-x", "c++", "-Wno-pragma-once-outside-header",
                            str(tmp / "halo_data.hpp")], check=True)
            subprocess.run(["clang++", "-std=c++17", "-Wall", "-Wextra", "-Werror",
                            str(tmp / "main.cpp"), "-o", str(tmp / "main")], check=True)
            out = subprocess.run([str(tmp / "main")], check=True, capture_output=True, text=True)
        self.assertEqual(out.stdout.splitlines(),
                         ["radius(5)=2", "total=5242874 first=1277 P0=22 blockDim=256"])


if __name__ == "__main__":
    unittest.main()
