"""Solution -> stub: prompts replace solutions, code outside regions is kept, and every marker
mistake is reported as `file:line: what`. The real solutions/ tree must not leak into its stubs."""
import re
import unittest

from halo.core.regions import DEFAULT_PROMPT, RegionError, make_stub, solution_regions
from tests.helpers import REPO_ROOT

WITH_PROMPT = """\
#include <cstdio>
// a comment outside any region

__global__ void k(float* P, int n) {
  // BEGIN PROMPT
  // // 1. Which element is yours?
  //   // indented hint
  // HALO_TODO("write k");
  // END PROMPT
  // BEGIN SOLUTION
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) P[i] = 1.0f;
  // END SOLUTION
}
int after = 1;   \t
"""

WITH_PROMPT_STUB = """\
#include <cstdio>
// a comment outside any region

__global__ void k(float* P, int n) {
  // 1. Which element is yours?
    // indented hint
  HALO_TODO("write k");
}
int after = 1;   \t
"""


class Stub(unittest.TestCase):
    def test_prompt_replaces_solution(self):
        self.assertEqual(make_stub(WITH_PROMPT, "k.cu"), WITH_PROMPT_STUB)

    def test_one_level_of_comment_removed(self):
        text = ("    // BEGIN PROMPT\n"
                "    // // x\n"
                "    // y = 1;\n"
                "    //// z\n"
                "    // END PROMPT\n"
                "    // BEGIN SOLUTION\n"
                "    y = 2;\n"
                "    // END SOLUTION\n")
        self.assertEqual(make_stub(text), "    // x\n    y = 1;\n    // z\n")

    def test_default_prompt_at_marker_indentation(self):
        text = ("void f() {\n"
                "      // BEGIN SOLUTION\n"
                "  secret();\n"
                "      // END SOLUTION\n"
                "}\n")
        self.assertEqual(DEFAULT_PROMPT, 'HALO_TODO("write this part");')
        self.assertEqual(make_stub(text), 'void f() {\n      HALO_TODO("write this part");\n}\n')

    def test_tab_indentation_kept(self):
        text = "\t// BEGIN SOLUTION\n\tsecret();\n\t// END SOLUTION\n"
        self.assertEqual(make_stub(text), '\tHALO_TODO("write this part");\n')

    def test_code_outside_regions_unchanged_byte_for_byte(self):
        outside = ("#define X 1  \n"
                   "\n"
                   "\t/* block comment */\r\n"
                   "int a = 2; // trailing   \n"
                   "   \n"
                   "last line without newline")
        self.assertEqual(make_stub(outside), outside)
        # the same code around a region comes through unchanged too
        text = outside.replace("int a", "// BEGIN SOLUTION\nsecret();\n// END SOLUTION\nint a")
        self.assertEqual(make_stub(text), outside.replace("int a", DEFAULT_PROMPT + "\nint a"))

    def test_several_regions(self):
        text = ("a();\n"
                "// BEGIN SOLUTION\nx();\n// END SOLUTION\n"
                "b();\n"
                "// BEGIN PROMPT\n// // p\n// END PROMPT\n"
                "// BEGIN SOLUTION\ny();\n// END SOLUTION\n"
                "c();\n")
        self.assertEqual(make_stub(text), f"a();\n{DEFAULT_PROMPT}\nb();\n// p\nc();\n")

    def test_markers_tolerate_extra_spaces(self):
        text = "  //BEGIN   SOLUTION  \n  s();\n  //   END SOLUTION\n"
        self.assertEqual(make_stub(text), f"  {DEFAULT_PROMPT}\n")

    def test_no_regions_no_change(self):
        self.assertEqual(make_stub(""), "")
        self.assertEqual(make_stub("int x;\n"), "int x;\n")


