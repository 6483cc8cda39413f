"""Kernel-file validation (halo.core.validate): the reference kernels and ordinary learner code pass,
hostile code is refused with the right construct and line, by the source layer where it can see
the construct and by the IR layer where macros hide it."""
import io
import os
import re
import shutil
import tempfile
import textwrap
import unittest
import unittest.mock
from concurrent.futures import ThreadPoolExecutor
from contextlib import redirect_stdout
from pathlib import Path

from halo.core import validate
from tests.helpers import REPO_ROOT, stubs

needs_clang = unittest.skipUnless(validate.find_clang(), "clang++ is not installed")
# The committed stubs, never the working tree's exercises/: a student's edit is not the project's.
KERNEL_FILES = sorted(REPO_ROOT.glob("solutions/*/*.cu")) + sorted(stubs().glob("*/*.cu"))
MESSAGE = re.compile(r"^(.+) is not allowed in a kernel file: line (\d+) — \S.*$")

# Learner code that the CPU backend compiles: clean at both layers.
LEGITIMATE = {
    # With -fno-builtin-memset (the kernel flags) this stays a loop of instrumented stores.
    "a zeroing loop": "__global__ void k(float* P, int n) {\n  for (int i = 0; i < n; ++i) P[i] = 0.0f;\n}",
    "templates, __restrict__, #pragma unroll, __launch_bounds__, __forceinline__": """
        template <int R, typename T>
        __device__ __forceinline__ T clampi(T v, T lo, T hi) { return v < lo ? lo : (v > hi ? hi : v); }

        template <int RADIUS>
        __global__ void __launch_bounds__(256) conv(const float* __restrict__ N, float* __restrict__ P, int width) {
          const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
          if (i >= unsigned(width)) return;
          float sum = 0.0f;
        #pragma unroll
          for (int j = -RADIUS; j <= RADIUS; ++j) sum += N[clampi<RADIUS>(int(i) + j, 0, width - 1)];
          P[i] = sum;
        }
        template __global__ void conv<2>(const float* __restrict__, float* __restrict__, int);
        void (*conv2)(const float*, float*, int) = conv<2>;
        """,
    "a constant of one's own named like the grader's macro, between push_macro and pop_macro": """
        #pragma push_macro("TILE_SIZE")
        #undef TILE_SIZE
        constexpr int TILE_SIZE = 4;
        __global__ void k(float* P) { P[threadIdx.x] = float(TILE_SIZE); }
        #pragma pop_macro("TILE_SIZE")
        """,
    "__shared__, __constant__, constexpr, #define, static __device__, printf, assert, atomics, math": r"""
        #include <cstdio>
        #include <cmath>
        #include <cstdint>
        #include <climits>
        #include <cfloat>
        #include <cassert>
        #define TILE 128
        #define IDX(r, c, w) ((r) * (w) + (c))
        constexpr int kRadius = 2;
        static constexpr float kScale = 0.5f;
        __constant__ float M_c[2 * kRadius + 1];
        static __device__ int helper(int a, int b) { return a < b ? a : b; }
        __device__ __noinline__ float square(float x) { return x * x; }
        __global__ void k(const float* N, float* P, size_t n) {
          __shared__ float tile[TILE];
          __shared__ int flag;
          const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
          tile[threadIdx.x] = i < n ? N[i] : 0.0f;
          if (threadIdx.x == 0) flag = 0;
          __syncthreads();
          if (i >= n) return;
          float acc[4] = {};
          float w[3] = {1.0f, 2.0f, 1.0f};
          for (int j = 0; j < 4; ++j) acc[j & 3] += tile[(threadIdx.x + j) % TILE] * w[j % 3] * M_c[j];
          float v = fminf(fmaxf(acc[0] + acc[1], -FLT_MAX), FLT_MAX) + sqrtf(fabsf(acc[2])) + expf(acc[3]) * kScale;
          v += std::min(1.0f, v) + std::max(0.0f, v) + float(helper(int(i), INT_MAX)) + square(v) + floorf(v);
          if (i == 0) printf("block %u thread %u: %f\n", blockIdx.x, threadIdx.x, v);
          if (i == 1) printf("hello\n");
          assert(n > 0);
          atomicAdd(&flag, 1);
          P[IDX(0, i, 0)] = v;
        }
        cudaError_t upload(const float* h) {
          cudaError_t err = cudaMemcpyToSymbol(M_c, h, sizeof(float) * (2 * kRadius + 1));
          if (err != cudaSuccess) printf("%s\n", cudaGetErrorString(err));
          return err;
        }
        """,
    "float4 and unsigned indices": """
        __device__ float4 load4(const float* p, unsigned i) { return *reinterpret_cast<const float4*>(p + 4 * i); }
        __global__ void k(const float* N, float* P, unsigned n) {
          for (unsigned i = threadIdx.x; i < n / 4; i += blockDim.x) {
            float4 v = load4(N, i);
            v.x *= 2.0f;
            *reinterpret_cast<float4*>(P + 4 * i) = v;
          }
        }
        """,
    "structs, lambdas, variables named like library functions": """
        struct Pair { float a, b; };
        __device__ Pair make(float a) { return Pair{a, a + 1}; }
        __global__ void k(const float* N, float* P, int n) {
          auto add = [](float x, float y) { return x + y; };
          int i = blockIdx.x * blockDim.x + threadIdx.x;
          if (i < n) { Pair p = make(N[i]); P[i] = add(p.a, p.b); }
          int read = i, write = 0, halo = 2;
          bool exit = false;
          (void)read; (void)write; (void)exit; (void)halo;
        }
        """,
    "helpers of your own called read and write": """
        __device__ float read(const float* p, int i, int n) { return (i >= 0 && i < n) ? p[i] : 0.0f; }
        __device__ void write(float* p, int i, float v) { p[i] = v; }
        __global__ void k(const float* N, float* P, int n) {
          int i = blockIdx.x * blockDim.x + threadIdx.x;
          if (i < n) write(P, i, read(N, i - 1, n) + read(N, i + 1, n));
        }
        """,
    "local struct copies and a 12-byte struct read field by field": """
        struct V3 { float x, y, z; };
        __global__ void k(const float* N, float* P) {
          V3 a = {N[0], N[1], N[2]};
          V3 b = a;
          V3 c[2] = {a, b};
          V3 d = *(const V3*)N;  // SROA makes this three 4-byte loads: all instrumented
          P[threadIdx.x] = c[threadIdx.x & 1].y + b.z + d.x + d.y + d.z;
        }
        """,
    "function pointers to functions of the file": """
        __device__ float twice(float x) { return 2 * x; }
        __device__ float thrice(float x) { return 3 * x; }
        __global__ void k(const float* N, float* P, int which) {
          float (*f)(float) = which ? twice : thrice;
          P[threadIdx.x] = f(N[threadIdx.x]);
          constexpr float (*table[2])(float) = {twice, thrice};
          P[threadIdx.x + 1] = table[which & 1](N[0]);
        }
        """,
    "out-of-line constructor and destructor of a local object": """
        struct X { X(); ~X(); float v; };
        X::X() : v(0) {}
        X::~X() { v = 1; }
        __global__ void k(float* p) { X x; p[0] = x.v; }
        """,
    # extern "C" before a kernel is taken out for the compile (extern_c.py); a book name of the
    # learner's own loses the grader's macro (own_names.py): both compile as nvcc compiles them.
    'extern "C" kernels and a TILE_SIZE of ones own': """
        constexpr int TILE_SIZE = 64;
        extern "C" __global__ void k(float* p) { p[threadIdx.x % TILE_SIZE] = 1.0f; }
        extern "C" {
        __global__ void j(float* p) { if (threadIdx.x == 0) { p[0] = 2.0f; } }
        }
        """,
    "the given header and HALO_TODO": """
        #include "halo/given/constant_mask_1d.cuh"
        __global__ void k(const float* N, float* P, int n) {
          HALO_TODO("write the kernel");
          P[threadIdx.x] = N[threadIdx.x] * M[0];
        }
        """,
}

