"""`extern "C"` before kernels is taken out for the compile, lines and columns kept; a block that
declares anything but kernels is left for the validator to name."""
import unittest

from halo.core import extern_c, kernel_overlay


class ExternC(unittest.TestCase):
    def test_before_one_kernel(self):
        text = 'extern "C" __launch_bounds__(256) __global__ void k(float* p) { p[0] = 1; }\n'
        out = extern_c.rewritten(text)
        self.assertEqual(out, " " * len('extern "C" ') + text[len('extern "C" '):])

    def test_a_block_of_kernels_keeps_its_lines(self):
        text = 'extern "C" {\n__global__ void k(float* p) { if (p) { p[0] = 1; } }\n__global__ void j();\n}\n'
        out = extern_c.rewritten(text)
        self.assertNotIn('extern "C"', out)
        self.assertEqual(out.count("\n"), text.count("\n"))
        self.assertEqual(out.count("{"), text.count("{") - 1)
        self.assertEqual(out.count("}"), text.count("}") - 1)

    def test_what_is_not_a_kernel_keeps_its_c_name(self):
        for text in ('extern "C" {\n__global__ void k(float* p) {}\n__device__ int puts(const char*) { return 0; }\n}\n',
                     'extern "C" {\n__global__ void k(float* p) {}\nint environ_like;\n}\n',
                     'extern "C" int puts(const char*);\n__global__ void k(float* p) {}\n'):
            with self.subTest(text):
                self.assertIsNone(extern_c.rewritten(text))

    def test_comments_and_strings_are_not_code(self):
        text = '// extern "C" __global__ void k();\nconst char* s = "extern \\"C\\" __global__";\n'
        self.assertIsNone(extern_c.rewritten(text))

    def test_the_overlay_applies_it_with_extern_shared(self):
        text = 'extern __shared__ float tile[];\nextern "C" __global__ void k(float* p) { p[0] = tile[0]; }\n'
        out = kernel_overlay.rewritten(text)
        self.assertIn("HALO_EXTERN_SHARED(float, tile);", out)
        self.assertNotIn('extern "C"', out)


if __name__ == "__main__":
    unittest.main()
