"""Fuzzed modules (tests/ir_fuzz.py) through the validator's IR layer, its reader held against
LLVM's. A module with a forbidden construct is refused however it is disguised; a disguised
clean module is either read alike by both readers and passes, or refused as read differently:
never passed on a misreading, never refused for a construct it does not have.

The run is a fixed number of mutants from one seed, printed; replay a failure with
HALO_IR_FUZZ_SEED=<seed> (and HALO_IR_FUZZ_COUNT=<n> for more mutants)."""
import collections
import os
import random
import unittest

from halo.core import ir_agreement, validate
from tests import ir_fuzz
from tests.test_ir_agreement import KERNEL, needs_llvm

SEED = int(os.environ.get("HALO_IR_FUZZ_SEED", "20260532"))
COUNT = int(os.environ.get("HALO_IR_FUZZ_COUNT", "150"))


@needs_llvm
class Fuzz(unittest.TestCase):
    def test_every_construct_is_refused_undisguised(self):
        self.assertEqual(validate.validate_ir(KERNEL, ir_fuzz.BASE), [])
        for construct in ir_fuzz.FORBIDDEN:
            with self.subTest(construct[0]):
                text = ir_fuzz.inject(ir_fuzz.BASE, construct)
                self.assertEqual(ir_agreement.check(text, validate), [])  # well-formed: LLVM reads it alike
                self.assertTrue(validate.validate_ir(KERNEL, text))

    def test_disguised_modules(self):
        print(f"\nIR fuzz: seed {SEED}, {COUNT} mutants (replay: HALO_IR_FUZZ_SEED={SEED})")
        rng = random.Random(SEED)
        outcomes = collections.Counter()
        for k in range(COUNT):
            text, construct, steps = ir_fuzz.mutant(rng, ir_fuzz.BASE)
            found = validate.validate_ir(KERNEL, text)
            differ = [f for f in found if f.construct in (ir_agreement.CONSTRUCT, "unreadable IR")]
            outcomes["refused as read differently" if differ else "read alike"] += 1
            what = f"mutant {k} of seed {SEED}: {construct or 'clean'}, {', '.join(steps)}"
            with self.subTest(what):
                if construct and "chars" not in steps:  # a changed character may undo the construct
                    self.assertTrue(found, f"{what} passed")
                if not construct and not differ:
                    self.assertEqual(found, [], f"{what}: read alike, yet refused")
        print(f"IR fuzz outcomes: {dict(outcomes)}")
        self.assertTrue(outcomes["read alike"] and outcomes["refused as read differently"])
