"""A learner's own declaration of a book name: found where it is declared, never where it is only
used; the header leaves the grader's macro out for it; the section's note says the value is fixed."""
import subprocess
import tempfile
import unittest
from pathlib import Path

from halo.core import chapter_data, cpp_header, gpu_kernel_source, own_names, validate

NAMES = ("TILE_SIZE", "MAX_MASK_WIDTH", "O_TILE_WIDTH")

DECLARED = {
    "constexpr int TILE_SIZE = 4;": 4,
    "const size_t TILE_SIZE = 32;": 32,
    "static constexpr unsigned int TILE_SIZE{128u};": 128,
    "#define TILE_SIZE 64": 64,
    "  #  define TILE_SIZE (64)": 64,
    "enum { BLOCK = 1, TILE_SIZE = 8 };": 8,
    "enum Sizes : int { TILE_SIZE };": None,
    "template <int TILE_SIZE> __global__ void k(float* p);": None,
    "__global__ void k(float* p, int TILE_SIZE) {}": None,
}
ONLY_USED = [
    "__shared__ float N_ds[TILE_SIZE + MAX_MASK_WIDTH - 1];",
    "int start = blockIdx.x * TILE_SIZE;",
    "return TILE_SIZE;",
    "switch (n) { case TILE_SIZE: break; }",
    "if (threadIdx.x < TILE_SIZE) {}",
    "// constexpr int TILE_SIZE = 4;",
    "/* const int TILE_SIZE = 4; */",
    'const char* s = "int TILE_SIZE = 3;";',
    "#ifndef TILE_SIZE",
    "#undef TILE_SIZE",
    '#pragma push_macro("TILE_SIZE")',
]


class Declared(unittest.TestCase):
    def test_declarations_are_found_with_their_value(self):
        for line, value in DECLARED.items():
            with self.subTest(line):
                self.assertEqual(own_names.declared(line, NAMES), {"TILE_SIZE": value})

    def test_uses_are_not_declarations(self):
        for line in ONLY_USED:
            with self.subTest(line):
                self.assertEqual(own_names.declared(line, NAMES), {})


class Header(unittest.TestCase):
    def setUp(self):
        self.chapter = chapter_data.load_chapter(Path(__file__).resolve().parents[2])
        self.header = cpp_header.emit_defines(self.chapter)

    def test_every_define_can_be_left_out(self):
        defines = own_names.header_defines(self.header)
        self.assertEqual(set(defines), set(self.chapter.defines))
        for name in defines:
            self.assertIn(f"!defined({own_names.FLAG_PREFIX}{name})", self.header)

    def test_a_file_with_its_own_tile_size_compiles_and_keeps_the_other_macros(self):
        clang = validate.find_clang()
        self.assertIsNotNone(clang, "clang++ is part of the toolchain")
        with tempfile.TemporaryDirectory() as d:
            (Path(d) / "halo").mkdir()
            (Path(d) / "halo" / "chapter_defines.hpp").write_text(self.header)
            kernel = Path(d) / "k.cpp"
            kernel.write_text('#include "halo/chapter_defines.hpp"\nconstexpr int TILE_SIZE = 4;\n'
                              "static_assert(TILE_SIZE == 4 && MAX_MASK_WIDTH > 0);\n")
            flags = own_names.flags_for_files([kernel], own_names.header_in([d]))
            self.assertEqual(flags, [f"-D{own_names.FLAG_PREFIX}TILE_SIZE"])
            ok = subprocess.run([clang, "-std=c++20", "-fsyntax-only", f"-I{d}", *flags, str(kernel)],
                                capture_output=True, text=True)
            self.assertEqual(ok.returncode, 0, ok.stderr)
            without = subprocess.run([clang, "-std=c++20", "-fsyntax-only", f"-I{d}", str(kernel)],
                                     capture_output=True, text=True)
            self.assertIn("expected unqualified-id", without.stderr)  # the control: the macro is in the way

    def test_the_gpu_copy_defines_the_flag_before_the_header_and_keeps_lines(self):
        with tempfile.TemporaryDirectory() as d:
            defines = Path(d) / "chapter_defines.hpp"
            defines.write_text(self.header)
            kernel = Path(d) / "k.cu"
            kernel.write_text('constexpr int TILE_SIZE = 4;\nextern "C" __global__ void k(float* p) {}\n')
            text = gpu_kernel_source.source(kernel, Path(d) / "cuda_dialect.hpp", defines)
            lines = text.splitlines()
            own = lines.index(f"#define {own_names.FLAG_PREFIX}TILE_SIZE 1")
            self.assertLess(own, next(k for k, line in enumerate(lines) if "chapter_defines.hpp" in line))
            body = lines[next(k for k, line in enumerate(lines) if line.startswith("#line 1")) + 1:]
            self.assertEqual(body[0], "constexpr int TILE_SIZE = 4;")
            self.assertTrue(body[1].startswith("           __global__ void k"))


class SectionNote(unittest.TestCase):
    DEFINES = {"TILE_SIZE": ("256", "7.4"), "MAX_MASK_WIDTH": ("16", "7.3")}

    def test_the_section_that_fixes_the_name_says_so_with_both_values(self):
        [note] = own_names.note_for_section("constexpr int TILE_SIZE = 128;", self.DEFINES, "7.4")
        self.assertIn("your file declares its own TILE_SIZE (128)", note)
        self.assertIn("section 7.4 fixes TILE_SIZE at 256", note)
        self.assertIn("may fail them", note)

    def test_the_same_value_and_other_sections_say_less_or_nothing(self):
        [same] = own_names.note_for_section("constexpr int TILE_SIZE = 256;", self.DEFINES, "7.4")
        self.assertNotIn("may fail", same)
        self.assertEqual(own_names.note_for_section("constexpr int TILE_SIZE = 128;", self.DEFINES, "7.2"), [])


if __name__ == "__main__":
    unittest.main()
