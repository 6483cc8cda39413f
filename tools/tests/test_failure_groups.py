"""Failures grouped by cause, most telling first: the same cause at two sizes is one entry; a
memory error comes before the wrong values it explains; a named misconception before bare
wrong values; doctest's whole output splits into its failing test cases."""
import unittest

from halo.core.failure_groups import doctest_failures, group

OUTPUT = """backend: cpu
===============================================================================
x.cpp:10:
TEST CASE:  7.2 basic-1d / correct / small

x.cpp:45: ERROR: 3 of 7 elements of P are wrong:
    P[0] = 1, expected 2
===============================================================================
x.cpp:11:
TEST CASE:  7.2 basic-1d / correct / large

x.cpp:46: ERROR: 30 of 700 elements of P are wrong:
    P[5] = 1.5, expected 2
===============================================================================
x.cpp:12:
TEST CASE:  7.2 basic-1d / diagnostics / bounds

x.cpp:47: ERROR: launch with Width = 7:
out-of-bounds access: read of N[-2], outside N[0..6] (7 elements)
===============================================================================
x.cpp:13:
TEST CASE:  7.2 basic-1d / correct / passes

===============================================================================
[doctest] test cases: 4 | 1 passed | 3 failed | 0 skipped
"""


class FailureGroups(unittest.TestCase):
    def test_doctest_output_splits_into_failing_cases(self):
        names = [n for n, _ in doctest_failures(OUTPUT)]
        self.assertEqual(names, ["7.2 basic-1d / correct / small", "7.2 basic-1d / correct / large",
                                 "7.2 basic-1d / diagnostics / bounds"])

    def test_one_cause_is_one_group_and_memory_errors_come_first(self):
        groups = group(doctest_failures(OUTPUT))
        self.assertEqual([g.key for g in groups], ["out-of-bounds", "wrong-values"])
        self.assertEqual(groups[1].names, ["7.2 basic-1d / correct / small", "7.2 basic-1d / correct / large"])
        self.assertTrue(groups[1].message.startswith("3 of 7 elements"))

    def test_a_named_misconception_comes_before_bare_wrong_values(self):
        groups = group([("a", "3 of 7 elements of P are wrong"),
                        ("b", "hint: P equals the result with the mask's first element over N[i - n + 1]")])
        self.assertEqual([g.names for g in groups], [["b"], ["a"]])

    def test_counts_and_plurals_do_not_split_a_cause(self):
        groups = group([("a", "read of N[-1], outside N[0..0] (1 element): a ghost cell"),
                        ("b", "read of N[-2], outside N[0..6] (7 elements): a ghost cell")])
        self.assertEqual(len(groups), 1)

    def test_different_causes_of_one_key_stay_apart(self):
        groups = group([("a", "hint: P equals x"), ("b", "hint: only row 0 was written")])
        self.assertEqual(len(groups), 2)


if __name__ == "__main__":
    unittest.main()
