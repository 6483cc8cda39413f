"""Section 7.1's answer key against the numbers chapter7.md prints and against direct counts:
every formula answer is recomputed here by brute force (loops over the arrays), so a formula
and the book cannot drift apart."""
import re
import unittest

from halo.core.chapter_data import load_chapter
from halo.core.lesson import render_lesson
from tests.helpers import REPO_ROOT


def conv1d(N, M):
    """The book's convolution, written out longhand: no flip, ghost cells are 0."""
    n = len(M) // 2
    out = []
    for i in range(len(N)):
        total = 0
        for j, weight in enumerate(M):
            k = i - n + j
            if 0 <= k < len(N):
                total += N[k] * weight
        out.append(total)
    return out


def count_1d(n, m):
    """(ghost cells, multiplications with ghosts, without) of a 1D convolution, by enumeration."""
    r = m // 2
    ghosts = {k for i in range(n) for k in range(i - r, i + r + 1) if not 0 <= k < n}
    products = [(i, k) for i in range(n) for k in range(i - r, i + r + 1)]
    return len(ghosts), len(products), sum(1 for _, k in products if 0 <= k < n)


def count_2d(n1, n2, m1, m2):
    """The same for an n1 x n2 array and an m1 x m2 mask (m1 along n1)."""
    r1, r2 = m1 // 2, m2 // 2
    ghosts = set()
    with_ghosts = without = 0
    for a in range(n1):
        for b in range(n2):
            for x in range(a - r1, a + r1 + 1):
                for y in range(b - r2, b + r2 + 1):
                    with_ghosts += 1
                    if 0 <= x < n1 and 0 <= y < n2:
                        without += 1
                    else:
                        ghosts.add((x, y))
    return len(ghosts), with_ghosts, without


