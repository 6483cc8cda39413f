"""Section 7.9's answer key and load formulas against direct counts: the elements of N each block
of the speed-of-light kernel loads (its vector-aligned input tile, clipped to the image), the
bytes a convolution must move, and the lesson renders."""
import math
import unittest

from halo.core.chapter_data import load_chapter
from halo.core.lesson import render_lesson
from tests.helpers import REPO_ROOT


def block_loads(bx, by, block_x, block_y, rows, width, height, r):
    """Elements of N block (bx, by) loads: the input tile's pixels inside the image. The tile
    starts one float4 (4 columns) left of the output tile and r rows above it."""
    tw, th = 4 * block_x, block_y * rows
    x0, y0 = bx * tw - 4, by * th - r
    cols = sum(1 for x in range(x0, x0 + tw + 8) if 0 <= x < width)
    lines = sum(1 for y in range(y0, y0 + th + 2 * r) if 0 <= y < height)
    return cols * lines


class AnswerKey(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)
        cls.key = {q.id: v for q, v in cls.chapter.answer_key("7.9")}
        cls.defines = cls.chapter.define_values()

    def f(self, name, *args):
        return self.chapter.call(name, *args)

    def shape(self):
        return self.defines["SOL_BLOCK_X"], self.defines["SOL_BLOCK_Y"], self.defines["SOL_ROWS_PER_THREAD"]

    def test_the_speed_of_light_numbers(self):
        # 8192^2 floats in and out: 512 MiB; at 3000 GB/s 0.179 ms; 25 multiply-adds per 8 bytes.
        self.assertEqual(self.key["min_dram_bytes_8k"], 2 * 8192 * 8192 * 4)
        self.assertAlmostEqual(self.key["time_at_copy_bandwidth_8k"], 2 * 8192 * 8192 * 4 / 3000e9 * 1e3)
        self.assertAlmostEqual(self.key["intensity_dram_5x5"], 25 * 2 / 8)

    def test_tile_formulas_count_what_the_kernel_loads(self):
        for block_x, block_y, rows in ((32, 8, 8), (16, 4, 2), (8, 2, 3)):
            for r in (1, 2, 3, 4):
                tw, th = 4 * block_x, block_y * rows
                for width, height in ((3 * tw, 3 * th), (3 * tw - 5, 3 * th - 1)):
                    with self.subTest(shape=(block_x, block_y, rows), r=r, size=(width, height)):
                        self.assertEqual(self.f("sol_loads_internal_block", block_x, block_y, rows, r),
                                         block_loads(1, 1, block_x, block_y, rows, width, height, r))
                        self.assertEqual(self.f("sol_loads_first_block", block_x, block_y, rows, r),
                                         block_loads(0, 0, block_x, block_y, rows, width, height, r))
                        total = sum(block_loads(bx, by, block_x, block_y, rows, width, height, r)
                                    for bx in range(math.ceil(width / tw)) for by in range(math.ceil(height / th)))
                        bound = self.f("sol_loads_total", width, height, block_x, block_y, rows, r)
                        if width % tw == 0 and height % th == 0:
                            self.assertEqual(bound, total)
                        else:
                            self.assertGreaterEqual(bound, total)

    def test_the_keys_use_the_default_shape(self):
        bx, by, rows = self.shape()
        self.assertEqual(self.key["loads_internal_block"], (4 * bx + 8) * (by * rows + 4))
        self.assertEqual(self.key["shared_bytes_9x9"], (4 * bx + 8) * (by * rows + 8) * 4)
        tw, th = 4 * bx, by * rows
        self.assertAlmostEqual(self.key["read_amplification_8k"],
                               (8192 // tw * (tw + 8) - 8) * (8192 // th * (th + 4) - 4) / 8192 ** 2)
        # The tile fits in the 48 KB of static shared memory the kernel declares, for every radius.
        self.assertLessEqual(self.key["shared_bytes_9x9"], 48 * 1024)

    def test_the_lesson_renders(self):
        text = render_lesson(self.chapter, "7.9")
        self.assertNotIn("{{", text)


if __name__ == "__main__":
    unittest.main()
