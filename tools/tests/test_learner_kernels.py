"""The learner corpus: every manifest loads (each source exists, each failing kernel names a
known message key), and the verdict check fails a right kernel that failed, a wrong kernel that
passed, and a wrong kernel whose first failure has another key."""
import unittest

from halo.dev import learner_kernels
from halo.core import message_keys
from halo.core.chapter_data import load_chapter
from tests.helpers import REPO_ROOT

DOCTEST_FAILURE = """backend: cpu
===============================================================================
x.cpp:10:
TEST CASE:  7.4 tiled-1d / correct / a

x.cpp:45: FATAL ERROR: launch with Width = 7, Mask_Width = 5, 32 threads per block:
shared-memory race: read of element 3 of N_ds in shared memory while thread (3,0,0) wrote it
===============================================================================
x.cpp:11:
TEST CASE:  7.4 tiled-1d / correct / b

x.cpp:46: ERROR: 3 of 7 elements of P are wrong
===============================================================================
[doctest] test cases: 2 | 0 passed | 2 failed | 0 skipped
"""


class LearnerCorpus(unittest.TestCase):
    def test_every_manifest_loads_and_a_third_or_more_is_right(self):
        chapter = load_chapter(REPO_ROOT)
        entries = [e for s in chapter.sections for e in learner_kernels.load(REPO_ROOT, s)]
        self.assertGreater(len(entries), 0)
        right = sum(e.verdict == "pass" for e in entries)
        self.assertGreaterEqual(3 * right, len(entries) - 2)  # about a third right, as the issue asks

    def test_the_first_failure_decides_the_key(self):
        self.assertEqual(message_keys.key_of("launch with Width = 7:\nshared-memory race: read of ..."), "shared-race")
        self.assertEqual(message_keys.key_of("3 of 7 elements of P are wrong"), "wrong-values")
        wrong = learner_kernels.LearnerKernel("n", "f.cu", "s.cu", "style", "fail", "shared-race", "")
        self.assertEqual(learner_kernels.check(wrong, 1, DOCTEST_FAILURE), [])
        other = learner_kernels.LearnerKernel("n", "f.cu", "s.cu", "style", "fail", "wrong-values", "")
        self.assertIn("key 'shared-race', not 'wrong-values'", learner_kernels.check(other, 1, DOCTEST_FAILURE)[0])
        self.assertIn("did not fail cleanly", learner_kernels.check(wrong, 0, "")[0])
        right = learner_kernels.LearnerKernel("n", "f.cu", "s.cu", "style", "pass", "", "advice")
        self.assertEqual(len(learner_kernels.check(right, 1, DOCTEST_FAILURE)), 2)  # failed, and no advice
        self.assertEqual(learner_kernels.check(right, 0, "advice (7.2): ..."), [])


if __name__ == "__main__":
    unittest.main()