class AnswerKey(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)
        cls.questions = {q.id: q for q in cls.chapter.questions("7.1")}
        cls.key = {q.id: v for q, v in cls.chapter.answer_key("7.1")}

    def test_longhand_convolution_reproduces_the_book(self):
        # chapter7.md's worked values: the checks below rely on this function.
        self.assertEqual(conv1d([1, 2, 3, 4, 5, 6, 7], [3, 4, 5, 4, 3])[:4], [22, 38, 57, 76])
        self.assertEqual(conv1d([8, 2, 5, 4, 1, 7, 3], [1, 3, 5, 3, 1])[:4], [51, 53, 52, 47])
        self.assertEqual(conv1d([4, 1, 3, 2, 3], [2, 1, 4]), [8, 21, 13, 20, 7])

    def test_worked_values(self):
        # The 4th edition prints y[0..3] = 51, 53, 52, 47 (chapter7.md).
        self.assertEqual(self.key["book4_y0_to_y3"], [51, 53, 52, 47])
        # P[6] of the 3rd edition's example: N[4..6] under M[0..2], two ghost cells on the right.
        self.assertEqual(self.key["book3_p6"], 5 * 3 + 6 * 4 + 7 * 5)
        self.assertEqual(self.key["book3_p6"], conv1d([1, 2, 3, 4, 5, 6, 7], [3, 4, 5, 4, 3])[6])

    def test_exercise2_variant_tells_a_flipped_mask_apart(self):
        example = self.chapter.examples["background_exercise_2"].fields
        N, M = example["N"], example["M"]
        self.assertEqual(self.key["exercise2_variant"], conv1d(N, M))
        self.assertNotEqual(conv1d(N, M), conv1d(N, M[::-1]), "the mask must be asymmetric")

    def test_exercise3_answers_name_the_books_meanings(self):
        # chapter7.md: [0 1 0] identity; [0 0 1] right neighbour (shift left); [1 0 0] left
        # neighbour (shift right); [-1/2 0 1/2] derivative / edge detector; [1/3 1/3 1/3] moving
        # average, smoothing. The answer is a number: the meaning it points at must be the book's.
        expected = {"exercise3a": ("[0 1 0]", "identity"),
                    "exercise3b": ("[0 0 1]", "right neighbour"),
                    "exercise3c": ("[1 0 0]", "left neighbour"),
                    "exercise3d": ("[-1/2 0 1/2]", "edge detector"),
                    "exercise3e": ("[1/3 1/3 1/3]", "moving average")}
        chosen = set()
        for qid, (mask, meaning) in expected.items():
            text = self.questions[qid].text()
            self.assertIn(mask, text, qid)
            answer = self.key[qid]
            self.assertEqual(answer, int(answer), qid)
            options = dict(re.findall(r"(?:: |; )(\d) ([^;.]*(?:\([^)]*\))?[^;.]*)", text))
            self.assertEqual(sorted(options), ["1", "2", "3", "4", "5"], qid)
            self.assertIn(meaning, options[str(int(answer))], qid)
            chosen.add(int(answer))
        self.assertEqual(chosen, {1, 2, 3, 4, 5}, "each meaning is the answer of exactly one mask")
        self.assertNotEqual([self.key[q] for q in sorted(expected)], [1, 2, 3, 4, 5],
                            "the meanings must not be listed in the order of the masks")

    def test_exercise4_by_enumeration(self):
        p = self.questions["exercise4_ghost_cells"].params
        ghosts, with_ghosts, without = count_1d(p["n"], p["m"])
        self.assertEqual(self.key["exercise4_ghost_cells"], ghosts)
        self.assertEqual(self.key["exercise4_multiplications_with_ghosts"], with_ghosts)
        self.assertEqual(self.key["exercise4_multiplications_without_ghosts"], without)
        for qid in ("exercise4_multiplications_with_ghosts", "exercise4_multiplications_without_ghosts"):
            self.assertEqual(self.questions[qid].params, p, "exercise 4's parts share their parameters")

    def test_exercise5_by_enumeration(self):
        p = self.questions["exercise5_ghost_cells"].params
        ghosts, with_ghosts, without = count_2d(p["n"], p["n"], p["m"], p["m"])
        self.assertEqual(self.key["exercise5_ghost_cells"], ghosts)
        self.assertEqual(self.key["exercise5_multiplications_with_ghosts"], with_ghosts)
        self.assertEqual(self.key["exercise5_multiplications_without_ghosts"], without)

    def test_exercise6_by_enumeration(self):
        p = self.questions["exercise6_ghost_cells"].params
        self.assertNotEqual(p["n1"], p["n2"])
        self.assertNotEqual(p["m1"], p["m2"])
        ghosts, with_ghosts, without = count_2d(p["n1"], p["n2"], p["m1"], p["m2"])
        self.assertEqual(self.key["exercise6_ghost_cells"], ghosts)
        self.assertEqual(self.key["exercise6_multiplications_with_ghosts"], with_ghosts)
        self.assertEqual(self.key["exercise6_multiplications_without_ghosts"], without)
        # Pairing m1 with n2 instead gives another number: the question's pairing matters.
        self.assertNotEqual(count_2d(p["n1"], p["n2"], p["m2"], p["m1"])[2], without)

    def test_parameters_differ_from_section_7_2(self):
        other = {q.id: q.params for q in self.chapter.questions("7.2")}
        for qid in ("exercise4_ghost_cells", "exercise5_ghost_cells"):
            self.assertNotEqual(self.questions[qid].params, other[qid], qid)

    def test_lesson_renders_and_keeps_the_answers_out(self):
        text = render_lesson(self.chapter, "7.1")
        self.assertTrue(80 <= len(text.splitlines()) <= 150)
        for qid in ("exercise4_multiplications_without_ghosts", "exercise5_multiplications_without_ghosts",
                    "exercise6_multiplications_without_ghosts", "exercise6_ghost_cells", "book3_p6"):
            self.assertNotIn(str(int(self.key[qid])), text, qid)


if __name__ == "__main__":
    unittest.main()
