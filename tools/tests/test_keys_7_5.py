"""Section 7.5 (tiled 1D convolution using caches): the answer key equals chapter7.md's formulas
at each question's stated parameters, and the general load formulas (any block, any thread, the
whole grid) agree with a count made by walking the kernel's accesses one by one."""
import re
import unittest

from halo.core import expressions as ex
from halo.core.chapter_data import load_chapter
from halo.core.lesson import render_lesson
from tests.helpers import REPO_ROOT


def chapter7(blockDim, Mask_Width):
    """chapter7.md, 7.5: blockDim loads into shared memory per block; n(n+1)/2 halo reads per
    side; blockDim + n(n+1) global accesses per internal block, n(n+1) of them L2 hits; the tiled
    kernel of 7.4 loads blockDim + 2n per internal block."""
    n = Mask_Width // 2
    return {
        "tile": blockDim,
        "side": n * (n + 1) // 2,
        "internal": blockDim + n * (n + 1),
        "l2": n * (n + 1),
        "first": blockDim + n * (n + 1) // 2,
        "tiled": blockDim + 2 * n,
    }


def walk(Width, blockDim, Mask_Width):
    """(per-thread loads of N, per-block loads before the barrier, per-block loads after it),
    counted by running the cached kernel's control flow in Python."""
    n = Mask_Width // 2
    blocks = -(-Width // blockDim)
    threads = [0] * (blocks * blockDim)
    before, after = [0] * blocks, [0] * blocks
    for b in range(blocks):
        start, end = b * blockDim, (b + 1) * blockDim
        for i in range(start, end):
            if i < Width:  # the guarded tile load
                threads[i] += 1
                before[b] += 1
        for i in range(start, min(end, Width)):
            for k in range(i - n, i + n + 1):
                if 0 <= k < Width and not start <= k < end:  # a halo cell: global memory
                    threads[i] += 1
                    after[b] += 1
    return threads, before, after


class AnswerKey(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)
        cls.questions = {q.id: q for q in cls.chapter.questions("7.5")}

    def key(self, qid):
        return self.questions[qid].expected()

    def test_every_question_is_checked_here(self):
        self.assertEqual(set(self.questions), {
            "tile_loads_internal_block", "halo_reads_per_side", "global_accesses_internal_block",
            "l2_hits_internal_block", "global_accesses_first_block", "extra_accesses_vs_tiled",
            "shared_bytes_per_block"})

    def test_load_questions_match_chapter7(self):
        for qid in ("tile_loads_internal_block", "halo_reads_per_side", "global_accesses_internal_block",
                    "l2_hits_internal_block", "global_accesses_first_block", "extra_accesses_vs_tiled"):
            q = self.questions[qid]
            facts = chapter7(q.params["blockDim"], q.params["Mask_Width"])
            want = {
                "tile_loads_internal_block": facts["tile"],
                "halo_reads_per_side": facts["side"],
                "global_accesses_internal_block": facts["internal"],
                "l2_hits_internal_block": facts["l2"],
                "global_accesses_first_block": facts["first"],
                "extra_accesses_vs_tiled": facts["internal"] - facts["tiled"],
            }[qid]
            with self.subTest(question=qid):
                self.assertEqual(self.key(qid), want)

    def test_stated_parameters(self):
        # The numbers the answer key above was checked at: a mask with n = 5, 256 threads.
        q = self.questions["global_accesses_internal_block"]
        self.assertEqual((q.params["blockDim"], q.params["Mask_Width"]), (256, 11))
        self.assertEqual(self.key("global_accesses_internal_block"), 256 + 30)
        self.assertEqual(self.key("halo_reads_per_side"), 15)
        self.assertEqual(self.key("extra_accesses_vs_tiled"), 20)  # n(n-1)

    def test_shared_bytes_is_t_times_4(self):
        t = self.chapter.define_values()["TILE_SIZE"]
        self.assertEqual(self.key("shared_bytes_per_block"), t * 4)
        self.assertEqual(self.chapter.call("cached_1d_shared_bytes_per_block", 256), 1024)

    def test_question_texts_state_their_parameters(self):
        for q in self.questions.values():
            with self.subTest(question=q.id):
                self.assertNotIn("{", q.text())
        self.assertIn("Mask_Width = 11", self.questions["halo_reads_per_side"].text())


class GeneralFormulas(unittest.TestCase):
    """The grader's expected counts for every block and thread, against the walk above."""

    CASES = [(1, 32, 5), (3, 32, 15), (31, 32, 3), (32, 32, 9), (33, 32, 15), (34, 32, 15),
             (99, 32, 15), (1000, 128, 9), (517, 256, 5), (3 * 128 + 2, 128, 15), (4096, 256, 11),
             (99973, 128, 15)]

    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)

    def call(self, name, *args):
        return self.chapter.call(name, *args)

    def test_per_block_per_thread_and_total(self):
        for Width, blockDim, Mask_Width in self.CASES:
            threads, before, after = walk(Width, blockDim, Mask_Width)
            with self.subTest(Width=Width, blockDim=blockDim, Mask_Width=Mask_Width):
                for b in range(len(before)):
                    self.assertEqual(self.call("cached_1d_tile_loads_block", b, Width, blockDim), before[b])
                    self.assertEqual(self.call("cached_1d_halo_reads_block", b, Width, blockDim, Mask_Width),
                                     after[b], f"block {b}")
                for i, count in enumerate(threads):
                    self.assertEqual(self.call("cached_1d_loads_thread", i, Width, blockDim, Mask_Width), count,
                                     f"thread {i}")
                self.assertEqual(self.call("cached_1d_tile_loads_total", Width), sum(before))
                self.assertEqual(self.call("cached_1d_halo_reads_total", Width, blockDim, Mask_Width), sum(after))
                self.assertEqual(self.call("cached_1d_global_accesses_total", Width, blockDim, Mask_Width),
                                 sum(before) + sum(after))

    def test_internal_and_boundary_blocks(self):
        for blockDim in (32, 128, 256):
            for Mask_Width in (1, 3, 5, 9, 11, 15):
                Width = 4 * blockDim
                _, before, after = walk(Width, blockDim, Mask_Width)
                facts = chapter7(blockDim, Mask_Width)
                with self.subTest(blockDim=blockDim, Mask_Width=Mask_Width):
                    self.assertEqual(before[1], self.call("cached_1d_tile_loads", blockDim))
                    self.assertEqual(after[1], self.call("cached_1d_halo_reads_internal_block", Mask_Width))
                    self.assertEqual(after[1], facts["l2"])
                    self.assertEqual(after[0], self.call("cached_1d_halo_reads_boundary_block", Mask_Width))
                    self.assertEqual(after[-1], facts["side"])
                    self.assertEqual(before[1] + after[1],
                                     self.call("cached_1d_global_accesses_internal_block", blockDim, Mask_Width))
                    self.assertEqual(before[0] + after[0],
                                     self.call("cached_1d_global_accesses_boundary_block", blockDim, Mask_Width))
                    self.assertEqual(self.call("cached_1d_shared_reads_internal_block", blockDim, Mask_Width),
                                     blockDim * Mask_Width - facts["l2"])

    def test_measured_launches(self):
        # The ragged launch's last tile is shorter than n, so it exercises the l < n branch.
        m = self.chapter.measurements["cached_1d_ragged"].fields
        n = m["Mask_Width"] // 2
        last = m["Width"] - (-(-m["Width"] // m["blockDim"]) - 1) * m["blockDim"]
        self.assertLess(last, n)
        big = self.chapter.measurements["cached_1d_large"].fields
        self.assertEqual(big["Width"] % big["blockDim"], 0)


class Lesson(unittest.TestCase):
    def test_lesson_renders_without_printing_answers(self):
        chapter = load_chapter(REPO_ROOT)
        source = (REPO_ROOT / "chapters" / "7.5-cached-1d" / "lesson.md").read_text(encoding="utf-8")
        text = render_lesson(chapter, "7.5")
        self.assertTrue(80 <= len(source.splitlines()) <= 150, len(source.splitlines()))
        self.assertIsNone(re.search(r"\{\{\s*key\.", source), "the lesson prints an answer key")
        for q in chapter.questions("7.5"):
            value = q.expected()
            if value < 10 or value in q.params.values():
                continue  # small numbers occur in other text; a stated parameter is no secret
            shown = ex.format_number(value)
            with self.subTest(question=q.id):
                self.assertIsNone(re.search(r"(?<![\d.,])" + re.escape(shown) + r"(?![\d]|[.,]\d)", text),
                                  f"the lesson prints the answer to {q.id}")


if __name__ == "__main__":
    unittest.main()
