"""The kernel flags make the same instrumented accesses on x86-64 and aarch64 (issue 33): the load
counts and the lines a diagnostic quotes come from them. Compiled with the build's kernel flags for
each target, 7.9's reference kernel file (float4 tiles, the accesses a target's cost model is most
tempted to reshape) calls the same instrumentation callbacks, in the same order, at the same
lines, in every function."""
import os
import re
import unittest

from halo.core import validate

from .helpers import REPO_ROOT

KERNEL = REPO_ROOT / "solutions" / "7.9-speed-of-light" / "convolution_2d_speed_of_light.cu"
_CALLBACK = re.compile(r"call void @(__sanitizer_cov_(?:load|store)\d+)\(.*!dbg !(\d+)")
_LINE = re.compile(r"^!(\d+) = !DILocation\(line: (\d+)", re.M)


def accesses(ir):
    """{function: [(callback, source line), ...]} of one module's instrumented accesses."""
    lines = dict(_LINE.findall(ir))
    out, current = {}, None
    for text in ir.splitlines():
        if text.startswith("define "):
            current = out.setdefault(re.search(r"@([\w.$]+)\(", text).group(1), [])
        elif current is not None and (m := _CALLBACK.search(text)):
            current.append((m.group(1), lines.get(m.group(2))))
    return out


# The unit suite may run where the arm64 headers are not installed yet; `./workbook check --arch
# arm64` installs them and runs this test with REQUIRED set, where a skip would be a silent pass.
REQUIRED = "HALO_REQUIRE_CROSS_HEADERS"


@unittest.skipUnless(os.path.isdir("/usr/include/aarch64-linux-gnu/c++") or os.environ.get(REQUIRED),
                     "no arm64 C++ headers (./workbook check --arch arm64 installs them and runs this test)")
class SameAccessesOnBothArchitectures(unittest.TestCase):
    def test_the_reference_float4_kernel_makes_the_same_accesses_at_the_same_lines(self):
        clang = validate.find_clang()
        self.assertTrue(clang, "clang++ is not installed: the grader's compiler is needed here")
        by_arch = {}
        for triple in ("x86_64-linux-gnu", "aarch64-linux-gnu"):
            cmd = [clang, f"--target={triple}", "-std=c++20", *validate.VALIDATION_FLAGS]
            by_arch[triple] = accesses(validate.compile_to_ir(KERNEL, cmd))
        x86, arm = by_arch.values()
        self.assertEqual(sorted(x86), sorted(arm))
        self.assertTrue(any(callback == "__sanitizer_cov_load16" for f in x86.values() for callback, _ in f),
                        "no 16-byte access: not the float4 kernel?")
        for function in x86:
            self.assertEqual(x86[function], arm[function], f"{function}: the instrumented accesses differ")


if __name__ == "__main__":
    unittest.main()
