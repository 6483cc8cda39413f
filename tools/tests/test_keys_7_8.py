"""Section 7.8's answer key against the numbers chapter7.md prints, and its load formulas against
a direct count of what each block of the four 2D kernels loads."""
import math
import tempfile
import unittest
from pathlib import Path

from halo.core.answers import check_question
from halo.core.chapter_data import load_chapter
from halo.core.lesson import render_lesson
from tests.helpers import REPO_ROOT


def neighbours(t, r, lo, hi):
    """Positions t - r .. t + r that lie in lo .. hi - 1."""
    return [p for p in range(t - r, t + r + 1) if lo <= p < hi]


def basic_block_loads(bx, by, bdx, bdy, width, height, r):
    """Elements of N block (bx, by) of the basic kernel loads: every non-ghost neighbour of each
    thread that has an output."""
    total = 0
    for ty in range(bdy):
        for tx in range(bdx):
            row, col = by * bdy + ty, bx * bdx + tx
            if row < height and col < width:
                total += len(neighbours(row, r, 0, height)) * len(neighbours(col, r, 0, width))
    return total


def cached_block_loads(bx, by, tile, width, height, r):
    """(tile loads, halo reads) of block (bx, by) of the cached kernel, cell by cell: the tile's
    elements inside the image, then each thread's neighbours inside the image but outside the tile."""
    x0, y0 = bx * tile, by * tile
    tile_loads = sum(1 for y in range(y0, y0 + tile) for x in range(x0, x0 + tile) if y < height and x < width)
    halo = 0
    for row in range(y0, min(y0 + tile, height)):
        for col in range(x0, min(x0 + tile, width)):
            for y in neighbours(row, r, 0, height):
                for x in neighbours(col, r, 0, width):
                    if not (y0 <= y < y0 + tile and x0 <= x < x0 + tile):
                        halo += 1
    return tile_loads, halo


def tiled_block_loads(bx, by, in_tile, width, height, r):
    """Elements of N block (bx, by) of the tiled kernel loads: its input tile's cells in the image."""
    out = in_tile - 2 * r
    x0, y0 = bx * out - r, by * out - r
    return sum(1 for y in range(y0, y0 + in_tile) for x in range(x0, x0 + in_tile)
               if 0 <= y < height and 0 <= x < width)


