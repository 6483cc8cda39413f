"""The validator on llvm.threadlocal.address: clang >= 16 reads every thread_local variable (a
`__shared__` tile on the CPU backend) through it, so 7.4 to 7.9's tiled kernels depend on it
passing, and it must pass only as the address of such a variable: never a way around a check.

The IR is written here, in the typed-pointer form clang 14's LLVM parses (ir_agreement.py asks
the libLLVM of the clang++ on PATH), so no newer clang is needed to run these tests."""
import textwrap
import unittest
from pathlib import Path
from unittest import mock

from halo.core import llvm_reader, validate

KERNEL = Path("kernel.cu")
TILE = "@_ZZ1kPfE4tile = internal thread_local global [4 x float] zeroinitializer, align 16\n"
INTRINSIC = "declare [4 x float]* @llvm.threadlocal.address.p0a4f32([4 x float]*)\n"


def kernel(body, globals_=TILE, declarations=INTRINSIC):
    """A kernel `k(float*)` whose first instructions are `body` (the argument is %0)."""
    return (globals_ + "define void @_Z1kPf(float* %0) {\n" + textwrap.indent(textwrap.dedent(body), "  ")
            + "  ret void\n}\n" + declarations)


def constructs(ir):
    return [f.construct for f in validate.validate_ir(KERNEL, ir)]


# The tile's address through the intrinsic, then a store into it: what clang 16 makes of
# `tile[1] = in[0];` (with typed pointers).
TILE_STORE = """\
    %2 = call align 16 [4 x float]* @llvm.threadlocal.address.p0a4f32([4 x float]* align 16 @_ZZ1kPfE4tile)
    %3 = getelementptr inbounds [4 x float], [4 x float]* %2, i64 0, i64 1
    %4 = load float, float* %0, align 4
    store float %4, float* %3, align 4
"""


class ThreadLocalAddress(unittest.TestCase):

    def test_a_tile_read_through_the_intrinsic_passes_as_a_direct_use_does(self):
        self.assertEqual(constructs(kernel(TILE_STORE)), [])
        direct = """\
            %2 = getelementptr inbounds [4 x float], [4 x float]* @_ZZ1kPfE4tile, i64 0, i64 1
            %3 = load float, float* %0, align 4
            store float %3, float* %2, align 4
            """
        self.assertEqual(constructs(kernel(direct, declarations="")), [])

    def test_the_dialects_extern_shared_array_passes(self):
        extern = "@halo_dynamic_shared_memory = external thread_local global [0 x float], align 4\n"
        body = """\
            %2 = call [0 x float]* @llvm.threadlocal.address.p0a0f32([0 x float]* @halo_dynamic_shared_memory)
            %3 = getelementptr inbounds [0 x float], [0 x float]* %2, i64 0, i64 1
            store float 0.0, float* %3, align 4
            """
        declaration = "declare [0 x float]* @llvm.threadlocal.address.p0a0f32([0 x float]*)\n"
        self.assertEqual(constructs(kernel(body, extern, declaration)), [])

    def test_only_a_thread_local_variable_of_this_file_may_be_its_operand(self):
        cases = {
            "an ordinary variable": (TILE.replace("thread_local ", ""), "@_ZZ1kPfE4tile"),
            "a constant": (TILE.replace("thread_local global", "thread_local constant"), "@_ZZ1kPfE4tile"),
            "another file's thread_local variable": (
                "@_ZZ1kPfE4tile = external thread_local global [4 x float], align 16\n", "@_ZZ1kPfE4tile"),
            "a pointer argument": (TILE, "%0"),
        }
        for what, (globals_, operand) in cases.items():
            with self.subTest(what):
                body = ("%p = bitcast float* %0 to [4 x float]*\n"
                        f"%2 = call [4 x float]* @llvm.threadlocal.address.p0a4f32([4 x float]* "
                        f"{operand.replace('%0', '%p')})\n")
                self.assertIn("the intrinsic llvm.threadlocal.address", constructs(kernel(body, globals_)))

    def test_a_refused_construct_is_still_refused_through_it(self):
        cases = {
            # an access of a size the load counter has no callback for
            "a 3-byte store": "%5 = bitcast float* %3 to i24*\nstore i24 0, i24* %5, align 1\n",
            # a block copy into the tile from global memory
            "memcpy": ("%5 = bitcast float* %3 to i8*\n%6 = bitcast float* %0 to i8*\n"
                       "call void @llvm.memcpy.p0i8.p0i8.i64(i8* %5, i8* %6, i64 8, i1 false)\n"),
            # a load-counter callback of the file's own, on the tile's address
            "__sanitizer_cov_load4": "%5 = bitcast float* %3 to i32*\ncall void @__sanitizer_cov_load4(i32* %5)\n",
        }
        extra = ("declare void @llvm.memcpy.p0i8.p0i8.i64(i8*, i8*, i64, i1)\n"
                 "declare void @__sanitizer_cov_load4(i32*)\n")
        for construct, tail in cases.items():
            with self.subTest(construct):
                found = constructs(kernel(TILE_STORE + tail, declarations=INTRINSIC + extra))
                self.assertIn(construct, found)
                self.assertNotIn("the intrinsic llvm.threadlocal.address", found)

    def test_the_tile_is_the_root_of_an_address_taken_through_it(self):
        ir = kernel(TILE_STORE)
        check = validate._IrCheck(KERNEL, ir, validate.ALLOWED_FUNCTIONS, validate.DIALECT_GLOBALS)
        fn = check.m.functions[0]
        self.assertEqual(check.root(fn, "%3"), ("@_ZZ1kPfE4tile", 4))



