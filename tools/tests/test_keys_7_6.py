"""Section 7.6's answer key against the numbers chapter7.md prints (checked by hand there)."""
import re
import unittest

from halo.core import expressions as ex
from halo.core.chapter_data import load_chapter
from halo.core.lesson import render_lesson
from tests.helpers import REPO_ROOT


class Keys76(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)
        cls.key = {q.id: v for q, v in cls.chapter.answer_key("7.6")}
        cls.questions = {q.id: q for q in cls.chapter.questions("7.6")}

    def test_reduction_ratio_table(self):
        # chapter7.md's table, rows Mask_Width = 5 and 9, columns O_TILE_WIDTH = 8, 16, 32, 64.
        printed = {5: [11.11, 16.00, 19.75, 22.15], 9: [20.25, 36.00, 51.84, 64.00]}
        for mask, row in printed.items():
            for tile, value in zip([8, 16, 32, 64], row):
                qid = f"ratio_t{tile}_m{mask}"
                with self.subTest(qid):
                    self.assertEqual(self.questions[qid].params, {"T": tile, "Mask_Width": mask})
                    self.assertEqual(round(self.key[qid], 2), value)
                    # A student who answers the printed two-decimal value is right.
                    self.assertLessEqual(abs(self.key[qid] - value), self.questions[qid].tolerance)

    def test_limits(self):
        # Large tiles approach Mask_Width^2 (25 and 81).
        self.assertAlmostEqual(self.chapter.call("tiled_2d_reduction_ratio", 10 ** 6, 5), 25, delta=0.01)
        self.assertAlmostEqual(self.chapter.call("tiled_2d_reduction_ratio", 10 ** 6, 9), 81, delta=0.01)

    def test_large_input_tile(self):
        self.assertEqual(self.questions["input_tile_elements_t64_m9"].params, {"T": 64, "Mask_Width": 9})
        self.assertEqual(self.key["input_tile_elements_t64_m9"], 72 * 72)
        self.assertEqual(self.key["input_tile_elements_t64_m9"], 5184)
        self.assertEqual(self.key["input_tile_bytes_t64_m9"], 20736)

    def test_measured_ratio_question(self):
        q = self.questions["measured_ratio_t16_m5"]
        self.assertEqual(q.measured_ratio, ["basic_2d@ratio_2d_t16_m5:N:internal",
                                            "tiled_2d@ratio_2d_t16_m5:N:internal"])
        self.assertEqual(q.params["T"], self.chapter.define_values()["O_TILE_WIDTH"])
        self.assertEqual(round(self.key["measured_ratio_t16_m5"], 2), 16.00)

    def test_boundary_loads(self):
        # An internal block loads its whole input tile; the corner block only what lies inside.
        call = self.chapter.call
        self.assertEqual(call("tiled_2d_loads_block", 1, 1, 128, 96, 16, 5), 20 * 20)
        self.assertEqual(call("tiled_2d_loads_block", 0, 0, 128, 96, 16, 5), 18 * 18)
        self.assertEqual(call("tiled_2d_loads_block", 0, 0, 1, 1, 16, 9), 1)
        self.assertEqual(call("tiled_2d_grid_blocks", 17, 16), 2)
        self.assertEqual(call("tiled_2d_grid_blocks", 16, 16), 1)


class Lesson(unittest.TestCase):
    def test_lesson_renders_without_printing_answers(self):
        chapter = load_chapter(REPO_ROOT)
        source = (REPO_ROOT / "chapters" / "7.6-tiled-2d-pitched" / "lesson.md").read_text(encoding="utf-8")
        text = render_lesson(chapter, "7.6")
        self.assertTrue(80 <= len(source.splitlines()) <= 150, len(source.splitlines()))
        self.assertIsNone(re.search(r"\{\{\s*key\.", source), "the lesson prints an answer key")
        for q in chapter.questions("7.6"):
            value = q.expected()
            if value < 10 or value in q.params.values():
                continue  # small numbers occur in other text; a stated parameter is no secret
            for shown in {ex.format_number(value), f"{value:.2f}", f"{value:,.0f}"}:
                with self.subTest(question=q.id, shown=shown):
                    self.assertIsNone(re.search(r"(?<![\d.,])" + re.escape(shown) + r"(?![\d]|[.,]\d)", text),
                                      f"the lesson prints the answer to {q.id}")


if __name__ == "__main__":
    unittest.main()