class Errors(unittest.TestCase):
    def error(self, text, path="dir/k.cu"):
        with self.assertRaises(RegionError) as cm:
            make_stub(text, path)
        return str(cm.exception)

    def test_nested_begin(self):
        msg = self.error("int a;\n// BEGIN SOLUTION\nx();\n// BEGIN SOLUTION\ny();\n// END SOLUTION\n// END SOLUTION\n")
        self.assertTrue(msg.startswith("dir/k.cu:4: "), msg)
        self.assertIn("BEGIN SOLUTION inside the SOLUTION region opened on line 2", msg)
        self.assertIn("do not nest", msg)

    def test_prompt_inside_solution(self):
        msg = self.error("// BEGIN SOLUTION\n// BEGIN PROMPT\n// END PROMPT\n// END SOLUTION\n")
        self.assertTrue(msg.startswith("dir/k.cu:2: BEGIN PROMPT inside the SOLUTION region opened on line 1"), msg)

    def test_end_without_begin(self):
        msg = self.error("a();\nb();\n// END SOLUTION\n")
        self.assertEqual(msg, "dir/k.cu:3: END SOLUTION without a matching BEGIN SOLUTION")

    def test_end_of_the_other_kind(self):
        msg = self.error("// BEGIN SOLUTION\nx();\n// END PROMPT\n")
        self.assertEqual(msg, "dir/k.cu:3: END PROMPT without a matching BEGIN PROMPT")

    def test_never_closed(self):
        msg = self.error("a();\n\n// BEGIN SOLUTION\nx();\n")
        self.assertEqual(msg, "dir/k.cu:3: SOLUTION region is never closed")
        msg = self.error("// BEGIN PROMPT\n// // p\n")
        self.assertEqual(msg, "dir/k.cu:1: PROMPT region is never closed")

    def test_prompt_not_followed_by_solution(self):
        # code between the prompt and the solution
        msg = self.error("// BEGIN PROMPT\n// // p\n// END PROMPT\nint a;\n// BEGIN SOLUTION\n// END SOLUTION\n")
        self.assertEqual(msg, "dir/k.cu:3: a PROMPT region must be followed directly by a SOLUTION region")
        # a blank line is not "directly" either
        msg = self.error("// BEGIN PROMPT\n// END PROMPT\n\n// BEGIN SOLUTION\n// END SOLUTION\n")
        self.assertEqual(msg, "dir/k.cu:2: a PROMPT region must be followed directly by a SOLUTION region")
        # the file ends after the prompt
        msg = self.error("a();\n// BEGIN PROMPT\n// // p\n// END PROMPT\n")
        self.assertEqual(msg, "dir/k.cu:4: a PROMPT region must be followed directly by a SOLUTION region")

    def test_two_prompts_in_a_row(self):
        msg = self.error("// BEGIN PROMPT\n// END PROMPT\n// BEGIN PROMPT\n// END PROMPT\n"
                         "// BEGIN SOLUTION\n// END SOLUTION\n")
        self.assertEqual(msg, "dir/k.cu:3: two PROMPT regions in a row")

    def test_prompt_line_not_a_comment(self):
        msg = self.error("void f() {\n  // BEGIN PROMPT\n  // // ok\n  int x;\n  // END PROMPT\n"
                         "  // BEGIN SOLUTION\n  // END SOLUTION\n}\n")
        self.assertEqual(msg, "dir/k.cu:4: a line inside a PROMPT region must start with //")

    def test_default_path_in_messages(self):
        with self.assertRaises(RegionError) as cm:
            make_stub("// END SOLUTION\n")
        self.assertTrue(str(cm.exception).startswith("<text>:1: "), str(cm.exception))


class SolutionRegions(unittest.TestCase):
    def test_each_region_text(self):
        self.assertEqual(solution_regions(WITH_PROMPT), [
            "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) P[i] = 1.0f;"])
        text = ("a();\n// BEGIN SOLUTION\nx();\n\n  y();\n// END SOLUTION\nb();\n"
                "  // BEGIN SOLUTION\n  // END SOLUTION\n"
                "// BEGIN SOLUTION\nz();\n// END SOLUTION\n")
        self.assertEqual(solution_regions(text), ["x();\n\n  y();", "", "z();"])

    def test_no_regions(self):
        self.assertEqual(solution_regions("int a;\n// BEGIN PROMPT\n// // p\n// END PROMPT\n"), [])


BRACES_ONLY = re.compile(r"[{}();\s]*")
SOLUTION_MARKER = re.compile(r"^\s*//\s*(BEGIN|END)\s+SOLUTION\s*$")


def _given_lines(text):
    """Stripped lines a student is given anyway: everything outside SOLUTION regions, and the
    prompt lines with one level of `//` taken off."""
    given, inside = set(), False
    for line in text.splitlines():
        if SOLUTION_MARKER.match(line):
            inside = not inside
            continue
        if not inside:
            s = line.strip()
            given.add(s)
            given.add(re.sub(r"^// ?", "", s).strip())
    return given


class RealSolutions(unittest.TestCase):
    def test_no_solution_code_leaks_into_stubs(self):
        files = sorted((REPO_ROOT / "solutions").rglob("*.cu"))
        self.assertTrue(files, "no .cu files under solutions/")
        for path in files:
            rel = str(path.relative_to(REPO_ROOT))
            with self.subTest(file=rel):
                text = path.read_text()
                regions = solution_regions(text)
                self.assertTrue(regions, f"{rel} has no SOLUTION region")
                stub = make_stub(text, rel)
                stub_lines = {line.strip() for line in stub.splitlines()}
                given = _given_lines(text)
                for region in regions:
                    for line in region.splitlines():
                        s = line.strip()
                        if not s or BRACES_ONLY.fullmatch(s) or s in given:
                            continue
                        self.assertFalse(s in stub_lines, f"solution line leaks into the stub of {rel}: {s!r}")
                self.assertIn("HALO_TODO(", stub, f"the stub of {rel} has no HALO_TODO marker")


if __name__ == "__main__":
    unittest.main()
