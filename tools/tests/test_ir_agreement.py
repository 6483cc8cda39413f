"""The validator's IR reader against LLVM's own (halo.core.ir_agreement) on every module the
project's kernel files make, and a module built to fool the hand reader (the control)."""
import os
import signal
import textwrap
import unittest

from halo.core import ir_agreement, llvm_reader, pasted_names, validate
from tests import ir_corpus
from tests.helpers import REPO_ROOT


def _llvm_available():
    try:
        llvm_reader.facts("")
        return True
    except (llvm_reader.ReaderUnavailable, llvm_reader.ParseError):
        return False


needs_llvm = unittest.skipUnless(validate.find_clang() and _llvm_available(), "clang++ or its libLLVM is missing")
KERNEL = REPO_ROOT / "solutions" / "7.2-basic-1d" / "convolution_1d_basic.cu"


def _both_readers_and_the_validator(path, ir):
    """What the corpus's tests ask of each compiled file: the two readers' differences, and the
    validator's findings as validate_file gives them (the source layer first)."""
    text = path.read_text(errors="replace")
    if pasted_names.needed(text):  # a second compile of its own, as the sandboxed build makes
        findings = validate.validate_file(path)
    else:
        findings = validate.validate_source(path, text) or validate.validate_ir(path, ir, validate.ALLOWED_FUNCTIONS)
    return ir_agreement.check(ir, validate), findings


@needs_llvm
class Corpus(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Each file compiled once; in `./workbook check`, not at all where its build's compile
        # launcher validated the same bytes (both readers agreeing, or the build stops).
        cls.modules = ir_corpus.modules(then=_both_readers_and_the_validator,
                                        recorded=ir_corpus.recorded_by_the_check)

    def test_the_readers_agree_on_every_kernel_file_of_the_project(self):
        modules = self.modules
        counts = {origin: sum(ir is not None for _, ir, _ in ms) for origin, ms in modules.items()}
        by_build = sum(ir == ir_corpus.BUILD_VALIDATED for ms in modules.values() for _, ir, _ in ms)
        print(f"\nIR modules compared with LLVM's reading: {counts}, {sum(counts.values())} in all, "
              f"{by_build} of them by the check's build")
        for origin in ("solutions", "exercises", "wrong", "learners"):  # all of these compile
            self.assertEqual(counts[origin], len(modules[origin]), origin)
            self.assertTrue(counts[origin], origin)
        self.assertGreaterEqual(counts["redteam"], 20)
        for origin, ms in modules.items():
            for path, ir, result in filter(lambda m: m[1] not in (None, ir_corpus.BUILD_VALIDATED), ms):
                with self.subTest(f"{origin}: {path}"):
                    self.assertEqual(result[0], [])

    def test_the_known_wrong_kernels_are_clean(self):
        # grader/wrong/*.toml: the common mistakes, one-line changes to the reference kernels,
        # which `./workbook check` builds; validation must let every one through. (The same
        # holds for the reference solutions and stubs: test_validate.IrLayer.)
        wrong = self.modules["wrong"]
        self.assertGreater(len(wrong), 50)
        for path, ir, result in wrong:
            with self.subTest(str(path)):
                self.assertIsNotNone(ir, "does not compile")
                if ir != ir_corpus.BUILD_VALIDATED:  # a recorded file had no finding
                    self.assertEqual(result[1], [])

    def test_control_a_refused_file_of_the_corpus_has_findings(self):
        # The red team's attempts are mostly files the validator refuses: the findings above are
        # read from the same place, and are not empty for those.
        refused = [path for path, ir, result in self.modules["redteam"] if ir is not None and result[1]]
        self.assertGreaterEqual(len(refused), 10)


@needs_llvm
class Control(unittest.TestCase):
    """A call of system that the hand reader alone does not see: a line holding
    "@llvm.dbg." is a debug intrinsic's to it, and a comment can hold that text."""

    IR = textwrap.dedent("""\
        define dso_local void @_Z1kPf(float* %0) {
          %2 = call i32 @system(i8* null) ; @llvm.dbg.value(
          ret void
        }
        declare i32 @system(i8*)
        """)

    def test_the_hand_reader_alone_is_fooled(self):
        self.assertEqual(validate._IrCheck(KERNEL, self.IR, validate.ALLOWED_FUNCTIONS,
                                           validate.DIALECT_GLOBALS).run(), [])

    def test_the_agreement_check_refuses_it(self):
        found = validate.validate_ir(KERNEL, self.IR)
        self.assertEqual([f.construct for f in found], [ir_agreement.CONSTRUCT])
        self.assertIn("could not read this file's compiled form the way the compiler does", found[0].message)
        self.assertIn("number of instructions", found[0].message)

    def test_without_the_disguise_the_hand_reader_sees_it(self):
        plain = self.IR.replace(" ; @llvm.dbg.value(", "")
        self.assertEqual([f.construct for f in validate.validate_ir(KERNEL, plain)], ["system"])

    def test_text_llvm_rejects_or_stops_on_is_refused(self):
        for ir in ("garbage", "define void @f() {\n  %1 = load [oops, i8* %0\n}\n"):
            with self.subTest(ir):
                self.assertTrue(validate.validate_ir(KERNEL, ir))


@needs_llvm
class ReaderChild(unittest.TestCase):
    """llvm_reader.facts keeps its child for the next module; a child that stops, is killed or
    runs past its time costs no other module."""

    IR = "define void @f() {\n  ret void\n}\n"

    def idle(self):
        return {c.proc.pid for c in llvm_reader._Child._idle}

    def test_the_next_module_is_read_by_the_same_child(self):
        llvm_reader.facts(self.IR)
        before = self.idle()
        self.assertEqual(llvm_reader.facts(self.IR)["functions"]["f"]["insts"][0][1], "ret")
        self.assertEqual(self.idle(), before)

    def test_a_killed_child_costs_no_module(self):
        llvm_reader.facts(self.IR)
        for pid in self.idle():
            os.kill(pid, signal.SIGKILL)
        self.assertIn("f", llvm_reader.facts(self.IR)["functions"])

    def test_a_prestarted_child_reads_the_first_module(self):
        for child in list(llvm_reader._Child._idle):
            child.end()  # none kept from another test
        llvm_reader.prestart()  # the compile launcher's, while clang makes the IR
        llvm_reader._prestarted()
        started = self.idle()
        self.assertEqual(len(started), 1)
        self.assertEqual(llvm_reader.facts(self.IR)["functions"]["f"]["insts"][0][1], "ret")
        self.assertEqual(self.idle(), started)

    def test_a_module_past_its_time_is_refused_and_the_next_is_read(self):
        with self.assertRaisesRegex(llvm_reader.ParseError, "did not read the module within 0 s"):
            llvm_reader.facts(self.IR, timeout=0)
        self.assertIn("f", llvm_reader.facts(self.IR)["functions"])
