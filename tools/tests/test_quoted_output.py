"""The quote check of the README's and lessons' grader output (dev/quoted_output.py): it finds
the marked blocks, and fails a block that is not what the run printed."""
import unittest

from halo.core.chapter_data import load_chapter
from halo.dev import quoted_output

from .helpers import REPO_ROOT

OUTPUT = """running the tests (HALO_SEED=1 replays these inputs)...

FAILED 7.2 basic-1d / correct / the book's 3rd edition example (and 14 more tests failing the same way)
    launch with Width = 7, Mask_Width = 5, 256 threads per block:
    out-of-bounds access: read of N[-2]
    also: 7.2 basic-1d / correct / exercise 2
section  title  tests
7.2      1D     0/15
"""


class Quotes(unittest.TestCase):
    def test_lines_of_the_output_in_its_order_are_a_quote(self):
        block = ["FAILED 7.2 basic-1d / correct / the book's 3rd edition example (and 14 more tests failing the same way)",
                 "    launch with Width = 7, Mask_Width = 5, 256 threads per block:", "...", "7.2      1D     0/15"]
        self.assertIsNone(quoted_output.unquoted(block, OUTPUT))

    def test_a_line_never_printed_or_out_of_order_is_not(self):
        self.assertEqual(quoted_output.unquoted(["7.2      1D     0/13"], OUTPUT), "7.2      1D     0/13")
        order = ["    also: 7.2 basic-1d / correct / exercise 2", "    out-of-bounds access: read of N[-2]"]
        self.assertEqual(quoted_output.unquoted(order, OUTPUT), order[1])

    def test_the_readme_and_the_lessons_mark_their_blocks_of_output(self):
        found = quoted_output.quotes(REPO_ROOT, load_chapter(REPO_ROOT))
        pages = {path.name if path.name == "README.md" else path.parent.name for path, _l, _r, _b in found}
        self.assertIn("README.md", pages)
        self.assertIn("7.2-basic-1d", pages)
        for path, line, run, block in found:
            self.assertIn(run, quoted_output.RUNS, f"{path}:{line}")
            self.assertTrue(block, f"{path}:{line}: an empty block")


if __name__ == "__main__":
    unittest.main()
