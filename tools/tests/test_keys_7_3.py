"""Section 7.3's answer key against the numbers chapter7.md prints: M costs no global loads, the
3rd edition's arithmetic intensity goes from about 1.0 to 2.0 operations per global access, the
4th edition's per-byte measure is 0.5 OP/B with the mask in constant memory."""
import unittest

from halo.core.chapter_data import load_chapter
from halo.core.lesson import render_lesson
from tests.helpers import REPO_ROOT


class AnswerKey(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)
        cls.questions = {q.id: q for q in cls.chapter.questions("7.3")}
        cls.key = {q.id: v for q, v in cls.chapter.answer_key("7.3")}
        cls.launch = cls.chapter.measurements["basic_1d_large"].fields

    def test_capacity(self):
        capacity = self.chapter.define_values()["MAX_MASK_WIDTH"]
        self.assertEqual(self.key["mask_bytes"], capacity * 4)  # 4-byte floats
        widest = self.key["widest_mask"]
        self.assertEqual(widest % 2, 1)
        self.assertLessEqual(widest, capacity)
        self.assertGreater(widest + 2, capacity, "no wider odd mask fits")

    def test_mask_costs_no_global_loads(self):
        # chapter7.md: "7.3 loads M zero times from global memory".
        self.assertEqual(self.key["mask_global_loads"], 0)

    def test_constant_reads_replace_the_global_loads_of_M(self):
        # chapter7.md: the whole array loads Width*Mask_Width - n(n+1) elements of N, and the basic
        # kernel loads M as many times; the constant-memory kernel reads M that many times.
        width, mask = self.launch["Width"], self.launch["Mask_Width"]
        n = mask // 2
        self.assertEqual(self.key["mask_constant_reads"], width * mask - n * (n + 1))
        key_7_2 = {q.id: v for q, v in self.chapter.answer_key("7.2")}
        self.assertEqual(self.key["mask_constant_reads"], key_7_2["loads_total"])

    def test_arithmetic_intensity_as_printed(self):
        # chapter7.md: about 1.0 operation per global access for the basic kernel, 2.0 with
        # constant memory (3rd ed.); 0.25 and 0.5 OP/B in the 4th edition's terms.
        self.assertEqual(round(self.key["ops_per_load_basic"], 1), 1.0)
        self.assertEqual(round(self.key["ops_per_load_constant"], 1), 2.0)
        self.assertEqual(round(self.key["ops_per_byte_constant"], 2), 0.5)
        width, mask = self.launch["Width"], self.launch["Mask_Width"]
        self.assertEqual(round(self.chapter.call("basic_1d_ops_per_global_load", width, mask) / 4, 2), 0.25)
        # The tolerance tells the two kernels apart.
        q = self.questions["ops_per_load_constant"]
        self.assertGreater(abs(self.key["ops_per_load_constant"] - self.key["ops_per_load_basic"]), q.tolerance)

    def test_lesson_renders_and_keeps_the_answers_out(self):
        text = render_lesson(self.chapter, "7.3")
        self.assertTrue(80 <= len(text.splitlines()) <= 150)
        for qid in ("mask_bytes", "widest_mask", "mask_constant_reads"):
            self.assertNotIn(str(int(self.key[qid])), text, qid)


if __name__ == "__main__":
    unittest.main()