# CUDA that learners write and the source layer must not refuse.
LEGITIMATE_SOURCE_ONLY = {
    "extern __shared__, __ldg, min, max": """
        extern __shared__ float tile[];
        __global__ void k(const float* __restrict__ N, float* P, int n) {
          int i = blockIdx.x * blockDim.x + threadIdx.x;
          tile[threadIdx.x] = __ldg(&N[min(i, n - 1)]);
          __syncthreads();
          P[i] = max(tile[threadIdx.x], 0.0f);
        }
        """,
    "comments and strings that mention forbidden things": r"""
        // asm volatile("nop"); __attribute__((section("x"))) exit(1); #include <stdlib.h>
        /* memcpy(a, b, 12); getenv("HOME"); halo::cpu::record_error */
        __global__ void k(float* p) {
          printf("asm exit(1) memcpy __sanitizer_cov_load4 halo::x #pragma GCC optimize\n");
          p[0] = 1;  // environ
        }
        """,
}

CALL = """
__global__ void k(const float* N, float* P) {{
  {};
}}
"""
STRUCT_COPY = """
struct V3 { float x, y, z; };
__global__ void k(const float* N, V3* P) {
  V3 v = *(const V3*)N;
  P[threadIdx.x] = v;
}
"""
BLOCK_COPIES = {"memcpy", "memmove", "a 12-byte load", "a 12-byte store"}
STATIC = "a static object with a constructor or destructor"

