"""Section 7.4's answer key against the numbers chapter7.md prints, and the tiled kernel's load
formulas against a direct count of what each block of the kernel loads."""
import math
import re
import unittest

from halo.core.chapter_data import load_chapter
from halo.core.lesson import render_lesson
from tests.helpers import REPO_ROOT


def tiled_block_loads(b, width, block, mask):
    """Elements of N block b of the tiled kernel loads, counted cell by cell the way the kernel
    fills its tile: left halo, centre, right halo, each only when inside N."""
    n = mask // 2
    start = b * block
    cells = [start - n + c for c in range(block + 2 * n)]
    return sum(1 for g in cells if 0 <= g < width)


class AnswerKey(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)
        cls.questions = {q.id: q for q in cls.chapter.questions("7.4")}
        cls.key = {q.id: v for q, v in cls.chapter.answer_key("7.4")}

    def test_reduction_ratios_are_the_corrected_ones(self):
        # chapter7.md: 1408/138 = 10.20 and 1393/133 = 10.47 (128 threads, n = 5);
        # 352/42 = 8.38 and 337/37 = 9.11 (32 threads, n = 5).
        self.assertEqual(round(self.key["ratio_internal_b128"], 2), 10.20)
        self.assertEqual(round(self.key["ratio_boundary_b128"], 2), 10.47)
        self.assertEqual(round(self.key["ratio_internal_b32"], 2), 8.38)
        self.assertEqual(round(self.key["ratio_boundary_b32"], 2), 9.11)
        self.assertAlmostEqual(self.key["ratio_internal_b128"], 1408 / 138)
        self.assertAlmostEqual(self.key["ratio_boundary_b128"], 1393 / 133)
        self.assertAlmostEqual(self.key["ratio_internal_b32"], 352 / 42)
        self.assertAlmostEqual(self.key["ratio_boundary_b32"], 337 / 37)

    def test_the_books_internal_ratios_are_wrong_answers(self):
        # The erratum: the book prints 10.13 and 8.14; the tolerance must reject them.
        printed = self.chapter.examples["book_reduction_ratios"].fields
        self.assertEqual(printed, {"blockDim_128": 10.13, "blockDim_32": 8.14})
        for qid, field in (("ratio_internal_b128", "blockDim_128"), ("ratio_internal_b32", "blockDim_32")):
            q = self.questions[qid]
            self.assertGreater(abs(printed[field] - self.key[qid]), q.tolerance, qid)

    def test_ratio_questions_use_the_ratio_launches(self):
        for qid, launch in (("ratio_internal_b128", "ratio_1d_b128"), ("ratio_boundary_b128", "ratio_1d_b128"),
                            ("ratio_internal_b32", "ratio_1d_b32"), ("ratio_boundary_b32", "ratio_1d_b32")):
            q = self.questions[qid]
            self.assertEqual(q.params, self.chapter.measurements[launch].fields)
            self.assertEqual(q.params["Mask_Width"] // 2, 5)
            self.assertEqual(q.tolerance, 0.005)
            kind = "internal" if "internal" in qid else "boundary"
            self.assertEqual(q.measured_ratio, [f"basic_1d@{launch}:N:{kind}", f"tiled_1d@{launch}:N:{kind}"])
        self.assertEqual(self.chapter.measurements["ratio_1d_b128"].fields["blockDim"], 128)
        self.assertEqual(self.chapter.measurements["ratio_1d_b32"].fields["blockDim"], 32)

    def test_ratio_limit_is_the_mask_width(self):
        n = self.questions["ratio_limit"].params["n"]
        self.assertEqual(self.key["ratio_limit"], 2 * n + 1)
        huge = self.chapter.call("tiled_1d_ratio_internal", 10 ** 9, 2 * n + 1)
        self.assertAlmostEqual(huge, self.key["ratio_limit"], places=6)

    def test_exercise_7(self):
        # chapter7.md: blocks ceil(n/t), t threads, (t + m - 1)*4 bytes per block, that times the
        # blocks in total; the cached kernel of 7.5 uses t*4 bytes per block.
        p = self.questions["exercise7_blocks"].params
        n, m, t = p["n"], p["m"], p["t"]
        for qid in ("exercise7_threads_per_block", "exercise7_shared_bytes_per_block",
                    "exercise7_shared_bytes_total", "exercise7_cached_shared_bytes_per_block"):
            self.assertEqual(self.questions[qid].params, p, qid)
        self.assertNotEqual(n % t, 0, "the parameters should make the ceiling matter")
        blocks = math.ceil(n / t)
        self.assertEqual(self.key["exercise7_blocks"], blocks)
        self.assertEqual(self.key["exercise7_threads_per_block"], t)
        self.assertEqual(self.key["exercise7_shared_bytes_per_block"], (t + m - 1) * 4)
        self.assertEqual(self.key["exercise7_shared_bytes_total"], blocks * (t + m - 1) * 4)
        self.assertEqual(self.key["exercise7_cached_shared_bytes_per_block"], t * 4)


class Lesson(unittest.TestCase):
    def test_renders_without_printing_the_answers(self):
        chapter = load_chapter(REPO_ROOT)
        text = render_lesson(chapter, "7.4")
        self.assertIn("10.13", text)  # the erratum is explained, with the book's numbers
        self.assertIn("8.14", text)
        shown = {q.id: set(re.findall(r"\d+(?:\.\d+)?", q.text())) for q in chapter.questions("7.4")}
        for q, value in chapter.answer_key("7.4"):
            forms = {f"{value:.2f}", f"{value:.1f}", f"{value:.3f}", f"{value:g}", f"{value:,.0f}"}
            forms = {f for f in forms if len(f.replace(".", "").replace(",", "")) >= 2} - shown[q.id]
            for form in forms:
                with self.subTest(question=q.id, form=form):
                    self.assertNotRegex(text, r"(?<![\d.,])" + re.escape(form) + r"(?![\d]|[.,]\d)")


class LoadFormulas(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)

    def cases(self):
        for block in (1, 2, 7, 32, 128, 256):
            for mask in (1, 3, 5, 9, 11, 15):
                if mask // 2 > block:
                    continue  # the kernel needs n <= blockDim
                for width in (1, 2, mask - 1, block - 1, block, block + 1, 2 * block + 3, 3 * block + 2,
                              5 * block, 1000, 8192):
                    if width >= 1:
                        yield width, block, mask

    def test_per_block_formula_counts_the_tile(self):
        call = self.chapter.call
        for width, block, mask in self.cases():
            for b in range(math.ceil(width / block)):
                self.assertEqual(call("tiled_1d_loads_block", b, width, block, mask),
                                 tiled_block_loads(b, width, block, mask), (b, width, block, mask))

    def test_total_is_the_sum_over_blocks(self):
        call = self.chapter.call
        for width, block, mask in self.cases():
            blocks = math.ceil(width / block)
            total = sum(tiled_block_loads(b, width, block, mask) for b in range(blocks))
            self.assertEqual(call("tiled_1d_loads_total", width, block, mask), total, (width, block, mask))

    def test_internal_and_boundary_blocks(self):
        call = self.chapter.call
        for block in (32, 128, 256):
            for mask in (1, 5, 11, 15):
                n = mask // 2
                width = 4 * block
                self.assertEqual(call("tiled_1d_loads_internal_block", block, mask), block + 2 * n)
                self.assertEqual(call("tiled_1d_loads_boundary_block", block, mask), block + n)
                self.assertEqual(tiled_block_loads(1, width, block, mask), block + 2 * n)
                self.assertEqual(tiled_block_loads(0, width, block, mask), block + n)
                self.assertEqual(tiled_block_loads(3, width, block, mask), block + n)


if __name__ == "__main__":
    unittest.main()
