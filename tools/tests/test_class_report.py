"""The class report's blocks: mistakes counted per student and key (each distinct cause of a
student once), the tests failed most, and identical kernels found whatever the comments, layout
and chosen names, never joining two kernels that differ in what they compute."""
import unittest

from halo.course.class_report import identical_kernels, mistakes, normalised, render


def _res(*failures):
    tests = [{"name": name, "section": "7.2", "kind": "correct", "status": "failed", "message": message}
             for name, message in failures]
    tests.append({"name": "7.2 basic-1d / answers / q1", "section": "7.2", "kind": "answers", "status": "failed",
                  "message": "q1: wrong"})
    return {"sections": {"7.2": {}}, "tests": tests}


OOB = "launch:\nout-of-bounds access: read of N[-1], outside N[0..6] (7 elements): a ghost cell before the first element"
WRONG = "3 of 7 elements of P are wrong:"

KERNEL = """// basic 1D convolution
__global__ void convolution_1D_basic_kernel(const float* N, const float* M, float* P, int Mask_Width, int Width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;  // my output
  if (i < Width) {
    float acc = 0;
    for (int j = 0; j < Mask_Width; j++) { int k = i - Mask_Width / 2 + j; if (k >= 0 && k < Width) acc += N[k] * M[j]; }
    P[i] = acc;
  }
}
"""


class ClassReport(unittest.TestCase):
    def test_each_student_counts_once_per_mistake(self):
        per = mistakes({"ann": _res(("7.2 basic-1d / correct / a", OOB), ("7.2 basic-1d / correct / b", OOB)),
                        "bob": _res(("7.2 basic-1d / correct / a", WRONG)),
                        "cat": {"sections": {"7.2": {}}, "tests": []}})
        self.assertEqual(per["7.2"]["students"], 3)
        self.assertEqual(per["7.2"]["keys"], {"ghost-cell-loaded": 1, "wrong-values": 1})
        self.assertEqual(per["7.2"]["tests"]["7.2 basic-1d / correct / a"], 2)
        self.assertNotIn("7.2 basic-1d / answers / q1", per["7.2"]["tests"])  # answers are not kernel mistakes

    def test_comments_layout_and_names_do_not_hide_a_copy(self):
        renamed = (KERNEL.replace("acc", "sum").replace("// my output", "").replace("int k", "int idx")
                   .replace("k >= 0", "idx >= 0").replace("k < Width", "idx < Width").replace("N[k]", "N[idx]")
                   .replace("  ", "    "))
        different = KERNEL.replace("k >= 0", "k > 0")
        self.assertEqual(normalised(KERNEL), normalised(renamed))
        self.assertEqual(identical_kernels({"ann": KERNEL, "bob": renamed, "cat": different}), [["ann", "bob"]])

    def test_the_report_names_mistakes_tests_and_copies(self):
        per = mistakes({"ann": _res(("7.2 basic-1d / correct / a", OOB))})
        text = render(["7.2"], per, {"7.2": [["ann", "bob"]]})
        self.assertIn("| ghost-cell-loaded | 1 |", text)
        self.assertIn("- 7.2 basic-1d / correct / a: 1", text)
        self.assertIn("- ann, bob", text)


if __name__ == "__main__":
    unittest.main()