# (what, code, constructs any of which a finding must name, its line). Written out in the source:
# the source layer refuses each; most leave a trace in the IR as well.
WRITTEN_OUT = [
    ("inline asm", '__global__ void k(float* p) {\n  asm volatile("nop");\n}\n', {"inline asm"}, 2),
    ("asm through a macro", '#define A asm\n__global__ void k(float* p) { A("nop"); }\n', {"inline asm"}, 1),
    ("__asm__ split by a line continuation", '__global__ void k(float* p) {\n  __as\\\nm__("nop");\n}\n',
     {"inline asm"}, 2),
    ("no_sanitize(coverage)", '__attribute__((no_sanitize("coverage"))) __global__ void k(float* p) { p[0] = 1; }',
     {"the attribute no_sanitize"}, 1),
    ("[[clang::no_sanitize]]", '[[clang::no_sanitize("coverage")]] __device__ void g(float* p) { p[0] = 1; }',
     {"the attribute no_sanitize"}, 1),
    ("no_instrument_function", "__attribute__((no_instrument_function)) __device__ void f(float* p) { p[0] = 1; }",
     {"the attribute no_instrument_function"}, 1),
    ("[[gnu::constructor]]", '[[gnu::constructor]] void init() { printf("hi\\n"); }', {"the attribute constructor"}, 1),
    ("__attribute__((destructor))", '__attribute__((destructor)) void fini() { printf("bye\\n"); }',
     {"the attribute destructor"}, 1),
    ("a static object with a constructor",
     '__device__ int counter;\nstatic struct X { X() { counter = printf("hi"); } } x;', {STATIC}, 2),
    ("weak", "__attribute__((weak)) __device__ float f(float x) { return x; }", {"the attribute weak"}, 1),
    ("section", '__attribute__((section(".init_array"))) void (*hook)() = nullptr;', {"the attribute section"}, 1),
    ("visibility", '__attribute__((visibility("default"))) __device__ int g;', {"the attribute visibility"}, 1),
    ("used", "__attribute__((used)) static void keep() {}", {"the attribute used"}, 1),
    ("alias", 'extern "C" int real() { return 1; }\nextern "C" int fake() __attribute__((alias("real")));',
     {"the attribute alias"}, 2),
    ("cleanup", "__device__ void done(int*) {}\n"
                "__global__ void k(float* p) { int x __attribute__((cleanup(done))) = 1; }", {"the attribute cleanup"}, 2),
    ("__declspec", "__declspec(selectany) int x = 1;", {"__declspec"}, 1),
    ("_exit", CALL.format("_exit(0)"), {"_exit"}, 2),
    ("exit", CALL.format("exit(1)"), {"exit"}, 2),
    ("std::exit", CALL.format("std::exit(1)"), {"exit"}, 2),
    ("abort", CALL.format("abort()"), {"abort"}, 2),
    ("getenv", CALL.format('getenv("HOME")'), {"getenv"}, 2),
    ("fopen", CALL.format('fopen("/etc/passwd", "r")'), {"fopen"}, 2),
    ("system", CALL.format('system("ls")'), {"system"}, 2),
    ("memcpy", CALL.format("memcpy(P, N, 12)"), {"memcpy"}, 2),
    ("__builtin_memcpy", CALL.format("__builtin_memcpy(P, N, 12)"), {"__builtin_memcpy"}, 2),
    ("__builtin_trap", CALL.format("__builtin_trap()"), {"__builtin_trap"}, 2),
    ("fprintf(stderr)", CALL.format('fprintf(stderr, "x")'), {"fprintf"}, 2),
    ("environ", "extern char** environ;\n__global__ void k(float* p) { p[0] = environ[0][0]; }", {"environ"}, 1),
    ("a user-defined __sanitizer_cov_load4", 'extern "C" void __sanitizer_cov_load4(unsigned* p) {}',
     {"__sanitizer_cov_load4"}, 1),
    ("extern \"C\" __halo_something", 'extern "C" void __halo_something();\n'
                                      "__global__ void k(float* p) { __halo_something(); }", {"__halo_something"}, 1),
    ("halo::", "__global__ void k(float* p) { halo::cpu::record_error(cudaErrorUnknown); }", {"halo::"}, 1),
    ("namespace halo", "namespace halo { int x; }", {"halo::"}, 1),
    ("#pragma clang attribute", '#pragma clang attribute push(__attribute__((no_sanitize("coverage"))), '
                                "apply_to = function)\n__global__ void k(float* p) { p[0] = 1; }\n"
                                "#pragma clang attribute pop", {"#pragma clang attribute"}, 1),
    ("#pragma GCC optimize", '#pragma GCC optimize("O3")\n__global__ void k(float* p) { p[0] = 1; }',
     {"#pragma GCC optimize"}, 1),
    ("#pragma clang optimize", "#pragma clang optimize off\n__global__ void a(float* p) { p[0] = 1; }",
     {"#pragma clang optimize"}, 1),
    ("_Pragma", '_Pragma("clang optimize off")\n__global__ void k(float* p) { p[0] = 1; }',
     {"#pragma clang optimize"}, 1),
    ("#include <stdlib.h>", "#include <cstdio>\n#include <stdlib.h>", {"#include <stdlib.h>"}, 2),
    ("#include of the runtime", '#include "halo/cpu/scheduler.hpp"', {'#include "halo/cpu/scheduler.hpp"'}, 1),
    ("#line", '#line 100 "other.cu"\n__global__ void k(float* p) { p[0] = 1; }', {"#line"}, 1),
    # One file, two builds: what clang grades and what nvcc runs must be the same code (issue 32).
    ("#ifdef __CUDA_ARCH__", "__global__ void k(float* p) {\n#ifdef __CUDA_ARCH__\n  p[0] = 2;\n#endif\n}",
     {"__CUDA_ARCH__"}, 2),
    ("defined(__CUDACC__)", "#if defined(__CUDACC__)\n__global__ void k(float* p) { p[0] = 1; }\n#endif",
     {"__CUDACC__"}, 1),
    ("__has_include", "#if __has_include(<cuda.h>)\n#endif\n__global__ void k(float* p) { p[0] = 1; }",
     {"__has_include"}, 1),
]
# Ordinary-looking code whose effect only the IR shows: the source layer has nothing to go on.
SEEN_IN_IR = [
    ("a 12-byte struct copy", STRUCT_COPY, BLOCK_COPIES, 4),
    ("a 12-byte load", "__global__ void k(const _BitInt(96)* N, _BitInt(96)* P) {\n  P[0] = N[0];\n}",
     {"a 12-byte load"}, 2),
    ("a 10-byte load", "__global__ void k(const long double* N, float* P) {\n  P[0] = N[0];\n}",
     {"a 10-byte load"}, 2),
    ("an indirect call through an integer", "typedef void (*fn)();\n__global__ void k(float* p, long a) { ((fn)a)(); }",
     {"an indirect call", "a function pointer made from an integer"}, 2),
    ("a virtual call", "struct B { virtual float f(float x) { return x; } };\n"
                       "__device__ float call(B* b) { return b->f(2.0f); }", {"an indirect call"}, 2),
    ("printf's %n", "__global__ void k(float* p) {\n  int n = 0;\n  printf(\"x%n\\n\", &n);\n  p[0] = n;\n}",
     {"printf with %n (it stores through its argument)"}, 3),
    ("a printf format that is not a literal", "__global__ void k(float* p, int w) {\n  const char* f = w ? \"a%d\\n\" : "
                                              "\"b%d\\n\";\n  printf(f, w);\n  p[0] = 1;\n}",
     {"printf with a string that is not a literal"}, 3),
    ("a variable-length array", "__global__ void k(const float* N, float* P, int n) {\n"
                                "  float tmp[n];\n  tmp[0] = N[0];\n  P[0] = tmp[n - 1];\n}",
     {"a variable-length array"}, 2),
    ("operator new", "#include <cstddef>\nvoid* operator new(std::size_t n) { return nullptr; }",
     {"a definition of operator new(unsigned long)"}, 2),
    ("an extern \"C\" definition", 'extern "C" int puts(const char* s) { return 0; }', {"a definition of puts"}, 1),
    ("an extern \"C\" block with a helper beside its kernel",
     'extern "C" {\n__global__ void k(float* p) { p[0] = 1; }\n__device__ int puts(const char* s) { return 0; }\n}',
     {"a definition of puts", "a definition of k"}, 3),
    ("a static object defined out of line", "struct X { X() : v(0) {} ~X(); int v; };\nX::~X() { v = 1; }\n"
                                            "X x;\n__global__ void k(float* p) { p[0] = x.v; }", {STATIC}, 3),
    ("a __shared__ object with a constructor",
     "struct S { S() : v(1) {} float v; };\n__global__ void k(float* p) { __shared__ S s; p[0] = s.v; }", {STATIC}, 2),
    ("a static local with a constructor", "struct S { S() : v(threadIdx.x) {} float v; };\n"
                                          "__device__ float get() { static S s; return s.v; }", {STATIC}, 2),
]

