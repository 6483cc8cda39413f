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


class LauncherCase(unittest.TestCase):
    """A folder with the generated headers, and compile(): the launcher on one kernel file."""

    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="halo-compile-test-"))
        self.addCleanup(shutil.rmtree, self.dir, True)
        generated = self.dir / "generated"
        subprocess.run([sys.executable, str(ROOT / "workbook"), "internal", "emit-header",
                        str(generated / "halo" / "chapter_data.hpp"), str(generated / "halo" / "chapter_defines.hpp")],
                       check=True, capture_output=True)
        self.generated = generated

    def compile(self, text, wrapper_prefix="", extra=(), env=None, launcher_args=(), folder="tree"):
        kernel = self.dir / folder / "kernel.cu"
        kernel.parent.mkdir(exist_ok=True)
        kernel.write_text(text)
        wrapper = self.dir / "wrapper.cpp"
        wrapper.write_text(wrapper_prefix + '#include "halo/cpu/cuda_dialect.hpp"\n#include "halo/chapter_defines.hpp"\n'
                           f'#include "{kernel}"\n')
        out = self.dir / "obj" / "kernel.o"
        out.parent.mkdir(exist_ok=True)
        # -S, as the build starts it (grader/cmake/HaloSections.cmake): the standard library only.
        cmd = [sys.executable, "-S", str(LAUNCHER), "--kernel-file", str(kernel), *launcher_args, "--", CLANG,
               "-std=c++20", f"-I{ROOT / 'grader' / 'include'}", f"-I{self.generated}", f"-I{kernel.parent}", "-O1", "-g",
               "-fsanitize-coverage=func,trace-loads,trace-stores", "-fno-builtin-memset",
               "-fno-builtin-memcpy", "-fno-builtin-memmove", *extra, "-o", str(out), "-c", str(wrapper)]
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=self.dir, env=env)
        return p, kernel, out


@unittest.skipUnless(CLANG, "clang++ is not installed")
class CompileSandboxed(LauncherCase):

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

    def test_a_file_only_the_ir_refuses_leaves_no_object(self):
        # The object is generated while the IR is validated: a refusal there must take it away,
        # or the build would link code that was never vouched for.
        p, kernel, out = self.compile("__global__ void k(const long double* N, float* P) {\n  P[0] = N[0];\n}\n")
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn(f"{kernel}:2: error:", p.stdout)
        self.assertIn("a 10-byte load", p.stdout)
        self.assertFalse(out.exists())

    def test_the_grader_s_headers_are_precompiled_once_for_every_kernel_folder(self):
        pch_dir = self.dir / "build" / "kernel-headers-pch"
        for folder in ("tree", "another-section"):
            p, _, out = self.compile(KERNEL, launcher_args=("--pch-dir", str(pch_dir)), folder=folder)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertTrue(out.exists())
            self.assertEqual(len(list(pch_dir.glob("*.pch"))), 1, "one header for both folders")

    def test_a_stale_precompiled_header_is_dropped_and_the_file_compiles(self):
        pch_dir = self.dir / "build" / "kernel-headers-pch"
        self.compile(KERNEL, launcher_args=("--pch-dir", str(pch_dir)))
        pch = next(pch_dir.glob("*.pch"))
        pch.write_bytes(b"not a precompiled header")  # as one made before a header changed reads to clang
        p, _, out = self.compile(KERNEL, launcher_args=("--pch-dir", str(pch_dir)))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertTrue(out.exists())
        self.assertFalse(pch.exists() and pch.read_bytes() == b"not a precompiled header")

    def test_a_compile_error_reads_the_same_with_the_headers_precompiled(self):
        broken = KERNEL.replace("2.0f * N[i]", "2.0f * N[i] +")
        plain, _, _ = self.compile(broken)
        pch_dir = self.dir / "build" / "kernel-headers-pch"
        self.compile(KERNEL, launcher_args=("--pch-dir", str(pch_dir)))  # the header made
        precompiled, _, _ = self.compile(broken, launcher_args=("--pch-dir", str(pch_dir)))
        self.assertEqual(plain.returncode, 1)
        self.assertIn("error: expected expression", plain.stdout)
        self.assertEqual((precompiled.returncode, precompiled.stdout), (plain.returncode, plain.stdout))

    def test_the_object_checks_the_alignment_of_float4_accesses_and_of_nothing_else(self):
        float4 = ("__global__ void k(const float* N, float* P) {\n"
                  "  const float4 v = *reinterpret_cast<const float4*>(N + 4 * threadIdx.x);\n"
                  "  *reinterpret_cast<float4*>(P + 4 * threadIdx.x) = v;\n}\n")
        aligned_4 = ("typedef float four __attribute__((ext_vector_type(4), aligned(4)));\n"
                     + float4.replace("float4", "four"))
        for text, checked in ((float4, True), (aligned_4, False), (KERNEL, False)):
            p, _, out = self.compile(text)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            undefined = subprocess.run(["nm", "-u", str(out)], capture_output=True, text=True).stdout
            for name in ("__halo_check_aligned16_load", "__halo_check_aligned16_store"):
                self.assertEqual(name in undefined, checked, f"{name} in the object of:\n{text}")

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

    @unittest.skipUnless(os.path.isdir("/usr/include/aarch64-linux-gnu/c++"),
                         "no arm64 C++ headers (./workbook check --arch arm64 installs them)")
    def test_a_cross_compile_makes_an_object_for_the_target(self):
        p, _, out = self.compile(KERNEL, extra=["--target=aarch64-linux-gnu"])
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        machine = int.from_bytes(out.read_bytes()[18:20], "little")  # ELF e_machine
        self.assertEqual(machine, 183, "the kernel object is not AArch64 (EM_AARCH64 = 183)")


class CodegenCommand(unittest.TestCase):
    """The object is made from the validated IR by a second compiler run: it must be for the same
    machine as the compile CMake asked for, or a cross build links an x86-64 kernel into an
    aarch64 program."""

    def test_the_target_and_codegen_options_are_kept(self):
        from halo.core import compile_sandboxed
        args = ["/usr/bin/clang++", "--target=aarch64-linux-gnu", "-I/x", "-O1", "-g", "-fPIE", "-MD", "-MF", "d.d",
                "-mllvm", "-some-option", "-march=armv8-a", "-fsanitize-coverage=func", "-o", "k.o", "-c", "k.cpp"]
        cmd = compile_sandboxed._codegen_command(args, "k.ll")
        self.assertEqual(cmd, ["/usr/bin/clang++", "--target=aarch64-linux-gnu", "-fPIE", "-mllvm", "-some-option",
                               "-march=armv8-a", "-O1", "-Xclang", "-disable-llvm-passes", "-c", "k.ll", "-o", "k.o"])

    def test_the_two_word_target_is_kept(self):
        from halo.core import compile_sandboxed
        cmd = compile_sandboxed._codegen_command(["clang++", "-target", "aarch64-linux-gnu", "-O2", "-o", "k.o",
                                                  "-c", "k.cpp"], "k.ll")
        self.assertEqual(cmd[:3], ["clang++", "-target", "aarch64-linux-gnu"])


if __name__ == "__main__":
    unittest.main()
