"""A compile error under a name the grader defines as a macro says so (issue 36, item 1): clang
itself says only `expected unqualified-id` under `constexpr int TILE_SIZE = 4;`."""
import subprocess
import tempfile
import unittest
from pathlib import Path

from halo.core import cpp_header, results, validate
from halo.core.chapter_data import load_chapter
from tests.helpers import REPO_ROOT


@unittest.skipUnless(validate.find_clang(), "clang++ is not installed")
class GraderMacroClash(unittest.TestCase):
    def compile(self, source):
        """clang's own output for a kernel file with the grader's defines pre-included, as every
        build of a kernel file has them."""
        with tempfile.TemporaryDirectory() as tmp:
            defines = Path(tmp) / "chapter_defines.hpp"
            defines.write_text(cpp_header.emit_defines(load_chapter(REPO_ROOT)))
            kernel = Path(tmp) / "kernel.cu"
            kernel.write_text(source)
            run = subprocess.run([validate.find_clang(), "-x", "c++", "-fsyntax-only", "-include", str(defines),
                                  str(kernel)], capture_output=True, text=True)
            return run.stderr

    def test_an_own_constant_named_like_the_grader_macro_is_explained(self):
        errors = results.compiler_errors(self.compile("constexpr int TILE_SIZE = 4;\nint f() { return TILE_SIZE; }\n"))
        self.assertIn("expected unqualified-id", "\n".join(errors))
        value = load_chapter(REPO_ROOT).defines["TILE_SIZE"][0]
        note = [line for line in errors if line.startswith("note: TILE_SIZE is the grader's macro")]
        self.assertEqual(len(note), 1, errors)
        self.assertIn(f"(#define TILE_SIZE {value}, from section 7.4)", note[0])
        self.assertIn('#pragma push_macro("TILE_SIZE")', note[0])

    def test_an_error_with_no_grader_macro_gets_no_note(self):
        errors = results.compiler_errors(self.compile("#define MY_TILE 4\nconstexpr int MY_TILE = 4;\n"))
        self.assertTrue(errors)
        self.assertFalse([line for line in errors if "grader's macro" in line], errors)

    def test_stepping_around_the_macro_compiles(self):
        self.assertEqual(self.compile('#pragma push_macro("TILE_SIZE")\n#undef TILE_SIZE\nconstexpr int TILE_SIZE = 4;\n'
                                      'int f() { return TILE_SIZE; }\n#pragma pop_macro("TILE_SIZE")\n'), "")


if __name__ == "__main__":
    unittest.main()