# Written-out constructs that leave no trace in the IR, or a harmless one: the source layer's job.
NO_IR_TRACE = {"__CUDA_ARCH__", "__CUDACC__", "__has_include", "the attribute visibility", "the attribute cleanup", "#line", "#pragma GCC optimize",
               "the attribute no_instrument_function", "__declspec", "#include <stdlib.h>",
               '#include "halo/cpu/scheduler.hpp"', "halo::"}

PASTE = "#define CAT(a, b) a##b\n#define ATTR(x) __attribute__((x))\n"
# Hidden from the source layer by macros and token pasting; the IR layer must catch each.
MACRO_HIDDEN = [
    ("asm by token pasting", PASTE + '__global__ void k(float* p) { CAT(as, m)("nop"); }', {"inline asm"}, 3),
    ("file-scope asm by token pasting", PASTE + 'CAT(as, m)(".globl evil");', {"inline asm"}, 3),
    ("no_sanitize hidden in a macro", PASTE + 'ATTR(CAT(no_sani, tize)("coverage")) __global__ void k(float* p) '
                                              "{ p[0] = 1; }", {"the attribute no_sanitize"}, 3),
    ("#pragma clang optimize off by a pasted _Pragma", PASTE + 'CAT(_Pr, agma)("clang optimize off")\n'
                                                              "__global__ void k(float* p) { p[0] = 1; }",
     {"the attribute optnone"}, 4),
    ("section hidden in a macro", PASTE + 'ATTR(CAT(sec, tion)("evil")) int evil = 1;', {"the attribute section"}, 3),
    ("weak hidden in a macro", PASTE + "ATTR(CAT(we, ak)) __device__ float f(float x) { return x; }",
     {"the attribute weak"}, 3),
    ("constructor hidden in a macro", PASTE + 'ATTR(CAT(constr, uctor)) void init() { printf("hi\\n"); }',
     {"the attribute constructor"}, 3),
    ("naked hidden in a macro", PASTE + "ATTR(CAT(na, ked)) void raw() {}", {"the attribute naked"}, 3),
    ("alias hidden in a macro", PASTE + 'int real() { return 1; }\nint fake() ATTR(CAT(ali, as)("_Z4realv"));',
     {"the attribute alias"}, 4),
    ("getenv by token pasting", PASTE + '__global__ void k(float* p) { p[0] = CAT(get, env)("HOME")[0]; }',
     {"getenv"}, 3),
    ("a pointer to exit by token pasting", PASTE + "typedef void (*fn)(int);\nfn get() { return &CAT(ex, it); }",
     {"exit"}, 4),
    ("a fake __sanitizer_cov_load4 call", PASTE + 'extern "C" void CAT(__sani, tizer_cov_load4)(unsigned*);\n'
                                                  "__global__ void k(const float* N, float* P) {\n"
                                                  "  CAT(__sani, tizer_cov_load4)((unsigned*)N);\n  P[0] = N[1];\n}",
     {"__sanitizer_cov_load4"}, 5),
    ("fprintf(stderr) by token pasting", PASTE + '__global__ void k(float* p) { CAT(fpr, intf)(CAT(std, err), "x"); }',
     {"stderr", "fputc", "fprintf", "fwrite"}, 3),
]


