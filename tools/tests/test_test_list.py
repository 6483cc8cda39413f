"""The test list read from a section's sources: backend blocks, #else, and a refusal of any
other condition around a TEST_CASE (the list must never silently disagree with the program)."""
import shutil
import tempfile
import unittest
from pathlib import Path

from halo.core import test_list

SOURCE = '''TEST_CASE("7.2 a / correct / both") { }
#if defined(HALO_BACKEND_CPU)
TEST_CASE("7.2 a / loads / cpu only") { }
#else
TEST_CASE("7.2 a / loads / cuda only") { }
#endif
#if defined(HALO_BACKEND_CUDA)  // the GPU's own
TEST_CASE("7.2 a / loads / cuda, commented") { }
#endif
// TEST_CASE("commented out")
TEST_CASE("7.2 a / correct / width 1, ghost cells") { }
'''


class TestList(unittest.TestCase):
    def write(self, text):
        folder = tempfile.mkdtemp(prefix="halo-test-list-")
        self.addCleanup(shutil.rmtree, folder, True)
        f = Path(folder) / "t.cpp"
        f.write_text(text)
        return f

    def test_each_backend_gets_its_own_tests(self):
        f = self.write(SOURCE)
        self.assertEqual(test_list.test_names(f, "cpu"),
                         ["7.2 a / correct / both", "7.2 a / loads / cpu only", "7.2 a / correct / width 1, ghost cells"])
        self.assertEqual(test_list.test_names(f, "cuda"),
                         ["7.2 a / correct / both", "7.2 a / loads / cuda only", "7.2 a / loads / cuda, commented",
                          "7.2 a / correct / width 1, ghost cells"])

    def test_a_changed_source_is_read_again(self):
        # Read once a process while the file stays the same: a change (here its size and time) is
        # a new list, and a caller's changes to a list never reach the next caller's.
        f = self.write(SOURCE)
        first = test_list.test_names(f, "cpu")
        first.append("not a test")
        self.assertEqual(len(test_list.test_names(f, "cpu")), 3)
        f.write_text(SOURCE + 'TEST_CASE("7.2 a / correct / added") { }\n')
        self.assertEqual(test_list.test_names(f, "cpu")[-1], "7.2 a / correct / added")

    def test_another_condition_around_a_test_is_refused(self):
        f = self.write('#if SOMETHING\nTEST_CASE("x") { }\n#endif\n')
        with self.assertRaisesRegex(test_list.TestListError, r"t\.cpp:2: a TEST_CASE under a condition"):
            test_list.test_names(f, "cpu")

    def test_a_test_the_list_cannot_read_is_refused(self):
        f = self.write('TEST_CASE(NAME_MACRO) { }\n')
        with self.assertRaisesRegex(test_list.TestListError, "cannot read"):
            test_list.test_names(f, "cpu")

    def test_every_section_lists_tests(self):
        root = Path(__file__).resolve().parents[2]
        for source in sorted((root / "grader" / "sections").glob("*/*.cpp")):
            self.assertTrue(test_list.test_names(source, "cpu"), source)

    def test_the_chapter_listing_is_every_sections_list_in_one(self):
        """What CMake reads at configure time (`internal sections --tests`, one Python process)
        is, section by section and backend by backend, what each of its sources lists."""
        import io
        from contextlib import redirect_stdout
        from halo import cli
        from halo.core.chapter_data import load_chapter
        root = Path(__file__).resolve().parents[2]
        out = io.StringIO()
        with redirect_stdout(out):
            self.assertEqual(cli.main(root, ["internal", "sections", "--tests", "cpu", "--tests", "cuda"]), 0)
        listed = [line.split("|", 3)[1:] for line in out.getvalue().splitlines() if line.startswith("test|")]
        for s in load_chapter(root).sections:
            sources = sorted((root / "grader" / "sections" / s.folder).glob("*.cpp"))
            for backend in ("cpu", "cuda"):
                want = [n for f in sources for n in test_names_or_none(f, backend, s.kernels)]
                self.assertEqual([n for sid, b, n in listed if sid == s.id and b == backend], want, (s.id, backend))
        self.assertTrue(any(b == "cuda" for _, b, _ in listed))

    def test_the_sections_alone_list_no_tests(self):
        import io
        from contextlib import redirect_stdout
        from halo import cli
        out = io.StringIO()
        with redirect_stdout(out):
            cli.main(Path(__file__).resolve().parents[2], ["internal", "sections"])
        self.assertIn("section|7.2|", out.getvalue())
        self.assertNotIn("test|", out.getvalue())


def test_names_or_none(source, backend, kernels):
    return test_list.test_names(source, backend) if kernels else []


if __name__ == "__main__":
    unittest.main()