# What clang >= 16 writes (opaque pointers), for the validator's own reader: clang 14's LLVM
# cannot parse `ptr`, so these run the hand-written checks without ir_agreement.py.
OPAQUE = """\
@_ZZ1kPfE4tile = internal thread_local global [4 x float] zeroinitializer, align 16
@.str = private unnamed_addr constant [8 x i8] c"n = %d\\0A\\00", align 1
define void @_Z1kPf(ptr %0) {
  %2 = call align 16 ptr @llvm.threadlocal.address.p0(ptr align 16 @_ZZ1kPfE4tile)
  %3 = getelementptr inbounds [4 x float], ptr %2, i64 0, i64 1
  %4 = load float, ptr %0, align 4
  store float %4, ptr %3, align 4
  %5 = call i32 (ptr, ...) @printf(ptr noundef @.str, i32 1)
  ret void
}
declare nonnull ptr @llvm.threadlocal.address.p0(ptr nonnull)
declare i32 @printf(ptr noundef, ...)
"""


class OpaquePointers(unittest.TestCase):

    def hand_check(self, ir):
        return [f.construct for f in validate._IrCheck(KERNEL, ir, validate.ALLOWED_FUNCTIONS,
                                                       validate.DIALECT_GLOBALS).run()]

    def test_a_tile_and_a_printf_literal_pass(self):
        self.assertEqual(self.hand_check(OPAQUE), [])

    def test_a_printf_string_that_is_not_a_literal_is_still_refused(self):
        ir = OPAQUE.replace("@printf(ptr noundef @.str,", "@printf(ptr noundef %0,")
        self.assertEqual(self.hand_check(ir), ["printf with a string that is not a literal"])

    def test_the_intrinsic_on_an_argument_is_refused(self):
        ir = OPAQUE.replace("(ptr align 16 @_ZZ1kPfE4tile)", "(ptr align 16 %0)")
        self.assertEqual(self.hand_check(ir), ["the intrinsic llvm.threadlocal.address"])


class SecondReading(unittest.TestCase):

    def test_the_compiler_that_wrote_the_ir_reads_it_again(self):
        """The build validates its compiler's IR (compile_sandboxed.py hands it in): clang 14's
        libLLVM, the clang++ on PATH, cannot parse what a configured clang-19 wrote."""
        asked = []

        def facts(ir_text, type_names=(), clang=None):
            asked.append(clang)
            raise llvm_reader.ReaderUnavailable("not asked for real here")

        with mock.patch.object(llvm_reader, "facts", facts):
            validate.validate_ir(KERNEL, kernel(TILE_STORE), clang="/opt/llvm-19/bin/clang++")
        self.assertEqual(asked, ["/opt/llvm-19/bin/clang++"])


if __name__ == "__main__":
    unittest.main()