_IR = {}


def layers(code):
    """(source findings, IR findings) of a snippet, compiled once per test run (the IR findings
    are None where clang does not compile it)."""
    if code not in _IR:
        folder = Path(tempfile.mkdtemp(prefix="halo-validate-test-"))
        try:
            path = folder / "kernel.cu"
            path.write_text(textwrap.dedent(code).lstrip("\n"))
            source = validate.validate_source(path, path.read_text())
            try:
                ir = validate.validate_ir(path, validate.compile_to_ir(path), validate.ALLOWED_FUNCTIONS)
            except validate.CompileError:
                ir = None
            _IR[code] = (source, ir)
        finally:
            shutil.rmtree(folder, True)
    return _IR[code]


class KernelFiles:
    """Writes snippets as kernel files in a temporary directory."""

    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="halo-validate-test-"))
        self.addCleanup(shutil.rmtree, self.dir, True)

    def kernel(self, code, name="kernel.cu"):
        path = self.dir / name
        path.write_text(textwrap.dedent(code).lstrip("\n"))
        return path

    def assertFinding(self, findings, constructs, line, what):
        self.assertTrue(findings, f"{what}: nothing found")
        for f in findings:
            self.assertRegex(f.message, MESSAGE)
        self.assertTrue(any(f.construct in constructs and f.line == line for f in findings),
                        f"{what}: expected {sorted(constructs)} at line {line}, got\n  "
                        + "\n  ".join(map(str, findings)))


