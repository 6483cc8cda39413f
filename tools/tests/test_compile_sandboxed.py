"""The compiler launcher of kernel files: a clean file compiles inside the sandbox, a file with a
construct the instrumentation cannot see is refused with the message docs/grader.md quotes, and
the compiler sees nothing of the checkout but what it compiles."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import unittest.mock
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = ROOT / "tools" / "halo" / "core" / "compile_sandboxed.py"
CLANG = shutil.which("clang++")

KERNEL = """__global__ void k(const float* N, float* P, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) P[i] = 2.0f * N[i];
}
"""
HIDDEN = """#define HIDE __attribute__((no_sanitize("coverage")))
__global__ HIDE void k(const float* N, float* P, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) P[i] = 2.0f * N[i];
}
"""


@unittest.skipUnless(CLANG, "clang++ is not installed")
class CompileSandboxed(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="halo-compile-test-"))
        self.addCleanup(shutil.rmtree, self.dir, True)
        generated = self.dir / "generated"
        subprocess.run([sys.executable, str(ROOT / "workbook"), "internal", "emit-header",
                        str(generated / "halo" / "chapter_data.hpp"), str(generated / "halo" / "chapter_defines.hpp")],
                       check=True, capture_output=True)
        self.generated = generated

    def compile(self, text, wrapper_prefix=""):
        kernel = self.dir / "tree" / "kernel.cu"
        kernel.parent.mkdir(exist_ok=True)
        kernel.write_text(text)
        wrapper = self.dir / "wrapper.cpp"
        wrapper.write_text(wrapper_prefix + '#include "halo/cpu/cuda_dialect.hpp"\n#include "halo/chapter_defines.hpp"\n'
                           f'#include "{kernel}"\n')
        out = self.dir / "obj" / "kernel.o"
        out.parent.mkdir(exist_ok=True)
        cmd = [sys.executable, str(LAUNCHER), "--kernel-file", str(kernel), "--", CLANG, "-std=c++20",
               f"-I{ROOT / 'grader' / 'include'}", f"-I{self.generated}", "-O1", "-g",
               "-fsanitize-coverage=func,trace-loads,trace-stores", "-fno-builtin-memset",
               "-fno-builtin-memcpy", "-fno-builtin-memmove", "-o", str(out), "-c", str(wrapper)]
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=self.dir)
        return p, kernel, out

    def test_a_clean_kernel_compiles(self):
        p, _, out = self.compile(KERNEL)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertTrue(out.exists())

    def test_hidden_instrumentation_is_refused_as_the_docs_say(self):
        p, kernel, out = self.compile(HIDDEN)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertFalse(out.exists())
        quoted = re.search(r"^\S+convolution_1d_basic\.cu:10: (error: .*)$",
                           (ROOT / "docs" / "grader.md").read_text(), re.M).group(1)
        want = quoted.replace("line 10", "line 1")
        self.assertIn(f"{kernel}:1: {want}", p.stdout)

    def test_the_compiler_sees_nothing_of_the_checkout(self):
        # The source layer refuses such includes already; a -I of the checkout's root would still
        # not make the README visible inside the sandbox, which is what this checks.
        readme = ROOT / "README.md"
        kernel = self.dir / "tree" / "kernel.cu"
        p, _, _ = self.compile(KERNEL)
        self.assertEqual(p.returncode, 0)
        from halo.core import sandbox
        if sandbox.probe()[0] != "bubblewrap":
            self.skipTest("bubblewrap cannot start here")
        status, output = sandbox.run(["/bin/cat", str(readme)], read_only=[str(kernel)], writable=[str(self.dir)])
        self.assertNotEqual(status, 0)
        self.assertNotIn("Halo", output)

    @unittest.skipUnless(os.geteuid() == 0, "only root drops privileges")
    def test_root_without_bubblewrap_compiles_as_an_unprivileged_user(self):
        os.chmod(self.dir, 0o755)  # the fallback reads inputs in place: they must be readable by others
        secret = self.dir / "root-only.h"
        secret.write_text("#error root's file was read\n")
        os.chmod(secret, 0o600)
        with unittest.mock.patch.dict(os.environ, {"HALO_SANDBOX": "rlimits-only"}):
            p, _, out = self.compile(KERNEL)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertEqual(out.stat().st_uid, 0)  # written by nobody into a folder of its own, copied back
            # The validator reads kernel files only; the wrapper stands for anything else compiled.
            p, _, out = self.compile(KERNEL, wrapper_prefix=f'#include "{secret}"\n')
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("Permission denied", p.stdout)
        self.assertNotIn("root's file was read", p.stdout)
        self.assertNotIn("halo-sandbox-", p.stdout)  # messages name the real paths


if __name__ == "__main__":
    unittest.main()
