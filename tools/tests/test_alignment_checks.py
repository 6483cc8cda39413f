"""The alignment checks put into a kernel's validated IR (halo.core.alignment_checks): a check before
every 16-byte vector access the IR marks 16-byte aligned, after the access's counting callback, and
none before any other access; the IR it writes is IR clang compiles."""
import shutil
import subprocess
import tempfile
import textwrap
import unittest
from pathlib import Path

from halo.core import alignment_checks

CLANG = shutil.which("clang++")

# clang 14's typed pointers: what the kernel flags make of a float4 read and write, of a float the
# IR aligns to 16 (the first of a __constant__ array) and of four floats it aligns to 4.
TYPED = textwrap.dedent("""\
    @F_c = dso_local global [4 x float] zeroinitializer, align 16

    define dso_local void @k(<4 x float>* %p, <4 x float>* %q, <4 x float>* %u) !dbg !7 {
      %1 = bitcast <4 x float>* %p to i128*, !dbg !9
      call void @__sanitizer_cov_load16(i128* %1), !dbg !9
      %2 = load <4 x float>, <4 x float>* %p, align 16, !dbg !9
      %3 = load float, float* getelementptr inbounds ([4 x float], [4 x float]* @F_c, i64 0, i64 0), align 16, !dbg !9
      %4 = load <4 x float>, <4 x float>* %u, align 4, !dbg !9
      %5 = fadd <4 x float> %2, %4
      store volatile <4 x float> <float 1.000000e+00, float 2.000000e+00, float 3.000000e+00, float 4.000000e+00>, <4 x float>* %q, align 16, !dbg !9
      store <4 x float> %5, <4 x float>* %u, align 4
      ret void
    }

    declare void @__sanitizer_cov_load16(i128*)

    !llvm.dbg.cu = !{!0}
    !llvm.module.flags = !{!3, !4}
    !0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "clang", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug)
    !1 = !DIFile(filename: "k.cu", directory: "/tmp")
    !3 = !{i32 7, !"Dwarf Version", i32 4}
    !4 = !{i32 2, !"Debug Info Version", i32 3}
    !7 = distinct !DISubprogram(name: "k", scope: !1, file: !1, line: 1, type: !8, scopeLine: 1, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
    !8 = !DISubroutineType(types: !{null})
    !9 = !DILocation(line: 2, column: 3, scope: !7)
""")


class AlignmentChecks(unittest.TestCase):
    def test_only_16_byte_aligned_vector_accesses_are_checked_after_their_count(self):
        out, added = alignment_checks.add_checks(TYPED)
        self.assertEqual(added, 2)
        lines = out.splitlines()
        load = next(k for k, line in enumerate(lines) if "%2 = load <4 x float>" in line)
        self.assertEqual(lines[load - 3].strip(), "call void @__sanitizer_cov_load16(i128* %1), !dbg !9")
        self.assertEqual(lines[load - 2].strip(), "%halo.aligned16.0 = bitcast <4 x float>* %p to i8*, !dbg !9")
        self.assertEqual(lines[load - 1].strip(),
                         "call void @__halo_check_aligned16_load(i8* %halo.aligned16.0), !dbg !9")
        store = next(k for k, line in enumerate(lines) if "store volatile" in line)
        self.assertEqual(lines[store - 1].strip(),
                         "call void @__halo_check_aligned16_store(i8* %halo.aligned16.1), !dbg !9")
        self.assertIn("%halo.aligned16.1 = bitcast <4 x float>* %q to i8*", lines[store - 2])
        # Nothing before the float aligned to 16 or the accesses aligned to 4.
        for marker in ("%3 = load float", "%4 = load <4 x float>", "store <4 x float> %5"):
            k = next(k for k, line in enumerate(lines) if marker in line)
            self.assertNotIn("__halo_check", lines[k - 1], marker)
        self.assertIn("declare void @__halo_check_aligned16_load(i8*)", out)

    def test_opaque_pointers_are_passed_as_they_are(self):
        text = "define void @k(ptr %p) {\n  %1 = load <4 x float>, ptr %p, align 16, !dbg !9\n  ret void\n}\n"
        out, added = alignment_checks.add_checks(text)
        self.assertEqual(added, 1)
        self.assertIn("  call void @__halo_check_aligned16_load(ptr %p), !dbg !9\n  %1 = load", out)
        self.assertIn("declare void @__halo_check_aligned16_load(ptr)", out)

    def test_a_module_without_a_checked_access_is_left_as_it_is(self):
        text = "define void @k(float* %p) {\n  %1 = load float, float* %p, align 16\n  ret void\n}\n"
        self.assertEqual(alignment_checks.add_checks(text), (text, 0))

    def test_a_module_that_names_a_check_itself_is_refused(self):
        text = TYPED + "define void @__halo_check_aligned16_load(i8* %p) {\n  ret void\n}\n"
        with self.assertRaises(alignment_checks.AlreadyNamed):
            alignment_checks.add_checks(text)

    def test_the_checked_ir_compiles_and_calls_both_checks(self):
        self.assertTrue(CLANG, "clang++ is not installed: the grader's compiler is needed here")
        out, _ = alignment_checks.add_checks(TYPED)
        with tempfile.TemporaryDirectory() as d:
            ll, obj = Path(d) / "k.ll", Path(d) / "k.o"
            ll.write_text(out)
            p = subprocess.run([CLANG, "-O1", "-Xclang", "-disable-llvm-passes", "-c", str(ll), "-o", str(obj)],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            symbols = subprocess.run(["nm", "-u", str(obj)], capture_output=True, text=True).stdout
        self.assertIn("__halo_check_aligned16_load", symbols)
        self.assertIn("__halo_check_aligned16_store", symbols)


if __name__ == "__main__":
    unittest.main()