class SourceLayer(KernelFiles, unittest.TestCase):
    def test_the_reference_kernels_and_stubs_are_clean(self):
        self.assertTrue(KERNEL_FILES)
        for path in KERNEL_FILES:
            with self.subTest(path=f"{path.parent.parent.name}/{path.parent.name}/{path.name}"):
                self.assertEqual(validate.validate_source(path, path.read_text()), [])

    def test_learner_code_is_clean(self):
        for what, code in {**LEGITIMATE, **LEGITIMATE_SOURCE_ONLY}.items():
            with self.subTest(what):
                path = self.kernel(code)
                self.assertEqual(validate.validate_source(path, path.read_text()), [])

    def test_hostile_code_written_out_is_refused_with_construct_and_line(self):
        self.assertGreaterEqual(len(WRITTEN_OUT), 20)
        for what, code, constructs, line in WRITTEN_OUT:
            with self.subTest(what):
                path = self.kernel(code)
                self.assertFinding(validate.validate_source(path, path.read_text()), constructs, line, what)

    def test_what_only_the_ir_shows_gets_past_the_source_layer(self):
        for what, code, _, _ in SEEN_IN_IR + MACRO_HIDDEN:
            with self.subTest(what):
                path = self.kernel(code)
                self.assertEqual(validate.validate_source(path, path.read_text()), [])

    def test_message_wording(self):
        path = self.kernel('__global__ void k(float* p) {\n\n  asm("nop");\n}\n')
        [f] = validate.validate_source(path, path.read_text())
        self.assertEqual((f.file, f.line, f.construct), (path, 3, "inline asm"))
        self.assertTrue(f.message.startswith("inline asm is not allowed in a kernel file: line 3 — "), f.message)
        self.assertEqual(str(f), f"{path}:3: {f.message}")

    def test_line_numbers_survive_comments_and_continuations(self):
        code = ('/* one\n two */ #define X \\\n  1\n// four \\\n exit(1);\n'
                '__global__ void k() { "str\\"ing"; exit(1); }\n')
        path = self.kernel(code)
        [f] = validate.validate_source(path, code)
        self.assertEqual((f.construct, f.line), ("exit", 6))

    def test_digraphs(self):
        for code, construct in (("%:pragma clang optimize off", "#pragma clang optimize"),
                                ("<:<:gnu::weak:>:> int x;", "the attribute weak")):
            with self.subTest(code):
                self.assertFinding(validate.validate_source(self.kernel(code), code), {construct}, 1, code)
        self.assertEqual(validate.validate_source(self.kernel("x"), "int a<:3:>; S<::T> b;"), [])

    def test_a_local_copy_of_a_given_header_is_refused(self):
        given = self.dir / "halo" / "given"
        given.mkdir(parents=True)
        (given / "constant_mask_1d.cuh").write_text('asm("nop");\n')
        path = self.kernel('#include "halo/given/constant_mask_1d.cuh"\n')
        self.assertFinding(validate.validate_source(path, path.read_text()),
                           {'#include "halo/given/constant_mask_1d.cuh"'}, 1, "shadowing header")

    def test_allowed_pragmas(self):
        code = ("#pragma once\n#pragma unroll\n#pragma unroll 4\n#pragma nounroll\n#pragma GCC unroll 8\n"
                "#pragma clang loop unroll(full)\n#pragma clang diagnostic ignored \"-Wunused\"\n"
                "#pragma nv_diag_suppress 177\n#pragma message(\"tiled\")\n"
                '#pragma push_macro("TILE_SIZE")\n#pragma pop_macro("TILE_SIZE")\n'
                '_Pragma("unroll")\n')
        self.assertEqual(validate.validate_source(self.kernel(code), code), [])
        for pragma in ("#pragma clang loop vectorize(enable)", "#pragma weak f", "#pragma omp parallel",
                       "#pragma clang section text=\"x\"", "#pragma GCC push_options",
                       '#pragma push_macro("__CUDACC__")', '#pragma pop_macro("HALO_BACKEND_CPU")',
                       "#pragma push_macro(TILE_SIZE)", '#pragma push_macro("TILE_SIZE") extra'):
            with self.subTest(pragma):
                self.assertTrue(validate.validate_source(self.kernel(pragma), pragma))


class IrReader(KernelFiles, unittest.TestCase):
    """validate_ir on IR text written here (no compiler needed)."""

    def test_unreadable_ir_is_not_waved_through(self):
        for ir in ("define void @f() {\n  %1 = load [oops, i8* %0\n}\n", "define void @f() {\n  %1 = load\n"):
            with self.subTest(ir):
                self.assertTrue(validate.validate_ir(self.kernel(""), ir, validate.ALLOWED_FUNCTIONS))

    def test_compiler_inserted_callbacks_pass_and_others_do_not(self):
        ir = textwrap.dedent("""\
            define void @_Z1fPf(float* %0) {
              %2 = bitcast float* %0 to i32*
              call void @__sanitizer_cov_load4(i32* %2)
              %3 = load float, float* %0, align 4
              call void @__sanitizer_cov_load4(i32* %2)
              call void @__sanitizer_cov_store4(i32* %2)
              store float %3, float* %0, align 4
              ret void
            }
            declare void @__sanitizer_cov_load4(i32*)
            declare void @__sanitizer_cov_store4(i32*)
            """)
        found = validate.validate_ir(self.kernel(""), ir, validate.ALLOWED_FUNCTIONS)
        self.assertEqual([f.construct for f in found], ["__sanitizer_cov_load4"])


def in_parallel(function, items):
    """function over items, a clang run per core at a time."""
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return list(pool.map(function, items))


