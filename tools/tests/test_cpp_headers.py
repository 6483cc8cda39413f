"""The two generated C++ headers must work together: kernel files get the #defines, test files
the constants, and a program that needs both (the GPU agreement program) includes both."""
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from halo.core.chapter_data import load_chapter
from halo.core.cpp_header import emit_defines, emit_header

from .helpers import REPO_ROOT


@unittest.skipUnless(shutil.which("clang++"), "clang++ is not installed")
class BothHeaders(unittest.TestCase):
    def test_defines_then_data_compile_and_agree(self):
        chapter = load_chapter(REPO_ROOT)
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "defines.hpp").write_text(emit_defines(chapter))
            Path(tmp, "data.hpp").write_text(emit_header(chapter))
            checks = "\n".join(f"static_assert({name} == {value});" for name, (value, _) in chapter.defines.items())
            Path(tmp, "both.cpp").write_text(f'#include "defines.hpp"\n#include "data.hpp"\n{checks}\nint main() {{}}\n')
            p = subprocess.run(["clang++", "-std=c++20", "-fsyntax-only", "both.cpp"], cwd=tmp,
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue(chapter.defines)  # the check above checked something


if __name__ == "__main__":
    unittest.main()