class AnswerKey(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)
        cls.questions = {q.id: q for q in cls.chapter.questions("7.8")}
        cls.key = {q.id: v for q, v in cls.chapter.answer_key("7.8")}
        cls.defines = cls.chapter.define_values()

    def f(self, name, *args):
        return self.chapter.call(name, *args)

    def test_arithmetic_intensities_are_the_printed_ones(self):
        # chapter7.md: basic 0.25 OP/B, constant memory 0.5; tiled 9.57 (5x5, IN 32), 22.78 (9x9, IN 32),
        # 3.13 (5x5, IN 8); limits 12.5 and 40.5.
        printed = {"intensity_basic": 0.25, "intensity_constant": 0.5, "intensity_tiled_5x5_in32": 9.57,
                   "intensity_tiled_9x9_in32": 22.78, "intensity_tiled_5x5_in8": 3.13,
                   "intensity_limit_5x5": 12.5, "intensity_limit_9x9": 40.5}
        for qid, value in printed.items():
            with self.subTest(qid=qid):
                # Rounded half up, as the book prints (3.125 -> 3.13); Python's round() would say 3.12.
                self.assertEqual(math.floor(self.key[qid] * 100 + 0.5) / 100, value)
                self.assertEqual(self.questions[qid].tolerance, 0.005)
        # A student who types the book's two decimals is right.
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "answers.toml"
            path.write_text("".join(f"{qid} = {value}\n" for qid, value in printed.items()))
            for qid in printed:
                with self.subTest(answer=qid):
                    self.assertEqual(check_question(self.chapter, "7.8", qid, path).status, "right")
        # The tiled value by the book's own recipe: OUT^2 (2r+1)^2 2 / (IN^2 4).
        for qid in ("intensity_tiled_5x5_in32", "intensity_tiled_9x9_in32", "intensity_tiled_5x5_in8"):
            p = self.questions[qid].params
            m, inn = p["Mask_Width"], p["inTileDim"]
            out = inn - (m - 1)
            self.assertAlmostEqual(self.key[qid], out * out * m * m * 2 / (inn * inn * 4))

    def test_exercise_7_of_the_4th_edition(self):
        # chapter7.md: tiled (IN_TILE_DIM = 32) ceil(N/OUT_TILE_DIM)^2 blocks, 1024 threads, 4096 bytes;
        # cached (TILE_DIM = 32) ceil(N/32)^2 blocks, 1024 threads, 4096 bytes.
        self.assertEqual(self.defines["IN_TILE_DIM"], 32)
        self.assertEqual(self.defines["TILE_DIM"], 32)
        p = self.questions["exercise7_tiled_blocks"].params
        n, r = p["n"], p["Mask_Width"] // 2
        for qid in ("exercise7_tiled_threads", "exercise7_tiled_shared_bytes", "exercise7_cached_blocks",
                    "exercise7_cached_threads", "exercise7_cached_shared_bytes"):
            self.assertEqual(self.questions[qid].params, p, qid)
        self.assertEqual(self.key["exercise7_tiled_blocks"], math.ceil(n / (32 - 2 * r)) ** 2)
        self.assertEqual(self.key["exercise7_tiled_threads"], 1024)
        self.assertEqual(self.key["exercise7_tiled_shared_bytes"], 4096)
        self.assertEqual(self.key["exercise7_cached_blocks"], math.ceil(n / 32) ** 2)
        self.assertEqual(self.key["exercise7_cached_threads"], 1024)
        self.assertEqual(self.key["exercise7_cached_shared_bytes"], 4096)
        # The stated image makes the two block counts differ from each other and from 1024.
        self.assertEqual(len({self.key["exercise7_tiled_blocks"], self.key["exercise7_cached_blocks"], 1024}), 3)

    def test_the_books_2d_example(self):
        # chapter7.md: 3rd ed. Fig. 7.4 gives P[2][2] = 321.
        e = self.chapter.examples["exercises_2d_fig_7_4"].fields
        w, m = e["width"], e["Mask_Width"]
        N, M, r = e["N"], e["M"], m // 2
        p22 = sum(N[(2 - r + fr) * w + (2 - r + fc)] * M[fr * m + fc] for fr in range(m) for fc in range(m))
        self.assertEqual(p22, 321)
        self.assertEqual(e["P_known"], [[2 * w + 2, 321]])

    def test_basic_load_formulas_count_what_the_kernel_loads(self):
        for r in (1, 2, 4):
            m = 2 * r + 1
            for bdx, bdy in ((32, 8), (16, 16), (8, 4)):
                width, height = 4 * bdx + 3, 3 * bdy + 1
                with self.subTest(r=r, block=(bdx, bdy)):
                    self.assertEqual(self.f("basic_2d_loads_internal_block", bdx, bdy, m),
                                     basic_block_loads(1, 1, bdx, bdy, width, height, r))
                    self.assertEqual(self.f("basic_2d_loads_first_block", bdx, bdy, m),
                                     basic_block_loads(0, 0, bdx, bdy, width, height, r))
                    total = sum(basic_block_loads(bx, by, bdx, bdy, width, height, r)
                                for bx in range(math.ceil(width / bdx)) for by in range(math.ceil(height / bdy)))
                    self.assertEqual(self.f("basic_2d_loads_total", width, height, m), total)
                    self.assertEqual(self.f("basic_2d_loads_thread", 0, 0, width, height, m), (r + 1) * (r + 1))

    def test_cached_halo_formula_counts_what_the_kernel_reads(self):
        for tile, r in ((8, 1), (8, 3), (32, 2)):
            m = 2 * r + 1
            width, height = 3 * tile, 2 * tile
            with self.subTest(tile=tile, r=r):
                self.assertEqual((self.f("cached_2d_tile_loads_internal_block", tile),
                                  self.f("cached_2d_halo_loads_internal_block", tile, m)),
                                 cached_block_loads(1, 1, tile, 3 * tile, 3 * tile, r))
                self.assertEqual(self.f("cached_2d_halo_loads_first_block", tile, m),
                                 cached_block_loads(0, 0, tile, width, height, r)[1])
                halo_total = sum(cached_block_loads(bx, by, tile, width, height, r)[1]
                                 for bx in range(3) for by in range(2))
                self.assertEqual(self.f("cached_2d_halo_loads_total", width, height, tile, m), halo_total)
                # The lesson's derivation: (T m)^2 - (T m - r(r+1))^2.
                self.assertEqual(self.f("cached_2d_halo_loads_internal_block", tile, m),
                                 (tile * m) ** 2 - (tile * m - r * (r + 1)) ** 2)

    def test_tiled_load_formulas_count_what_the_kernel_loads(self):
        for inn, r in ((32, 1), (32, 2), (32, 4), (8, 2)):
            out = inn - 2 * r
            width, height = 4 * out, 3 * out
            with self.subTest(in_tile=inn, r=r):
                self.assertEqual(self.f("tiled_in_2d_loads_internal_block", inn), tiled_block_loads(1, 1, inn, width, height, r))
                self.assertEqual(self.f("tiled_in_2d_loads_first_block", inn, r), tiled_block_loads(0, 0, inn, width, height, r))
                total = sum(tiled_block_loads(bx, by, inn, width, height, r) for bx in range(4) for by in range(3))
                self.assertEqual(self.f("tiled_in_2d_loads_total", width, height, inn, r), total)
                self.assertEqual(self.f("tiled_in_2d_blocks", width, height, inn, r), 12)

    def test_load_questions_use_the_measured_launches(self):
        self.assertEqual(self.questions["loads_basic_internal_block"].params,
                         self.chapter.measurements["basic_2d_large"].fields)
        self.assertEqual(self.questions["loads_cached_halo_internal_block"].params,
                         self.chapter.measurements["cached_2d_large"].fields)
        ms = self.chapter.measurements["tiled_2d_large"].fields
        out = self.f("tiled_in_2d_out_tile_dim", self.defines["IN_TILE_DIM"], ms["Mask_Width"] // 2)
        self.assertEqual((ms["width"] % out, ms["height"] % out), (0, 0))  # the total's formula is exact there
        mc = self.chapter.measurements["cached_2d_large"].fields
        self.assertEqual((mc["width"] % self.defines["TILE_DIM"], mc["height"] % self.defines["TILE_DIM"]), (0, 0))

    def test_lesson_renders_without_answers(self):
        source = (REPO_ROOT / "chapters" / "7.8-exercises-2d" / "lesson.md").read_text()
        self.assertNotIn("{{ key.", source)
        lines = render_lesson(self.chapter, "7.8").splitlines()
        self.assertTrue(80 <= len(lines) <= 150, len(lines))
        text = "\n".join(lines)
        for printed in ("9.57", "22.78", "3.13", "12.5", "40.5", "4761", "3600"):
            self.assertNotIn(printed, text)


if __name__ == "__main__":
    unittest.main()