@needs_clang
class IrLayer(KernelFiles, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        in_parallel(layers, list(LEGITIMATE.values()) + [h[1] for h in WRITTEN_OUT + SEEN_IN_IR + MACRO_HIDDEN])

    def test_the_reference_kernels_and_stubs_are_clean(self):
        for path, found in zip(KERNEL_FILES, in_parallel(validate.validate_file, KERNEL_FILES)):
            with self.subTest(path=f"{path.parent.parent.name}/{path.parent.name}/{path.name}"):
                self.assertEqual(found, [])

    def test_learner_code_is_clean(self):
        for what, code in LEGITIMATE.items():
            with self.subTest(what):
                self.assertEqual(layers(code), ([], []))

    def test_what_only_the_ir_shows_is_refused_with_construct_and_line(self):
        for what, code, constructs, line in SEEN_IN_IR:
            with self.subTest(what):
                self.assertFinding(layers(code)[1], constructs, line, what)

    def test_the_ir_layer_catches_what_macros_hide(self):
        self.assertGreaterEqual(len(MACRO_HIDDEN), 3)
        for what, code, constructs, line in MACRO_HIDDEN:
            with self.subTest(what):
                self.assertFinding(layers(code)[1], constructs, line, what)

    def test_written_out_constructs_are_refused_by_the_ir_layer_too(self):
        # The source layer's findings do not hide gaps behind them: what the IR shows of a
        # written-out construct is refused there as well.
        for what, code, constructs, line in WRITTEN_OUT:
            ir = layers(code)[1]
            if ir is None or constructs & NO_IR_TRACE:
                continue
            with self.subTest(what):
                self.assertTrue(ir, f"{what}: the IR layer found nothing")

    def test_validate_file_reports_the_source_layer_first(self):
        what, code, constructs, line = WRITTEN_OUT[0]
        self.assertFinding(validate.validate_file(self.kernel(code)), constructs, line, what)
        what, code, constructs, line = MACRO_HIDDEN[0]
        self.assertFinding(validate.validate_file(self.kernel(code)), constructs, line, what)

    def test_a_file_that_does_not_compile(self):
        path = self.kernel("__global__ void k(float* p) { p[0] = not_declared_anywhere; }")
        [f] = validate.validate_file(path)
        self.assertEqual((f.construct, f.line), (validate.COMPILE_ERROR, 1))
        self.assertIn("does not compile", f.message)

    def test_include_directories_of_a_build(self):
        build = REPO_ROOT / "build" / "check" / "generated"
        dirs = [validate.GRADER_INCLUDE] + ([build] if (build / "halo" / "chapter_defines.hpp").exists() else [])
        path = REPO_ROOT / "solutions" / "7.4-tiled-1d" / "convolution_1d_tiled.cu"
        self.assertEqual(validate.validate_file(path, include_dirs=dirs), [])

    def test_the_dialect_entry_points_are_allowed(self):
        code = """
            #include "halo/given/tile_copy.cuh"
            __constant__ float C[4];
            __global__ void k(float* p) {
              p[threadIdx.x + blockIdx.y * blockDim.z + gridDim.x] = C[0];
              __syncthreads();
              HALO_TODO("x");
            }
            template <class T>
            __device__ void every_atomic(T* a) {
              atomicAdd(a, T(1)); atomicSub(a, T(1)); atomicExch(a, T(1)); atomicMin(a, T(1));
              atomicMax(a, T(1)); atomicAnd(a, T(1)); atomicOr(a, T(1)); atomicXor(a, T(1));
              atomicCAS(a, T(1), T(2));
            }
            __global__ void warps(float* f) {
              f[0] = __shfl_down_sync(~0u, f[1], 1);
              f[2] = float(__ballot_sync(~0u, f[3] > 0.0f));
              f[4] = float(__shfl_xor_sync(~0u, short(f[5]), 1));  // a short converts to int, as with nvcc
            }
            __global__ void atomics(int* i, unsigned* u, unsigned long long* y, float* f, double* d) {
              every_atomic(i); every_atomic(u); every_atomic(y);
              atomicAdd(f, 1.0f); atomicAdd(d, 1.0); atomicExch(f, 1.0f);
            }
            cudaError_t h(const float* s, float* d) {
              cudaMemcpyToSymbol(C, s, 4);
              cudaMemcpyFromSymbol(d, C, 4);
              cudaGetErrorName(cudaPeekAtLastError());
              cudaGetErrorString(cudaGetLastError());
              return cudaDeviceSynchronize();
            }
            __global__ void tiles(const __grid_constant__ TensorMap map) {  // the copy engine (7.9, part 2)
              __shared__ __align__(128) float stage[64];
              __shared__ TileBarrier arrived;
              tile_barrier_init(&arrived);
              copy_tile_async(stage, map, 0, 0, &arrived);
              wait_tile(&arrived, 0);
            }
            cudaError_t host(float* hp, size_t* pitch) {
              float* d = nullptr;
              void* q = nullptr;
              cudaMalloc((void**)&d, 16);
              cudaMallocPitch(&q, pitch, 16, 4);
              cudaMemcpy(d, hp, 16, cudaMemcpyHostToDevice);
              cudaMemcpy2D(q, *pitch, hp, 16, 16, 4, cudaMemcpyHostToDevice);
              cudaMemset(d, 0, 16);
              cudaFree(q);
              return cudaFree(d);
            }
            """
        path = self.kernel(code)
        ir = validate.compile_to_ir(path)
        declared = set(re.findall(r"^declare .*?@([\w.]+)\(", ir, re.M))
        # The compiler's bounds and division checks call their handlers: allowed, never the file's.
        self.assertLessEqual({d for d in declared if d.startswith("__ubsan_")}, validate.SANITIZER_HANDLERS)
        self.assertEqual({d for d in declared if not d.startswith(("llvm.", "__sanitizer_cov_", "__ubsan_"))},
                         validate.DIALECT_FUNCTIONS | validate.RUNTIME_API_FUNCTIONS)
        self.assertEqual(validate.validate_ir(path, ir, validate.ALLOWED_FUNCTIONS), [])

    def test_command_line(self):
        bad = self.kernel('__global__ void k(float* p) { p[0] = getenv("X")[0]; }', "bad.cu")
        good = REPO_ROOT / "solutions" / "7.2-basic-1d" / "convolution_1d_basic.cu"
        out = io.StringIO()
        with redirect_stdout(out):
            self.assertEqual(validate.main([str(good)]), 0)
        self.assertEqual(out.getvalue(), "")
        with redirect_stdout(out):
            self.assertEqual(validate.main([str(good), str(bad)]), 1)
        self.assertRegex(out.getvalue(), r"^.*bad\.cu:1: getenv is not allowed in a kernel file: line 1 — ")


@needs_clang
class PrecompiledHeaders(KernelFiles, unittest.TestCase):
    """compile_to_ir reads the grader's headers from a header precompiled once per process: the
    IR and a compile error's words are what the headers read as text give."""

    def as_text(self, path):
        with unittest.mock.patch.object(validate, "_precompiled_wrapper", lambda options: None):
            try:
                return validate.compile_to_ir(path)
            except validate.CompileError as e:
                return f"error: {e}"

    def test_the_ir_is_the_same_as_with_the_headers_as_text(self):
        kernels = [REPO_ROOT / "solutions" / "7.2-basic-1d" / "convolution_1d_basic.cu",
                   REPO_ROOT / "solutions" / "7.9-speed-of-light" / "convolution_2d_tensor_copies.cu"]  # an overlay
        for path in kernels:
            with self.subTest(path.name):
                self.assertEqual(validate.compile_to_ir(path), self.as_text(path))
        self.assertTrue(any(p is not None for p in validate._PCH.values()), "no header was precompiled")

    def test_a_compile_error_reads_as_with_the_headers_as_text(self):
        path = self.kernel("__global__ void k(float* p) { p[0] = not_declared_anywhere; }")
        with self.assertRaises(validate.CompileError) as caught:
            validate.compile_to_ir(path)
        self.assertEqual(f"error: {caught.exception}", self.as_text(path))


class PastedNames(KernelFiles, unittest.TestCase):
    """Build-telling names made by macro expansion (issue 32, item 3): the source layer reads no
    forbidden token in `#if CAT(_, _CUDA_ARCH__)`; the preprocessor pass names the line."""
    BODY = "__global__ void k(const float* a, float* b) { b[threadIdx.x] = a[threadIdx.x]; }\n"

    def test_a_pasted_name_is_refused_at_its_line(self):
        cases = {
            "#define CAT(a, b) a##b\n#if CAT(_, _CUDA_ARCH__)\n#endif\n": ("__CUDA_ARCH__ (made by a macro)", 2),
            "#include <cmath>\n#if HALO_CAT_(_, _x86_64__)\n#endif\n": ("__x86_64__ (made by a macro)", 2),
            "#define CAT(a, b) a##b\n\n#if TILE_SIZE < 0 || CAT(_, _AVX512F__)\n#endif\n": ("__AVX512F__ (made by a macro)", 3),
            "#define CAT(a, b) a##b\n#define D(a, b) defined(a##b)\n#if D(_, _NOT_A_BUILD_NAME)\n#endif\n":
                ("a macro that expands to `defined`", 3),
        }
        for head, (construct, line) in cases.items():
            with self.subTest(construct):
                self.assertEqual(validate.validate_source(self.kernel(head + self.BODY), head + self.BODY), [])
                self.assertFinding(validate.validate_file(self.kernel(head + self.BODY)), {construct}, line,
                                   construct)

    def test_conditionals_on_the_file_s_own_names_pass(self):
        head = ("#define CAT(a, b) a##b\n#ifndef WIDE\n#define WIDE 4\n#endif\n"
                "#if CAT(WI, DE) > 2 && !defined(NARROW) && TILE_SIZE > 0\n#endif\n")
        self.assertEqual(validate.validate_file(self.kernel(head + self.BODY)), [])

    def test_a_file_without_an_if_is_not_preprocessed_again(self):
        self.assertFalse(validate.pasted_names.needed("#ifdef X\n#endif\n" + self.BODY))
        self.assertTrue(validate.pasted_names.needed("  #  elif X\n"))


class StudentGuideQuotes(KernelFiles, unittest.TestCase):
    """docs/student.md quotes the refusals of an atomic builtin and __syncwarp: both are what the
    validator says, word for word, for the kernel below (whose shuffle is allowed)."""

    def test_the_quoted_refusals_are_real(self):
        path = self.kernel("__global__ void k(float* p) {\n"
                           "  float v = p[threadIdx.x];\n"
                           "  __syncwarp();\n"
                           "  __atomic_fetch_add((int*)p, 1, __ATOMIC_RELAXED);\n"
                           "  v += __shfl_down_sync(0xffffffffu, v, 1);\n"
                           "  p[0] = v;\n"
                           "}\n")
        said = {f.message for f in validate.validate_file(path)}
        guide = (REPO_ROOT / "docs" / "student.md").read_text()
        quoted = re.findall(r"^(__\w+ is not allowed in a kernel file: line \d+ — .*)$", guide, re.M)
        self.assertEqual(len(quoted), 2)
        for line in quoted:
            self.assertIn(line, said)
        self.assertFalse([m for m in said if m.startswith("__shfl_down_sync")])


if __name__ == "__main__":
    unittest.main()
