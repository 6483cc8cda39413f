"""The class report's blocks: mistakes counted per student and key (each distinct cause of a
student once) with who made them and a legend shared with docs/grader.md, the tests failed most
with honest ties, identical kernels found whatever the comments, layout and chosen names (never
joining two kernels that differ in what they compute, nor students who handed in the reference),
and the histogram."""
import re
import unittest
import xml.etree.ElementTree as ET
from collections import Counter

from halo.core import message_keys
from halo.course import mistake_histogram
from halo.course.class_report import add, identical_kernels, mistakes, normalised, ranked, render

from .helpers import REPO_ROOT


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
        self.assertEqual(identical_kernels({"ann": KERNEL, "bob": renamed, "cat": different}), ([["ann", "bob"]], []))

    def test_the_reference_and_the_stub_handed_in_are_nobodys_copy(self):
        stub = "__global__ void k(float* P) { }\n"
        other = KERNEL.replace("k >= 0", "k > 0")
        kernels = {"ann": KERNEL, "bob": KERNEL.replace("acc", "s"), "cat": other, "dan": other, "eve": stub,
                   "fay": stub}
        groups, same_as_reference = identical_kernels(kernels, stub=stub, reference=KERNEL)
        self.assertEqual(groups, [["cat", "dan"]])
        self.assertEqual(same_as_reference, ["ann", "bob"])
        text = render(["7.2"], mistakes({"ann": _res()}), {"7.2": (groups, same_as_reference)})
        self.assertIn("- cat, dan", text)
        self.assertIn("Kernels the same as the reference solution: ann, bob", text)

    def test_each_mistake_names_its_students_and_says_what_it_is(self):
        per = add({}, mistakes({"ann": _res(("7.2 basic-1d / correct / a", OOB))}))
        add(per, mistakes({"bob": _res(("7.2 basic-1d / correct / a", OOB)), "cat": _res(("7.2 basic-1d / correct / b", WRONG))}))
        text = render(["7.2"], per, {})
        legend = message_keys.LEGEND["ghost-cell-loaded"]
        self.assertIn(f"| `ghost-cell-loaded` | 2 | {legend} | ann, bob |", text)
        self.assertIn(f"| `wrong-values` | 1 | {message_keys.LEGEND['wrong-values']} | cat |", text)
        self.assertIn("For staff only", text)

    def test_ties_are_said_and_never_cut(self):
        tests = Counter({"t-a": 4, "t-b": 4, "t-c": 4, "t-d": 4, "t-e": 4, "t-f": 4, "t-g": 2, "t-h": 1})
        self.assertEqual(ranked(tests, 5), [(4, ["t-a", "t-b", "t-c", "t-d", "t-e", "t-f"], 0)])
        self.assertEqual(ranked(Counter({"x": 3, "y": 2, "z": 2}), 2), [(3, ["x"], 0), (2, ["y", "z"], 0)])
        per = {"7.2": {"keys": Counter(), "who": {}, "tests": tests, "students": 6}}
        text = render(["7.2"], per, {})
        self.assertIn("- by 4 students each, tied (6 tests):", text)
        self.assertIn("  - t-f", text)
        self.assertNotIn("t-g", text)
        one = render(["7.2"], {"7.2": {**per["7.2"], "tests": Counter({"x": 3, "y": 1})}}, {}, most=1)
        self.assertIn("- by 3 students:\n  - x", one)

    def test_every_key_has_a_legend_and_docs_grader_holds_the_same_table(self):
        keys = [key for key, _ in message_keys.KEYS] + ["other"]
        self.assertEqual(sorted(message_keys.LEGEND), sorted(keys))
        self.assertTrue(all(message_keys.LEGEND[k].strip() and "\n" not in message_keys.LEGEND[k] for k in keys))
        docs = (REPO_ROOT / "docs" / "grader.md").read_text()
        self.assertIn(message_keys.legend_table(), docs, "docs/grader.md's table of message keys differs from "
                      "message_keys.LEGEND: paste message_keys.legend_table() into it")

    def test_the_histogram_draws_a_bar_per_mistake(self):
        per = add({}, mistakes({"ann": _res(("7.2 basic-1d / correct / a", OOB)), "bob": _res(("7.2 basic-1d / correct / a", OOB)),
                                "cat": _res(("7.2 basic-1d / correct / b", WRONG))}))
        per["7.4"] = {"keys": Counter(), "who": {}, "tests": Counter(), "students": 3}
        picture = mistake_histogram.svg(["7.2", "7.4"], per)
        root = ET.fromstring(picture)  # well-formed
        bars = {r.find("{http://www.w3.org/2000/svg}title").text: float(r.get("width"))
                for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.find("{http://www.w3.org/2000/svg}title") is not None}
        self.assertEqual(set(bars), {"ghost-cell-loaded: 2", "wrong-values: 1"})
        self.assertAlmostEqual(bars["ghost-cell-loaded: 2"], 2 * bars["wrong-values: 1"])
        self.assertTrue(re.search(r">7\.4: students per mistake \(of 3\)<", picture))
        self.assertIn("no mistakes", picture)


if __name__ == "__main__":
    unittest.main()
